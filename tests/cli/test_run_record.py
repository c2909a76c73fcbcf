"""``agenteval run`` records as it goes: interrupted by a signal at any moment it keeps every
finished case, says how to resume, and ``--resume`` finishes only what is left."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from agenteval.cli import main
from agenteval.runs import RecordedRun, RunState, list_runs

AGENT = """
import os, time

def respond(message, history):
    with open(os.environ["AGENT_CALLS"], "a", encoding="utf-8") as calls:
        calls.write(message + "\\n")
    time.sleep(float(os.environ.get("AGENT_DELAY", "0.05")))
    return "ok " + message
"""


def _project(folder: Path, cases: int) -> tuple[Path, Path]:
    eval_set = {
        "eval_set_id": "slow",
        "eval_cases": [
            {
                "eval_id": f"case_{i:03d}",
                "conversation": [
                    {
                        "invocation_id": f"i{i}",
                        "user_content": {"role": "user", "parts": [{"text": f"q{i}"}]},
                        "final_response": {"role": "model", "parts": [{"text": f"ok q{i}"}]},
                    }
                ],
            }
            for i in range(cases)
        ],
    }
    path = folder / "slow.evalset.json"
    path.write_text(json.dumps(eval_set), encoding="utf-8")
    agent = folder / "agent.py"
    agent.write_text(AGENT, encoding="utf-8")
    return path, agent


def _command(eval_file: Path, agent: Path, runs: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "agenteval",
        "run",
        str(eval_file),
        "--agent",
        f"{agent}:respond",
        "--criteria",
        "tool_trajectory_avg_score",
        "--runs-dir",
        str(runs),
        *extra,
    ]


def _records(runs: Path) -> int:
    found = list(runs.glob("*/results.jsonl"))
    return sum(p.read_text(encoding="utf-8").count("\n") for p in found)


def _calls(path: Path) -> int:
    return path.read_text(encoding="utf-8").count("\n") if path.exists() else 0


@pytest.fixture
def slow_project(tmp_path):
    eval_file, agent = _project(tmp_path, 60)
    env = {**os.environ, "AGENT_CALLS": str(tmp_path / "calls.txt"), "AGENT_DELAY": "0.05"}
    return eval_file, agent, tmp_path / "runs", env, tmp_path / "calls.txt"


@pytest.mark.parametrize(("signal_name", "code"), [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129)])
def test_a_signal_while_the_agent_runs_keeps_every_finished_case_and_resume_finishes_the_rest(
    slow_project, signal_name, code
):
    eval_file, agent, runs, env, calls = slow_project
    process = subprocess.Popen(
        _command(eval_file, agent, runs, "--agent-concurrency", "2"),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while _records(runs) < 6 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    sent = time.monotonic()
    process.send_signal(getattr(signal, signal_name))
    stdout, stderr = process.communicate(timeout=30)
    stopped_in = time.monotonic() - sent
    assert process.returncode == code, stderr
    assert stopped_in < 10
    assert "interrupted" in stderr and "resume it with: agenteval run" in stderr
    assert "60 cases" in stdout and "not reached before the interruption" in stdout  # the partial report
    [run] = list_runs(runs)
    assert run.manifest.state is RunState.INTERRUPTED and run.manifest.stopped_by == signal_name
    assert run.manifest.exit_code == code
    finished = len(run.keys())
    assert 6 <= finished < 60
    assert run.summary() is not None and run.summary().state is RunState.INTERRUPTED

    before = _calls(calls)
    resumed = subprocess.run(
        _command(eval_file, agent, runs, "--resume"), env=env, capture_output=True, text=True, timeout=120
    )
    assert resumed.returncode == 0, resumed.stderr
    assert _calls(calls) - before == 60 - finished  # finished cases were not run again
    [run] = list_runs(runs)
    assert run.manifest.state is RunState.COMPLETE and run.manifest.resumed_from == run.run_id
    assert len(run.keys()) == 60
    assert "60 cases: 60 passed" in resumed.stdout


def test_a_second_ctrl_c_stops_at_once_still_with_the_report(slow_project):
    eval_file, agent, runs, env, _ = slow_project
    env = {**env, "AGENT_DELAY": "3"}
    process = subprocess.Popen(
        _command(eval_file, agent, runs, "--agent-concurrency", "4", "--agent-timeout", "30"),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    calls = Path(env["AGENT_CALLS"])
    deadline = time.monotonic() + 60
    while _calls(calls) < 4 and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert "60 cases" in stdout and "interrupted" in stdout


def test_resume_refuses_changed_inputs_and_says_what_changed(slow_project):
    eval_file, agent, runs, env, _ = slow_project
    process = subprocess.Popen(
        _command(eval_file, agent, runs), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    while _records(runs) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=30)
    data = json.loads(eval_file.read_text(encoding="utf-8"))
    data["eval_cases"] = data["eval_cases"][:-1]
    eval_file.write_text(json.dumps(data), encoding="utf-8")
    refused = subprocess.run(
        _command(eval_file, agent, runs, "--resume"), env=env, capture_output=True, text=True, timeout=60
    )
    assert refused.returncode == 2
    assert "differs" in refused.stderr and "content changed" in refused.stderr
    [run] = list_runs(runs)
    again = subprocess.run(
        _command(eval_file, agent, runs, "--resume", run.run_id),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert again.returncode == 2 and "its inputs changed" in again.stderr


def test_a_killed_process_loses_at_most_the_cases_in_flight(slow_project):
    eval_file, agent, runs, env, calls = slow_project
    process = subprocess.Popen(_command(eval_file, agent, runs, "--quiet"), env=env)
    deadline = time.monotonic() + 60
    while _records(runs) < 5 and time.monotonic() < deadline:
        time.sleep(0.02)
    process.kill()
    process.wait(timeout=30)
    [run] = list_runs(runs)
    assert run.manifest.state is RunState.RUNNING  # never got to say otherwise
    finished = len(run.keys())
    assert finished >= 5 and _calls(calls) - finished <= 4  # agent concurrency 4
    resumed = subprocess.run(
        _command(eval_file, agent, runs, "--resume", "--quiet"),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert len(RecordedRun.open(run.folder).keys()) == 60


def test_two_runs_at_once_in_one_runs_folder_never_mix(tmp_path):
    eval_file, agent = _project(tmp_path, 20)
    runs = tmp_path / "runs"
    env = {**os.environ, "AGENT_CALLS": str(tmp_path / "calls.txt"), "AGENT_DELAY": "0.01"}
    processes = [
        subprocess.Popen(_command(eval_file, agent, runs, "--quiet"), env=env, stdout=subprocess.DEVNULL)
        for _ in range(2)
    ]
    assert [p.wait(timeout=120) for p in processes] == [0, 0]
    found = list_runs(runs)
    assert len(found) == 2 and found[0].run_id != found[1].run_id
    for run in found:
        assert len(run.keys()) == 20 and run.damaged_lines == 0
        assert {r.run_id for r in run.records()} == {run.run_id}


def test_progress_goes_to_stderr_as_plain_lines_when_not_a_terminal(slow_project, monkeypatch):
    from agenteval import Status
    from agenteval._run import PlainProgress

    lines: list[str] = []

    class Sink:
        def write(self, text):
            lines.append(text)

        def flush(self):
            pass

    progress = PlainProgress(Sink(), interval=0.0)
    progress.start(total=3)
    progress.case_done(Status.PASSED)
    progress.case_done(Status.FAILED)
    assert lines[-1].startswith("agenteval: 2/3 cases · 1 passed, 1 failed")
    assert "ETA" in lines[-1]
    quiet = PlainProgress(Sink(), interval=3600)
    quiet.start(total=3)
    before = len(lines)
    quiet.case_done(Status.PASSED)
    assert len(lines) == before  # at most one line per interval


def test_json_on_stdout_stays_parseable_with_progress_and_quiet(runner, example, tmp_path):
    result = runner.invoke(
        main, ["run", str(example), "--agent", str(example), "--format", "json", "--runs-dir", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    json.loads(result.stdout)
    quiet = runner.invoke(
        main, ["run", str(example), "--agent", str(example), "--quiet", "--no-record", "--format", "json"]
    )
    assert quiet.exit_code == 0 and quiet.stderr.count("\n") <= 2
    json.loads(quiet.stdout)


def test_a_run_timeout_stops_the_run_as_interrupted_and_resume_finishes_it(slow_project):
    eval_file, agent, runs, env, calls = slow_project
    done = subprocess.run(
        _command(eval_file, agent, runs, "--timeout", "1.5", "--agent-concurrency", "2"),
        env={**env, "AGENT_DELAY": "0.1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 124, done.stderr
    assert "reached --timeout" in done.stderr and "resume it with" in done.stderr
    [run] = list_runs(runs)
    assert run.manifest.state is RunState.INTERRUPTED and run.manifest.stopped_by == "timeout"
    assert 0 < len(run.keys()) < 60
    resumed = subprocess.run(
        _command(eval_file, agent, runs, "--resume", "--quiet"),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
