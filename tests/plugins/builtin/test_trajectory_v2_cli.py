"""``tool_trajectory_match_v2`` through ``agenteval run``: a bad configuration stops the run
before any work (exit 2, the config file, the JSON path, the fix); a field matcher named by
path is found relative to the config's folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agenteval.cli import main
from click.testing import CliRunner

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "travel"
V2 = "tool_trajectory_match_v2"


def _run(config: Path, *extra: str):
    args = ["run", str(EXAMPLE / "travel.evalset.json"), "--actual", str(EXAMPLE / "travel.actual.json")]
    return CliRunner().invoke(main, [*args, "--config", str(config), "--no-record", *extra])


def _config(tmp_path: Path, params: dict) -> Path:
    path = tmp_path / "test_config.json"
    path.write_text(json.dumps({"criteria": {V2: {"threshold": 0.8, **params}}}), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "params, where, fix",
    [
        ({"match_type": "ORDERED"}, f"criteria.{V2}.match_type", "expected one of 'EXACT', 'IN_ORDER'"),
        ({"args": {"mode": "fuzzy"}}, f"criteria.{V2}.args.mode", "'partial'"),
        (
            {"args": {"per_tool": {"search": {"fields": {"date": {"match": "regex", "pattern": "(2026"}}}}}},
            f"criteria.{V2}.args.per_tool.search.fields.date.pattern",
            "does not compile",
        ),
        (
            {"args": {"fields": {"note": {"match": "missing/matchers.py:same_meaning"}}}},
            f"criteria.{V2}.args.fields.note.match",
            "fix the path (relative to the config's folder)",
        ),
        (
            {"score": "f_beta", "beta": 0},
            f"criteria.{V2}.beta",
            "beta must be greater than 0: recall weighs beta times",
        ),
        (
            {"score": "f_beta", "beta": -1.5},
            f"criteria.{V2}.beta",
            "beta must be greater than 0: recall weighs beta times",
        ),
    ],
)
def test_a_bad_config_stops_the_run_with_the_file_the_path_and_the_fix(tmp_path, params, where, fix):
    config = _config(tmp_path, params)
    result = _run(config)
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert str(config) in text
    assert where in text
    assert fix in text
    assert "Traceback" not in result.output


def test_a_field_matcher_is_found_beside_the_config(tmp_path, monkeypatch):
    (tmp_path / "matchers.py").write_text(
        "def same_amount(actual, expected):\n    return float(actual) == float(expected)\n", encoding="utf-8"
    )
    fields = {"amount": {"match": "matchers.py:same_amount"}}
    config = _config(tmp_path, {"match_type": "IN_ORDER", "score": "binary", "args": {"fields": fields}})
    monkeypatch.chdir(Path(__file__).parent)  # elsewhere than the config's folder
    result = _run(config, "--criteria", V2)
    assert result.exit_code == 0, result.output  # "780" and 780 are the same amount for it
