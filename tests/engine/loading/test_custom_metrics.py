"""``custom_metrics`` entries are checked at load as ADK 2.13's ``CustomMetricConfig``."""

from __future__ import annotations

import pytest
from agenteval._loading import config_from_data
from agenteval.errors import ConfigError

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
        ({"code_config": {"name": "fn"}}, "is not a dotted path to a function"),
        ({"code_config": {"name": "pkg.fn", "args": []}}, "custom_metrics.m.code_config.args: unknown key"),
        ({"code_config": {"name": "a.b"}, "metric_info": {"metric_name": "x"}}, "metric_value_info"),
        (
            {
                "code_config": {"name": "a.b"},
                "metric_info": {
                    "metric_name": "x",
                    "metric_value_info": {"interval": {"min_value": 2, "max_value": 1}},
                },
            },
            "min_value 2 is greater than max_value 1",
        ),
    ],
)
def test_what_is_wrong_is_an_error_with_its_json_path(entry, expected):
    with pytest.raises(ConfigError) as info:
        _config(entry)
    assert expected in str(info.value) and "invalid custom metric 'm'" in str(info.value)
