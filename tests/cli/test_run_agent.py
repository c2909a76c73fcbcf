"""``agenteval run --agent``: running a Python agent, saving and re-scoring its turns."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "travel"
AGENT = f"{EXAMPLE / 'agent.py'}:respond"


def _doc(result) -> dict:
    return json.loads(result.stdout)


def _scores(doc: dict) -> dict:
    return {
        (case["eval_id"], r["criterion"]): (r["score"], r["status"])
        for case in doc["eval_sets"][0]["cases"]
        for r in case["criteria"]
    }


def test_the_example_agent_runs_offline_and_its_saved_turns_score_the_same(runner, tmp_path):
    saved = tmp_path / "actual.json"
    first = runner.invoke(
        main, ["run", str(EXAMPLE), "--agent", AGENT, "--save-actual", str(saved), "--format", "json"]
    )
    assert first.exit_code == 1, first.output  # the example agent sends "780" as a string on purpose
    assert "wrote the actual invocations of 3 case(s)" in first.stderr
    again = runner.invoke(main, ["run", str(EXAMPLE), "--actual", str(saved), "--format", "json"])
    assert _scores(_doc(again)) == _scores(_doc(first))
    scores = _scores(_doc(first))
    assert scores[("weather_paris", "tool_trajectory_avg_score")] == (1.0, "PASSED")
    assert scores[("flight_then_currency", "tool_trajectory_avg_score")] == (0.5, "FAILED")


def test_an_agent_crash_is_that_case_s_error_and_the_run_goes_on(runner, tmp_path):
    agent = tmp_path / "flaky.py"
    agent.write_text(
        "def respond(message, history):\n"
        "    if 'yen' in message:\n"
        "        raise RuntimeError('currency service down')\n"
        "    return 'fine'\n"
    )
    result = runner.invoke(main, ["run", str(EXAMPLE), "--agent", f"{agent}:respond", "--format", "json"])
    assert result.exit_code == 1
    cases = {c["eval_id"]: c for c in _doc(result)["eval_sets"][0]["cases"]}
    crashed = cases["flight_then_currency"]
    assert crashed["status"] == "ERRORED"
    first = crashed["criteria"][0]
    assert first["reason_code"] == "agent_error"
    assert "turn 2: the agent raised RuntimeError: currency service down" in first["reason"]
    assert "currency service down" in first["error"]["traceback"]
    assert cases["weather_paris"]["status"] in ("PASSED", "FAILED")  # scored normally


def test_usage_errors(runner, tmp_path):
    evalset = str(EXAMPLE / "travel.evalset.json")
    both = runner.invoke(
        main, ["run", evalset, "--agent", AGENT, "--actual", str(EXAMPLE / "travel.actual.json")]
    )
    assert both.exit_code == 2 and "not both" in both.output
    save_without_agent = runner.invoke(
        main,
        [
            "run",
            evalset,
            "--actual",
            str(EXAMPLE / "travel.actual.json"),
            "--save-actual",
            str(tmp_path / "x"),
        ],
    )
    assert save_without_agent.exit_code == 2 and "needs --agent" in save_without_agent.output
    unknown = runner.invoke(main, ["run", evalset, "--agent", "my-agent-folder"])
    assert unknown.exit_code == 2 and "no agent adapter recognises it" in unknown.output
    broken = runner.invoke(main, ["run", evalset, "--agent", "no_such_module_xyz:respond"])
    assert broken.exit_code == 2 and "importing 'no_such_module_xyz' failed" in broken.output
    assert "Traceback" not in broken.output
