"""``--agent-command CMD``: the agent started as a real process for the run, given a port and the
loopback OTLP receiver's endpoint, waited for, scored from the spans it exports, and stopped
(with its children) at the end, on Ctrl-C and on failure; its last output lines shown when it
dies or never becomes ready. The agent is ``traced_agent.py``: plain HTTP, no OTel SDK."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from agenteval.cli import main

from tests.plugins.otel._cli import run_scores

FIXTURES = Path(__file__).parent / "fixtures"
EVALSET = FIXTURES / "travel.evalset.json"
AGENT = Path(__file__).parent / "traced_agent.py"


def _command(*options: str) -> str:
    return shlex.join([sys.executable, str(AGENT), *options])


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")  # a zombie (a reparented child nobody reaps yet) is gone


def _run_json(runner, *args: str):
    result = runner.invoke(main, ["run", *args, "--format", "json", "--no-record"])
    return result, (json.loads(result.stdout) if result.stdout.strip().startswith("{") else None)


def test_the_agent_s_spans_are_scored_not_its_http_answer(runner):
    scores = run_scores(runner, str(EVALSET), "--agent-command", _command())
    # the HTTP answer is a placeholder: a full response match comes from the spans' final text
    assert scores[("weather_paris", "response_match_score")][:2] == (1.0, "PASSED")
    assert scores[("flight_then_currency", "tool_trajectory_avg_score")] == (1.0, "PASSED", [1.0, 1.0])
    assert scores[("flight_then_currency", "token_usage_v1")][0] == 147  # per turn, from the chat spans


def test_an_agent_that_dies_mid_run_errors_the_cases_left_with_its_last_lines(runner):
    args = [f"{EVALSET}", "--agent-command", _command("--die-on", "2"), "--agent-concurrency", "1"]
    result, doc = _run_json(runner, *args)
    assert result.exit_code == 1, result.output
    cases = {c["eval_id"]: c for c in doc["eval_sets"][0]["cases"]}
    assert cases["weather_paris"]["status"] == "PASSED"
    crashed = cases["flight_then_currency"]["criteria"][0]
    assert crashed["status"] == "ERRORED" and crashed["reason_code"] == "agent_crashed"
    assert "exited with code 3" in crashed["reason"] and "request 2, giving up" in crashed["reason"]


@pytest.mark.parametrize(
    ("command", "environment", "said"),
    [
        ("no-such-agent-command --serve", {}, ["exited with code 127", "not found"]),
        (
            _command("--never-listen"),
            {"AGENTEVAL_AGENT_READY_TIMEOUT": "1"},
            ["did not listen", "within 1s", "AGENTEVAL_AGENT_READY_TIMEOUT", "traced agent starting on port"],
        ),
        ("exit 4", {}, ["exited with code 4"]),
    ],
)
def test_an_agent_that_cannot_start_stops_the_run_with_exit_2_and_its_output(
    runner, monkeypatch, command, environment, said
):
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    result = runner.invoke(main, ["run", str(EVALSET), "--agent-command", command, "--no-record"])
    assert result.exit_code == 2, result.output
    assert all(text in result.output for text in said), result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("extra", "said"),
    [(["--agent", "http://x/v1"], "not both"), (["--agent-isolation", "process"], "drop --agent-isolation")],
)
def test_what_agent_command_does_not_combine_with_is_a_usage_error(runner, extra, said):
    result = runner.invoke(main, ["run", str(EVALSET), *extra, "--agent-command", "true"])
    assert result.exit_code == 2 and said in result.output


def test_ctrl_c_stops_the_agent_and_its_children(tmp_path):
    pids = tmp_path / "pids"
    command = _command("--hang", "--pid-file", str(pids))
    run = subprocess.Popen(
        [sys.executable, "-m", "agenteval", "run", str(EVALSET), "--agent-command", command, "--no-record"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        deadline = time.monotonic() + 60
        while not (pids.exists() and pids.read_text().endswith("\n")):
            assert run.poll() is None and time.monotonic() < deadline, run.communicate()
            time.sleep(0.1)
        agent, child = map(int, pids.read_text().split())
        time.sleep(2)  # the cases' requests are in flight, the agent hangs on them
        assert _alive(agent) and _alive(child)
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 130, err.decode()
    assert not _alive(agent) and not _alive(child)
