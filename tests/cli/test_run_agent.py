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
        main, ["run", str(EXAMPLE), "--agent", str(EXAMPLE), "--save-actual", str(saved), "--format", "json"]
    )
    assert first.exit_code == 0, first.output
    assert "wrote the actual invocations of 3 case(s)" in first.stderr
    again = runner.invoke(main, ["run", str(EXAMPLE), "--actual", str(saved), "--format", "json"])
    assert _scores(_doc(again)) == _scores(_doc(first))
    scores = _scores(_doc(first))
    assert scores[("flight_then_currency", "tool_trajectory_avg_score")] == (1.0, "PASSED")
    # The agent's own turns are part of the result.
    case = _doc(first)["eval_sets"][0]["cases"][1]
    (run,) = case["agent_runs"]
    assert run["run"] == 1 and len(run["invocations"]) == 2 and run["error"] is None


def test_the_recorded_actual_file_shows_the_old_agent_s_failure(runner):
    result = runner.invoke(
        main, ["run", str(EXAMPLE), "--actual", str(EXAMPLE / "travel.actual.json"), "--format", "json"]
    )
    assert result.exit_code == 1
    scores = _scores(_doc(result))
    assert scores[("flight_then_currency", "tool_trajectory_avg_score")] == (0.5, "FAILED")
    assert all(case["agent_runs"] == [] for case in _doc(result)["eval_sets"][0]["cases"])


COIN_AGENT = """
import itertools
_flips = itertools.count()

def respond(message, history):
    # Every other conversation calls the wrong tool: a flaky agent.
    if not history:
        respond.wrong = next(_flips) % 2 == 1
    name = "search_hotels" if respond.wrong else "get_weather"
    return {"tool_calls": [{"name": name, "args": {"city": "Paris", "day": "tomorrow"}}],
            "text": "Tomorrow in Paris it will be sunny with a high of 24 degrees Celsius."}
"""


def test_num_runs_keeps_every_run_and_judges_the_mean(runner, tmp_path):
    agent = tmp_path / "coin.py"
    agent.write_text(COIN_AGENT)
    evalset = f"{EXAMPLE / 'travel.evalset.json'}:weather_paris"
    result = runner.invoke(
        main,
        [
            "run",
            evalset,
            "--agent",
            f"{agent}:respond",
            "--agent-concurrency",
            "1",
            "--num-runs",
            "4",
            "--criteria",
            "tool_trajectory_avg_score,response_match_score",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 1, result.output
    (case,) = _doc(result)["eval_sets"][0]["cases"]
    trajectory, response = case["criteria"]
    assert trajectory["score"] == 0.5 and trajectory["status"] == "FAILED"
    assert trajectory["details"]["run_scores"] == [1.0, 0.0, 1.0, 0.0]
    assert trajectory["details"]["spread"] == {"min": 0.0, "max": 1.0, "stdev": 0.5}
    assert [r["status"] for r in trajectory["runs"]] == ["PASSED", "FAILED", "PASSED", "FAILED"]
    assert "mean 0.5 over 4 runs" in trajectory["reason"]
    assert response["score"] == 1.0 and response["status"] == "PASSED"
    assert [r["run"] for r in case["agent_runs"]] == [1, 2, 3, 4]


def test_num_runs_saves_one_file_per_run_and_actual_takes_them_back_as_runs(runner, tmp_path):
    agent = tmp_path / "coin.py"
    agent.write_text(COIN_AGENT)
    evalset = f"{EXAMPLE / 'travel.evalset.json'}:weather_paris"
    saved = tmp_path / "weather.actual.json"
    common = ["--criteria", "tool_trajectory_avg_score", "--format", "json"]
    first = runner.invoke(
        main,
        ["run", evalset, "--agent", f"{agent}:respond", "--agent-concurrency", "1", "--num-runs", "2"]
        + ["--save-actual", str(saved), *common],
    )
    runs = [tmp_path / "weather.actual.run1.json", tmp_path / "weather.actual.run2.json"]
    assert all(path.is_file() for path in runs) and not saved.exists()
    assert f"--actual {runs[0]} --actual {runs[1]}" in first.stderr
    again = runner.invoke(main, ["run", evalset, "--actual", str(runs[0]), "--actual", str(runs[1]), *common])
    first_result = _doc(first)["eval_sets"][0]["cases"][0]["criteria"][0]
    again_result = _doc(again)["eval_sets"][0]["cases"][0]["criteria"][0]
    assert again_result["details"] == first_result["details"]
    assert again_result["status"] == first_result["status"] == "FAILED"


def test_num_runs_needs_an_agent(runner):
    result = runner.invoke(
        main,
        ["run", str(EXAMPLE), "--actual", str(EXAMPLE / "travel.actual.json"), "--num-runs", "2"],
    )
    assert result.exit_code == 2 and "--actual run1.json --actual run2.json" in result.output


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


def test_a_saved_agent_error_is_rescored_without_an_unknown_key_warning(runner, tmp_path):
    """The key agenteval writes for a case the agent could not run is its own, never an
    "unknown case key kept but not used" (it was warned four times on re-scoring)."""
    agent = tmp_path / "flaky.py"
    agent.write_text("def respond(message, history):\n    raise RuntimeError('down')\n")
    saved = tmp_path / "saved.json"
    first = runner.invoke(
        main, ["run", str(EXAMPLE), "--agent", f"{agent}:respond", "--save-actual", str(saved), "--quiet"]
    )
    assert first.exit_code == 1 and "agenteval_agent_error" in saved.read_text(encoding="utf-8")
    again = runner.invoke(main, ["run", str(EXAMPLE), "--actual", str(saved), "--format", "json"])
    assert again.exit_code == 1
    assert "unknown case key" not in again.stderr
    statuses = {c["status"] for c in _doc(again)["eval_sets"][0]["cases"]}
    assert statuses == {"ERRORED"}


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
