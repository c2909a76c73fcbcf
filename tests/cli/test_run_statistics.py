"""``agenteval run`` statistics on the command line: per-eval-set numbers in the summary,
re-rendered identically from the run folder."""

from __future__ import annotations

import json
import subprocess
import sys


def _agenteval(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agenteval", *args], capture_output=True, text=True, timeout=120, check=False
    )


def _run_json(example, runs_dir, *extra):
    done = _agenteval(
        "run",
        str(example),
        "--actual",
        str(example / "travel.actual.json"),
        "--format",
        "json",
        "--runs-dir",
        str(runs_dir),
        "--quiet",
        *extra,
    )
    return done, json.loads(done.stdout)


def test_eval_set_statistics_are_in_the_summary_and_re_render_identically(example, tmp_path):
    done, document = _run_json(example, tmp_path / "runs")
    assert done.returncode == 1  # one case of the recording fails, as before
    (eval_set,) = document["summary"]["eval_sets"]
    by_name = {c["criterion"]: c for c in eval_set["criteria"]}
    trajectory = by_name["tool_trajectory_avg_score"]
    assert trajectory["n_cases"] == 3 and trajectory["verdict"] == "FAIL"
    assert trajectory["pass_rate"]["method"] == "clopper-pearson"
    assert trajectory["mean"]["low"] <= trajectory["mean"]["estimate"] <= trajectory["mean"]["high"]
    assert by_name["tool_call_count_v1"]["verdict"] is None
    shown = _agenteval("runs", "show", "--runs-dir", str(tmp_path / "runs"), "--format", "json")
    assert json.loads(shown.stdout)["summary"]["eval_sets"] == document["summary"]["eval_sets"]
    written = json.loads(next((tmp_path / "runs").glob("*/summary.json")).read_text())
    assert written["summary"]["eval_sets"] == document["summary"]["eval_sets"]


def test_no_stats_leaves_the_eval_set_statistics_out(example, tmp_path):
    _, document = _run_json(example, tmp_path / "runs", "--no-stats")
    assert document["summary"]["eval_sets"] == []


def _two_runs(example, *extra, runs_dir=None, second=None):
    # The recording and a reworded one: two runs that differ, too few to settle a ROUGE
    # threshold (the same recording twice is one observation: its point verdict stands).
    recording = str(example / "travel.actual.json")
    return _agenteval(
        "run",
        f"{example / 'travel.evalset.json'}:weather_paris",
        "--actual",
        recording,
        "--actual",
        str(second or recording),
        *(("--runs-dir", str(runs_dir)) if runs_dir is not None else ("--no-record",)),
        "--format",
        "json",
        *extra,
    )


def test_inconclusive_exits_3_only_with_the_flag(example, reworded_recording):
    plain = _two_runs(example, second=reworded_recording)
    assert plain.returncode == 0
    flagged = _two_runs(example, "--fail-on-inconclusive", second=reworded_recording)
    assert flagged.returncode == 3
    assert "INCONCLUSIVE" in flagged.stderr and "--fail-on-inconclusive" in flagged.stderr
    assert (
        _two_runs(example, "--fail-on-inconclusive", "--no-stats", second=reworded_recording).returncode == 0
    )


def test_the_same_recording_twice_is_one_observation_and_not_inconclusive(example):
    done = _two_runs(example, "--fail-on-inconclusive")
    assert done.returncode == 0, done.stderr
    (case,) = json.loads(done.stdout)["eval_sets"][0]["cases"]
    response = next(c for c in case["criteria"] if c["criterion"] == "response_match_score")
    assert response["verdict"]["verdict"] == "PASS" and response["verdict"]["basis"] == "identical-runs"
    assert "one observation repeated" in response["verdict"]["reason"]


def test_a_failing_run_exits_1_even_with_the_flag(example, tmp_path):
    done, _ = _run_json(example, tmp_path / "runs", "--fail-on-inconclusive")
    assert done.returncode == 1


def test_strict_is_a_deprecated_alias_of_raise_errors(example):
    old = _two_runs(example, "--strict")
    assert old.returncode == 0 and "--strict is deprecated" in old.stderr and "--raise-errors" in old.stderr
    new = _two_runs(example, "--raise-errors")
    assert new.returncode == 0 and "deprecated" not in new.stderr
    assert "--strict" not in _agenteval("run", "--help").stdout


def test_the_run_folder_records_exit_3_for_an_inconclusive_run(example, tmp_path, reworded_recording):
    done = _two_runs(example, "--fail-on-inconclusive", runs_dir=tmp_path / "runs", second=reworded_recording)
    assert done.returncode == 3
    manifest = json.loads(next((tmp_path / "runs").glob("*/manifest.json")).read_text(encoding="utf-8"))
    assert manifest["exit_code"] == 3 and manifest["state"] == "complete"
