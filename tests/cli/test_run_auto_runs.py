"""``agenteval run --num-runs auto [--run-budget N]`` on the command line."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval.cli import main
from agenteval.runs import find_run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "travel"
AGENT = f"{EXAMPLE / 'agent.py'}:respond"
EVALSET = f"{EXAMPLE / 'travel.evalset.json'}:weather_paris"
CRITERIA = ["--criteria", "tool_trajectory_avg_score,response_match_score"]


def _run(runner, runs_dir, *extra):
    return runner.invoke(
        main,
        [
            "run",
            EVALSET,
            "--agent",
            AGENT,
            *CRITERIA,
            "--format",
            "json",
            "--runs-dir",
            str(runs_dir),
            *extra,
        ],
    )


def test_auto_runs_stop_a_decided_case_and_the_folder_says_auto(runner, tmp_path):
    result = _run(runner, tmp_path, "--num-runs", "auto")
    assert result.exit_code == 0, result.output
    (case,) = json.loads(result.stdout)["eval_sets"][0]["cases"]
    trajectory, response = case["criteria"]
    # The example agent is deterministic: every run perfect and alike. The trajectory
    # (threshold 1.0, zero-failure rule) is settled at 3 runs, and so is ROUGE at 0.6: three
    # identical runs are one observation, whose point verdict stands, so the case stops at
    # the first look (the 98.75% interval alone would need 12 runs: 0.00625^(1/n) >= 0.6).
    assert len(trajectory["runs"]) == len(response["runs"]) == 3
    assert trajectory["verdict"]["verdict"] == "PASS" and trajectory["verdict"]["basis"] == "zero-failure"
    verdict = response["verdict"]
    assert verdict["verdict"] == "PASS" and verdict["basis"] == "identical-runs"
    assert verdict["interval"]["level"] == 0.9875 and "all 3 runs gave the same output" in verdict["reason"]
    manifest = find_run(tmp_path).manifest
    assert manifest.num_runs_policy == "auto" and manifest.looks == [3, 6, 12, 24]
    assert manifest.num_runs == 24 and manifest.set_confidence == 0.95
    shown = runner.invoke(main, ["runs", "show", "--runs-dir", str(tmp_path), "--format", "json"])
    assert json.loads(shown.stdout)["eval_sets"] == json.loads(result.stdout)["eval_sets"]


def test_the_run_budget_caps_the_runs(runner, tmp_path):
    result = _run(runner, tmp_path, "--num-runs", "auto", "--run-budget", "7")
    assert result.exit_code == 0, result.output
    manifest = find_run(tmp_path).manifest
    assert manifest.run_budget == 7 and manifest.looks == [3, 6] and manifest.num_runs == 6
    (case,) = json.loads(result.stdout)["eval_sets"][0]["cases"]
    assert len(case["criteria"][0]["runs"]) <= 6


def test_usage_errors(runner, tmp_path):
    bad = _run(runner, tmp_path, "--num-runs", "often")
    assert bad.exit_code == 2 and "neither a whole number" in bad.output
    small = _run(runner, tmp_path, "--num-runs", "auto", "--run-budget", "2")
    assert small.exit_code == 2 and "--run-budget 2 is too small" in small.output
    without_auto = _run(runner, tmp_path, "--run-budget", "9")
    assert without_auto.exit_code == 2 and "give --num-runs auto" in without_auto.output
    no_stats = _run(runner, tmp_path, "--num-runs", "auto", "--no-stats")
    assert no_stats.exit_code == 2 and "drop --no-stats" in no_stats.output
    recorded = runner.invoke(
        main, ["run", EVALSET, "--actual", str(EXAMPLE / "travel.actual.json"), "--num-runs", "auto"]
    )
    assert recorded.exit_code == 2 and "needs --agent" in recorded.output


def test_dry_run_gives_the_range_of_agent_runs(runner, tmp_path):
    result = runner.invoke(
        main,
        [
            "run",
            EVALSET,
            "--agent",
            AGENT,
            *CRITERIA,
            "--num-runs",
            "auto",
            "--run-budget",
            "10",
            "--dry-run",
        ],
    )
    assert result.exit_code == 0, result.output
    assert (
        "1 case(s) x 3 to 6 runs (--num-runs auto, looks at 3, 6) = 3 to 6 conversation(s)" in result.output
    )
