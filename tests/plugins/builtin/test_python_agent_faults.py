"""The ``python`` adapter against agents that hang, spin, exit, crash or print, in threads
and in worker processes (``isolation="process"``). Each run is its own interpreter, so a
spinning agent left behind ends with it, and the test sees how long the process took to
exit."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

AGENT = """
import asyncio, ctypes, os, sys, threading, time

class Custom(BaseException):
    pass

def respond(message, history):
    if message == "sleep":
        time.sleep(60)
    if message == "spin":
        while True:
            pass
    if message == "exit":
        sys.exit(3)
    if message == "interrupt":
        raise KeyboardInterrupt
    if message == "custom":
        raise Custom("mine")
    if message == "print":
        print("hello from the agent")
        print("to stderr", file=sys.stderr)
        os.write(1, b"raw fd write\\n")
    if message == "close-stdout":
        sys.stdout.close()
        os.close(1)
    if message == "thread":
        threading.Thread(target=time.sleep, args=(60,)).start()
    if message == "os-exit":
        os._exit(1)
    if message == "segfault":
        ctypes.string_at(0)
    if message == "pid":
        return str(os.getpid())
    return f"ok {message}"

async def arespond(message, history):
    if message == "spin":
        while True:
            pass
    if message == "sleep":
        time.sleep(60)
    if message == "exit":
        sys.exit(3)
    if message == "print":
        print("async hello")
    return f"ok {message}"
"""

RUN = """
import asyncio, json, sys, time
from agenteval._agents import run_agent
from agenteval.testing import make_case, make_invocation
from agenteval_builtin.python_agent import PythonAgent
target, isolation, concurrency, *messages = sys.argv[1:]
agent = PythonAgent(target)
agent.check_ready()
cases = [make_case([make_invocation(m, "x")], eval_id=m) for m in messages]
started = time.monotonic()
outcomes = asyncio.run(
    run_agent(agent, cases, concurrency=int(concurrency), timeout=1.5, isolation=isolation)
)
rows = []
for outcome in outcomes:
    if isinstance(outcome, list):
        rows.append({"ok": outcome[0].final_text(), "output": outcome.output})
    else:
        rows.append({"code": outcome.code, "message": outcome.message, "output": outcome.output,
                     "left_behind": list(outcome.left_behind)})
elapsed = time.monotonic() - started
time.sleep(1)  # what a stopped call's thread still had to do
import threading
spinning = [t.name for t in threading.enumerate() if t.name.startswith("agenteval-agent-") and t.is_alive()]
print(json.dumps({"elapsed": elapsed, "rows": rows, "alive": spinning}))
"""


def run(tmp_path, function: str, isolation: str, *messages: str, concurrency: int | None = None):
    (tmp_path / "agent.py").write_text(AGENT)
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            RUN,
            f"{tmp_path / 'agent.py'}:{function}",
            isolation,
            str(concurrency or len(messages)),
            *messages,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    run.alive = report["alive"]
    return dict(zip(messages, report["rows"], strict=True)), report["elapsed"], took, report["rows"]


def test_threads_bound_every_sync_call_and_nothing_keeps_the_process_alive(tmp_path):
    rows, elapsed, took, _ = run(
        tmp_path, "respond", "none", "sleep", "spin", "exit", "interrupt", "custom", "print", "thread", "ok"
    )
    for hung in ("sleep", "spin"):
        assert rows[hung]["code"] == "agent_timeout"
    # Sleeping in C, the call cannot be stopped yet: its thread is named (it holds no lock).
    assert rows["sleep"]["left_behind"][0].startswith("thread agenteval-agent-")
    assert rows["exit"]["code"] == "agent_error" and "SystemExit: 3" in rows["exit"]["message"]
    assert "KeyboardInterrupt" in rows["interrupt"]["message"]
    assert "Custom: mine" in rows["custom"]["message"]
    assert rows["print"]["output"] == "hello from the agent\nto stderr\n"
    assert rows["thread"]["ok"] == "ok thread" and rows["ok"]["ok"] == "ok ok"
    assert elapsed < 4 and took < 20  # a 60 s agent does not hold the run or the exit


def test_a_spinning_call_is_stopped_so_it_costs_the_run_nothing_more(tmp_path):
    rows, *_ = run(tmp_path, "respond", "none", "spin", "spin", "spin", "ok")
    assert [rows["spin"]["code"], rows["ok"]["ok"]] == ["agent_timeout", "ok ok"]
    assert rows["spin"]["left_behind"] == [] and "left running" not in rows["spin"]["message"]
    assert "; stopped: thread agenteval-agent-" in rows["spin"]["message"]
    assert run.alive == []  # no thread left taking the interpreter lock from the run
    rows, *_ = run(tmp_path, "arespond", "none", "spin", concurrency=1)
    assert rows["spin"]["code"] == "agent_timeout"
    assert run.alive == []  # the adapter's stuck event loop thread too


def test_a_blocking_async_agent_is_bounded_too(tmp_path):
    rows, elapsed, took, _ = run(tmp_path, "arespond", "none", "spin", concurrency=1)
    assert rows["spin"]["code"] == "agent_timeout"
    assert all("event loop thread" in left for left in rows["spin"]["left_behind"])
    assert elapsed < 4 and took < 20
    rows, _, _, _ = run(tmp_path, "arespond", "none", "sleep", "print", "exit", concurrency=1)
    assert rows["sleep"]["code"] == "agent_timeout"
    assert rows["print"]["ok"] == "ok print" and rows["print"]["output"] == "async hello\n"
    assert "SystemExit: 3" in rows["exit"]["message"]


@pytest.mark.skipif(sys.platform == "win32", reason="process isolation is POSIX only")
def test_worker_processes_turn_crashes_and_hangs_into_one_case(tmp_path):
    rows, elapsed, took, _ = run(
        tmp_path,
        "respond",
        "process",
        "os-exit",
        "segfault",
        "sleep",
        "exit",
        "print",
        "close-stdout",
        "ok",
        concurrency=4,
    )
    assert rows["os-exit"]["code"] == "agent_crashed" and "exit code 1" in rows["os-exit"]["message"]
    assert rows["segfault"]["code"] == "agent_crashed" and "SIGSEGV" in rows["segfault"]["message"]
    assert rows["sleep"]["code"] == "agent_timeout" and rows["sleep"]["left_behind"] == []
    assert rows["exit"]["code"] == "agent_error" and "SystemExit: 3" in rows["exit"]["message"]
    assert rows["print"]["output"] == "hello from the agent\nto stderr\nraw fd write\n"
    assert rows["close-stdout"]["ok"] == "ok close-stdout" and rows["ok"]["ok"] == "ok ok"
    assert took < 60


@pytest.mark.skipif(sys.platform == "win32", reason="process isolation is POSIX only")
def test_workers_are_reused_from_case_to_case(tmp_path):
    *_, in_order = run(tmp_path, "respond", "process", "pid", "pid", "pid", concurrency=1)
    pids = [row["ok"] for row in in_order]
    assert len(pids) == 3 and len(set(pids)) == 1


@pytest.mark.skipif(sys.platform == "win32", reason="process isolation is POSIX only")
def test_no_worker_outlives_the_run(tmp_path):
    import asyncio
    import os

    from agenteval._agents import run_agent
    from agenteval.testing import make_case, make_invocation
    from agenteval_builtin.python_agent import PythonAgent

    (tmp_path / "agent.py").write_text(AGENT)
    agent = PythonAgent(f"{tmp_path / 'agent.py'}:respond")
    cases = [make_case([make_invocation("pid", "x")], eval_id=f"c{i}") for i in range(2)]
    outcomes = asyncio.run(run_agent(agent, cases, concurrency=2, timeout=60, isolation="process"))
    pids = {int(outcome[0].final_text()) for outcome in outcomes}
    assert os.getpid() not in pids
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        alive = []
        for pid in pids:
            try:
                os.kill(pid, 0)
                alive.append(pid)
            except ProcessLookupError:
                pass
        if not alive:
            break
        time.sleep(0.1)
    assert not alive
