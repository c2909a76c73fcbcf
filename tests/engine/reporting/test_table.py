"""``reporting/_table.py``: the terminal report fits 80 columns, shows each case's status on
its own row above its criteria, and never cuts a status or a case id."""

from __future__ import annotations

import io
from pathlib import Path

import agenteval
from agenteval.reporting import render_table
from rich.console import Console

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "travel"


def _render(result: agenteval.RunResult, width: int = 80) -> list[str]:
    out = io.StringIO()
    render_table(result, Console(file=out, width=width, no_color=True))
    return out.getvalue().splitlines()


def test_each_case_row_carries_its_status_and_its_criteria_follow_indented():
    config = agenteval.load_config(EXAMPLE / "test_config.json")
    result = agenteval.evaluate(EXAMPLE / "travel.evalset.json", EXAMPLE / "travel.actual.json", config)
    lines = _render(result)
    assert all(len(line) <= 80 for line in lines)
    header = next(i for i, line in enumerate(lines) if "case / criterion" in line)
    rows = [line.split() for line in lines[header + 2 :] if line.strip()][:5]
    assert rows[0] == ["weather_paris", "PASSED"]
    assert rows[1] == ["tool_trajectory_avg_score", "1", "1", "PASSED"]
    assert lines[header + 3].startswith("    tool_trajectory_avg_score")  # indented under the case
    assert any(line.split() == ["flight_then_currency", "FAILED"] for line in lines)
    assert sum("INFORMATIONAL" in line for line in lines) == 3  # never cut at 80 columns


def test_a_long_case_id_folds_instead_of_pushing_statuses_out():
    long_id = "a_very_long_case_identifier_that_goes_on_and_on_for_a_while_" * 2
    case = agenteval.testing.make_case([agenteval.testing.make_invocation("q", "a")], eval_id=long_id)
    eval_set = agenteval.models.EvalSet(eval_set_id="s", eval_cases=[case])
    result = agenteval.evaluate(eval_set, eval_set, ["tool_call_count_v1"])
    lines = _render(result)
    assert all(len(line) <= 80 for line in lines)
    header = next(i for i, line in enumerate(lines) if "case / criterion" in line)
    block = [line for line in lines[header + 2 :] if line.strip()]
    assert "".join(line.split()[0] for line in block).startswith(long_id)  # folded, whole
    assert block[0].split()[-1] == "INFORMATIONAL"  # the case's status, on its first line


def test_several_runs_show_the_mean_and_the_range():
    result = agenteval.evaluate_agent(
        str(EXAMPLE), f"{EXAMPLE / 'travel.evalset.json'}:weather_paris", ["response_match_score"], num_runs=2
    )
    lines = _render(result)
    assert any("mean (min–max)" in line for line in lines)
    assert any(line.split()[:3] == ["response_match_score", "1", "(1–1)"] for line in lines)
