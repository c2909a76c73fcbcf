"""``agenteval run --agent`` against what an attack tries: credentials that must not reach the
run folder, and agents that spin, write to or close file descriptor 1, or leave tasks behind
(those run in their own interpreter, since they are about the process's file descriptors,
threads and exit)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agenteval.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "travel"
EVALSET = EXAMPLE / "travel.evalset.json"


def _folder_text(folder: Path) -> str:
    return "\n".join(p.read_text("utf-8", "replace") for p in sorted(folder.rglob("*")) if p.is_file())


def test_a_key_in_the_agent_url_reaches_neither_the_manifest_nor_the_html_report(
    runner, fake_openai, tmp_path
):
    key = "sk-in-the-agent-url-4242"
    fake_openai.responder = lambda request: f"I was called with {key}"  # an agent echoing its key
    html = tmp_path / "html"
    result = runner.invoke(
        main,
        [
            "run", str(EVALSET), "--agent", f"{fake_openai.base_url}/v1?model=travel&api_key={key}",
            "--runs-dir", str(tmp_path / "runs"), "--report", "html", "--report-dir", str(html),
            "--format", "json",
        ],
    )  # fmt: skip
    assert result.exit_code == 1, result.output  # the echo is not the expected answer
    [folder] = (tmp_path / "runs").iterdir()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["agent"]["target"] == f"{fake_openai.base_url}/v1?model=travel&api_key=***"
    [report] = html.glob("*.html")
    assert "api_key=***" in report.read_text()
    assert key not in _folder_text(folder) + _folder_text(html) + result.output


def test_a_key_in_a_judge_model_config_is_not_copied_into_the_manifest(runner, judge_server, tmp_path):
    key = "sk-in-the-judge-config-4243"
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "criteria": {
                    "final_response_match_v2": {
                        "threshold": 0.5,
                        "judge_model_options": {
                            "num_samples": 1,
                            "judge_model_config": {"api_key": key, "temperature": 0},
                        },
                    }
                }
            }
        )
    )
    runner.invoke(
        main,
        [
            "run", str(EVALSET), "--actual", str(EXAMPLE / "travel.actual.json"), "--config", str(config),
            "--runs-dir", str(tmp_path / "runs"), "--cache-dir", str(tmp_path / "cache"), "--format", "json",
        ],
    )  # fmt: skip
    [folder] = (tmp_path / "runs").iterdir()
    manifest = json.loads((folder / "manifest.json").read_text())
    [criterion] = manifest["eval_sets"][0]["criteria"]
    config = criterion["params"]["judge_model_options"]["judge_model_config"]
    assert config == {"api_key": "***", "temperature": 0}
    assert key not in _folder_text(folder) + _folder_text(tmp_path / "cache")


# -- agents run by the real command, in their own interpreter ------------------------------
def _agenteval(
    tmp_path: Path, agent: str, *options: str, timeout: float = 180
) -> subprocess.CompletedProcess:
    """``agenteval run`` of the travel cases against ``agent`` (a module defining ``respond``)."""
    (tmp_path / "agent.py").write_text(agent)
    return subprocess.run(
        [sys.executable, "-m", "agenteval", "run", str(EVALSET), "--agent", "agent.py:respond", "--no-record",
         "-q", *options],
        capture_output=True, text=True, timeout=timeout, cwd=tmp_path,
    )  # fmt: skip


def _json_report(done: subprocess.CompletedProcess) -> dict:
    try:
        return json.loads(done.stdout)
    except ValueError:
        raise AssertionError(f"stdout is not JSON: {done.stdout[:500]!r}\n{done.stderr[-2000:]}") from None


def _agent_runs(done: subprocess.CompletedProcess) -> dict:
    """Each case's (only) agent run, from the JSON report on stdout."""
    return {case["eval_id"]: case["agent_runs"][0] for case in _json_report(done)["eval_sets"][0]["cases"]}


def _error_codes(runs: dict) -> set:
    return {run["error_code"] for run in runs.values()}


_BLOCKS_ITS_LOOP = """
import asyncio, time

async def ticks():
    while True:
        time.sleep(0.6)  # blocks the adapter's event loop past the stall limit
        yield 1
        await asyncio.sleep(0)

async def respond(message, history):
    async for _ in ticks():
        pass
"""


def test_a_timed_out_async_agent_leaves_nothing_on_stderr_after_the_report(tmp_path):
    done = _agenteval(tmp_path, _BLOCKS_ITS_LOOP, "--agent-timeout", "1", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert _error_codes(_agent_runs(done)) == {"agent_timeout"}
    for noise in ("Task was destroyed", "Traceback", "Exception ignored", "GeneratorExit"):
        assert noise not in done.stderr, done.stderr


_WRITES_TO_FD_1 = """
import os

def respond(message, history):
    os.write(1, b"raw bytes on file descriptor 1\\n")
    return "hi"
"""

_CLOSES_FD_1 = """
import os

taken = []

def respond(message, history):
    if not taken:
        os.close(1)
        taken.append(open("taken.txt", "w"))  # the lowest free number: now file descriptor 1
    return "hi"
"""


def test_an_in_process_agent_writing_to_fd_1_cannot_corrupt_the_json_report(tmp_path):
    done = _agenteval(tmp_path, _WRITES_TO_FD_1, "--format", "json", "--agent-timeout", "30")
    assert done.returncode == 1
    assert len(_agent_runs(done)) == 3
    assert "raw bytes on file descriptor 1" in done.stderr  # not lost: on standard error


def test_an_in_process_agent_closing_fd_1_cannot_end_the_report(tmp_path):
    for report in ("json", "table"):
        done = _agenteval(tmp_path, _CLOSES_FD_1, "--format", report, "--agent-concurrency", "1")
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        if report == "json":
            assert _error_codes(_agent_runs(done)) == {None}
        else:
            assert "FAILED  3 cases" in done.stdout
        assert "travel_assistant" not in (tmp_path / "taken.txt").read_text()


_CLOSES_FD_1_THEN_PRINTS = """
import os

closed = []

def respond(message, history):
    if not closed:
        closed.append(os.getpid())
        os.close(1)
    print("printed after closing")
    return "hi"
"""


def test_with_process_isolation_closing_fd_1_is_harmless(tmp_path):
    runs = _agent_runs(
        _agenteval(
            tmp_path, _CLOSES_FD_1_THEN_PRINTS, "--agent-isolation", "process", "--agent-concurrency", "1",
            "--format", "json",
        )
    )  # fmt: skip
    assert _error_codes(runs) == {None}, runs
    first = runs["weather_paris"]["output"]
    assert first.startswith("printed after closing\n") and "file descriptor 1 (standard output)" in first
    assert runs["flight_then_currency"]["output"] == "printed after closing\n" * 2


_ODD_BUT_VALID_REPLIES = """
def respond(message, history):
    args = leaf = {}
    for _ in range(3000):
        leaf["deeper"] = {}
        leaf = leaf["deeper"]
    return {"text": "lone \\ud800 surrogate", "tool_calls": [{"name": "deep", "args": args}]}
"""


def test_process_isolation_returns_replies_exactly_as_in_process(tmp_path):
    reports = {}
    for isolation in ("none", "process"):
        done = _agenteval(
            tmp_path, _ODD_BUT_VALID_REPLIES, "--agent-isolation", isolation, "--format", "json"
        )
        reports[isolation] = _agent_runs(done)
        assert _error_codes(reports[isolation]) == {None}, reports[isolation]
    for runs in reports.values():  # when and how long: the one thing that differs
        for run in runs.values():
            for turn in run["invocations"]:
                for key in ("duration", "creation_timestamp"):
                    turn.pop(key, None)
    assert reports["process"] == reports["none"]
    [turn] = reports["process"]["weather_paris"]["invocations"]
    assert turn["final_response"]["parts"][0]["text"] == "lone \\ud800 surrogate"


_SPINS_AND_WILL_NOT_STOP = """
def respond(message, history):
    while True:
        try:
            while True:
                pass
        except BaseException:  # even the exception that stops a timed-out call
            continue
"""


def test_after_a_call_left_running_the_agent_s_later_cases_run_in_worker_processes(tmp_path):
    done = _agenteval(
        tmp_path, _SPINS_AND_WILL_NOT_STOP, "--agent-timeout", "1", "--agent-concurrency", "1",
        "--format", "json",
    )  # fmt: skip
    runs = _agent_runs(done)
    # Each case's failure is in the assertion's message: a code other than agent_timeout
    # (seen once on a loaded CI machine: agent_crashed) says why.
    assert _error_codes(runs) == {"agent_timeout"}, {case: run["error"] for case, run in runs.items()}
    first, *later = (
        runs[case]["error"]["message"] for case in ("weather_paris", "flight_then_currency", "hotel_tokyo_ja")
    )
    assert "left running: thread agenteval-agent-" in first
    assert "the agent's later cases run in worker processes" in first
    assert all("left running" not in message for message in later)  # their workers were killed
    assert "warning: an agent call that timed out was left running" in done.stderr
