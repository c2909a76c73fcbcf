"""``agenteval criteria list|show``."""

from __future__ import annotations

import json

from agenteval.cli import main

BUILTINS = {
    "tool_trajectory_avg_score",
    "response_match_score",
    "trajectory_precision",
    "trajectory_recall",
    "trajectory_single_tool_use",
    "tool_call_count_v1",
}


def test_list_json_has_builtins_with_distribution_version_description(runner):
    result = runner.invoke(main, ["criteria", "list", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert BUILTINS <= set(rows)
    for name in BUILTINS:
        assert rows[name]["distribution"] == "agenteval-builtin"
        assert rows[name]["version"]
        assert rows[name]["description"], f"{name} has no description"


def test_list_table_and_check(runner):
    result = runner.invoke(main, ["criteria", "list", "--check"])
    assert result.exit_code == 0, result.output
    assert "tool_trajectory_avg_score" in result.output
    assert "agenteval-builtin" in result.output


def test_show_prints_params_schema(runner):
    result = runner.invoke(main, ["criteria", "show", "tool_trajectory_avg_score"])
    assert result.exit_code == 0, result.output
    assert "match_type" in result.output and "ignore_args" in result.output
    assert "default threshold:  1.0" in result.output
    assert "needs expected:     yes" in result.output


def test_show_unknown_is_exit_2(runner):
    result = runner.invoke(main, ["criteria", "show", "nope"])
    assert result.exit_code == 2
    assert "'nope' is not an installed criterion" in result.output


def test_version_lists_plugins(runner):
    result = runner.invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output.startswith("agenteval-engine ")
    assert "agenteval-builtin" in result.output
