"""``custom_metrics`` entries are checked at load as ADK 2.13's ``CustomMetricConfig``, and
what ADK finds only when a run uses the metric, when a run names it (before any work)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agenteval._loading import config_from_data
from agenteval.errors import ConfigError
from click.testing import CliRunner

EXAMPLE = Path(__file__).parents[3] / "examples" / "travel"
ACTUAL = EXAMPLE / "travel.actual.json"
INTERVAL = {"interval": {"min_value": -1, "max_value": 1}}


def _config(entry):
    return config_from_data({"criteria": {"m": 0.5}, "custom_metrics": {"m": entry}})


@pytest.mark.parametrize(
    "entry",
    [
        {"code_config": {"name": "pkg.module.fn"}},
        {"codeConfig": {"name": "pkg.fn"}, "description": "d"},
        {"code_config": {"name": "a.b"}, "metric_info": {"metric_name": "x", "metric_value_info": INTERVAL}},
        {"code_config": {"name": "a.b"}, "metricInfo": {"metricName": "x", "metricValueInfo": {}}},
        {"code_config": {"name": "a.b"}, "unknown": 1},  # ADK ignores it
        # ADK loads these and fails only when a run names the metric (see below)
        {"code_config": {"name": "fn"}},
        {
            "code_config": {"name": "a.b"},
            "metric_info": {
                "metric_name": "x",
                "metric_value_info": {"interval": {"min_value": 2, "max_value": 1}},
            },
        },
    ],
)
def test_what_adk_accepts_is_accepted(entry):
    assert _config(entry).custom_metrics == {"m": entry}
    adk = pytest.importorskip("google.adk.evaluation.eval_config")
    adk.CustomMetricConfig.model_validate(entry)


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({}, "custom_metrics.m.code_config: required key is missing"),
        ({"code_config": {"name": "pkg.fn", "args": []}}, "custom_metrics.m.code_config.args: unknown key"),
        ({"code_config": {"name": "a.b"}, "metric_info": {"metric_name": "x"}}, "metric_value_info"),
    ],
)
def test_what_is_wrong_is_an_error_with_its_json_path(entry, expected):
    with pytest.raises(ConfigError) as info:
        _config(entry)
    assert expected in str(info.value) and "invalid custom metric 'm'" in str(info.value)


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"code_config": {"name": "fn"}}, "custom_metrics.m.code_config.name: 'fn' is not a dotted path"),
        ({"code_config": {"name": "pkg..fn"}}, "is not a dotted path to a function; write package.module"),
        (
            {
                "code_config": {"name": "a.b"},
                "metric_info": {
                    "metric_name": "x",
                    "metric_value_info": {"interval": {"min_value": 2, "max_value": 1}},
                },
            },
            "custom_metrics.m.metric_info.metric_value_info.interval: min_value 2 is greater than max_value",
        ),
    ],
)
def test_what_adk_finds_at_run_time_stops_a_run_that_names_it(tmp_path, entry, expected):
    from agenteval.cli import main

    (tmp_path / "c.json").write_text(json.dumps({"criteria": {"m": 0.5}, "custom_metrics": {"m": entry}}))
    result = CliRunner().invoke(
        main, ["run", str(EXAMPLE), "--actual", str(ACTUAL), "--config", str(tmp_path / "c.json")]
    )
    assert result.exit_code == 2, result.output
    assert expected in result.output
    assert "Traceback" not in result.output


def test_an_entry_no_criterion_names_is_left_alone_as_in_adk(tmp_path):
    from agenteval.cli import main

    config = {
        "criteria": {"response_match_score": 0.1},
        "custom_metrics": {"unused": {"code_config": {"name": "fn"}}},
    }
    (tmp_path / "c.json").write_text(json.dumps(config))
    result = CliRunner().invoke(
        main, ["run", str(EXAMPLE), "--actual", str(ACTUAL), "--config", str(tmp_path / "c.json")]
    )
    assert result.exit_code in (0, 1), result.output
