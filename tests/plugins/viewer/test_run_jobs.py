"""Runs started from the browser (``RunJobs``) carry a command that runs them again: the
manifest's ``argv`` is ``agenteval run ...`` (no comment), what the browser chose (criteria,
thresholds, judge model) is the run folder's ``test_config.json``, which the command names
with ``--config``; pasted into a shell, the command gives the same verdicts."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import agenteval_viewer_server_test_helpers as helpers
import pytest
from agenteval.plugins import rerun_command
from agenteval.runs import RecordedRun, find_run
from agenteval_viewer._authoring_guard import WriteGuard
from agenteval_viewer._run_jobs import RunJobs

#: What the browser's run dialog sends: two criteria with thresholds, a judge criterion
#: whose model is the dialog's "Judge model" field.
CHOSEN = {
    "criteria": {
        "response_match_score": {"threshold": 0.9},
        "tool_trajectory_avg_score": {"threshold": 1.0},
        "final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"num_samples": 3}},
    },
    "judge_model": "gemini-2.5-flash",
    "num_runs": 2,
}


@pytest.fixture
def judged(gemini_env, monkeypatch, schema_answers):
    monkeypatch.setenv("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "0.01")
    gemini_env.responder = lambda request: schema_answers.answer_for(request.body)
    return gemini_env


@pytest.fixture
def evals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "evals"
    folder.mkdir()
    shutil.copy(helpers.TRAVEL / "travel.evalset.json", folder / "travel.evalset.json")
    monkeypatch.chdir(tmp_path)
    return folder


def _start(evals: Path, runs: Path, **fields: Any) -> RecordedRun:
    jobs = RunJobs(runs, WriteGuard([evals], token="t"))
    job = jobs.start({"agent": str(helpers.TRAVEL), **fields})
    deadline = time.monotonic() + 120
    while job.state == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert job.state == "complete", job.describe()
    return find_run(runs, job.run_id)


def _verdicts(run: RecordedRun) -> list:
    return sorted(
        (case.eval_id, case.status.value, [(c.criterion, c.status.value, c.score) for c in case.criteria])
        for case in run.result().cases()
    )


def _in_a_shell(command: str, runs: Path) -> RecordedRun:
    """``command`` as a user pastes it into a shell (``agenteval`` from this environment)."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    done = subprocess.run(
        command,
        shell=True,
        executable="/bin/sh",
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PATH": path, "AGENTEVAL_RUNS_DIR": str(runs)},
    )
    assert done.returncode in (0, 1), f"{command}\nexit {done.returncode}\n{done.stderr}"
    return find_run(runs)


def test_the_recorded_command_runs_the_browser_s_run_again(judged, evals, tmp_path):
    run = _start(evals, tmp_path / "runs", files=[{"root": 0, "path": "travel.evalset.json"}], **CHOSEN)
    argv = run.manifest.argv
    assert argv[:2] == ["agenteval", "run"] and not any(word.startswith("#") for word in argv)
    config = run.folder / "test_config.json"
    assert argv[argv.index("--config") + 1] == str(config)
    written = json.loads(config.read_text())["criteria"]
    assert written["final_response_match_v2"]["judge_model_options"]["judge_model"] == "gemini-2.5-flash"
    assert written["response_match_score"] == {"threshold": 0.9}
    again = _in_a_shell(shlex.join(argv), tmp_path / "shell")
    assert _verdicts(again) == _verdicts(run)
    assert again.manifest.inputs_fingerprint == run.manifest.inputs_fingerprint
    # What the browser's Copy button copies (the run screen's rerun command) runs too.
    copied = _in_a_shell(rerun_command(run), tmp_path / "copied")
    assert _verdicts(copied) == _verdicts(run)


def test_a_selection_without_criteria_is_the_plain_command(evals, tmp_path):
    run = _start(
        evals,
        tmp_path / "runs",
        files=[{"root": 0, "path": "travel.evalset.json", "case_ids": ["weather_paris"]}],
    )
    assert run.manifest.argv == [
        "agenteval",
        "run",
        f"{(evals / 'travel.evalset.json').resolve()}:weather_paris",
        "--agent",
        str(helpers.TRAVEL),
    ]
    assert not (run.folder / "test_config.json").exists()
    again = _in_a_shell(shlex.join(run.manifest.argv), tmp_path / "shell")
    assert _verdicts(again) == _verdicts(run)
