"""``run_case`` / ``run_agent`` against agents that misbehave: a ``BaseException`` is the
case's ERRORED result, prints stay in the case, a closed stdout is reopened, what a
timed-out call left running is reported."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time

import pytest
from agenteval._agents import AgentFailure, AgentTurns, run_agent, run_case, stray_threads
from agenteval.models import Content, EvalCase, Invocation
from agenteval.plugins import Agent, AgentSession
from agenteval.testing import make_case, make_invocation


class Custom(BaseException):
    """A BaseException of the agent's own."""


RAISES = {
    "exit": lambda: SystemExit(3),
    "interrupt": lambda: KeyboardInterrupt(),
    "custom": lambda: Custom("mine"),
}


class Misbehaving(Agent):
    """Does what the user message says (see ``turn``)."""

    async def session(self, case: EvalCase) -> AgentSession:
        if case.eval_id == "session-exit":
            raise SystemExit(4)
        return _Session()


class _Session(AgentSession):
    def __init__(self) -> None:
        self.behind: tuple[str, ...] = ()
        self.halted: tuple[str, ...] = ()

    async def turn(self, user_content: Content) -> Invocation:
        text = user_content.text()
        if text in RAISES:
            raise RAISES[text]()
        if text.startswith("print:"):
            print(text[6:])
            print(f"err {text[6:]}", file=sys.stderr)
            await asyncio.sleep(0.01)
        if text == "close-stdout":
            sys.stdout.close()
        if text == "hang":
            self.behind = ("thread agent-worker-7 (respond)",)
            await asyncio.sleep(30)
        if text == "hang-stopped":
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                self.halted = ("thread agent-worker-8 (respond)",)
                raise
        return Invocation(
            user_content=user_content, final_response=Content.from_text(f"ok {text}", role="model")
        )

    def left_behind(self) -> tuple[str, ...]:
        return self.behind

    def stopped(self) -> tuple[str, ...]:
        return self.halted


def case(message: str, eval_id: str | None = None) -> EvalCase:
    return make_case([make_invocation(message, "x")], eval_id=eval_id or message)


@pytest.mark.parametrize(
    ("message", "shown"),
    [("exit", "SystemExit: 3"), ("interrupt", "KeyboardInterrupt"), ("custom", "Custom: mine")],
)
def test_a_base_exception_from_the_agent_is_its_case_error(message, shown):
    failure, fine = asyncio.run(run_agent(Misbehaving("x"), [case(message), case("fine")]))
    assert isinstance(failure, AgentFailure) and failure.code == "agent_error"
    assert f"the agent raised {shown}" in failure.message and shown.split(":")[0] in failure.traceback
    assert isinstance(fine, AgentTurns) and fine[0].final_text() == "ok fine"


def test_a_base_exception_while_opening_the_session_is_its_case_error():
    [failure] = asyncio.run(run_agent(Misbehaving("x"), [case("hi", "session-exit")]))
    assert failure.code == "agent_error" and "SystemExit: 4" in failure.message


def test_a_cancellation_still_passes_through():
    async def run() -> None:
        task = asyncio.ensure_future(run_case(Misbehaving("x"), case("hang"), timeout=30))
        await asyncio.sleep(0.05)
        task.cancel()
        await task

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(run())


def test_what_each_case_prints_is_its_own_and_not_ours(capsys):
    outcomes = asyncio.run(run_agent(Misbehaving("x"), [case("print:one"), case("print:two")], concurrency=2))
    assert [o.output for o in outcomes] == ["one\nerr one\n", "two\nerr two\n"]
    printed = capsys.readouterr()
    assert "one" not in printed.out + printed.err and "two" not in printed.out + printed.err


def test_an_agent_closing_sys_stdout_closes_nothing(capsys):
    [turns] = asyncio.run(run_agent(Misbehaving("x"), [case("close-stdout")]))
    assert turns[0].final_text() == "ok close-stdout"
    print("still printing")
    assert "still printing" in capsys.readouterr().out


def test_a_timeout_reports_what_the_adapter_stopped():
    [failure] = asyncio.run(run_agent(Misbehaving("x"), [case("hang-stopped")], timeout=0.2))
    assert failure.code == "agent_timeout" and failure.left_behind == ()
    assert failure.message.endswith("within 0.2 s; stopped: thread agent-worker-8 (respond)")


def test_a_timeout_reports_what_the_call_left_running():
    started = time.monotonic()
    [failure] = asyncio.run(run_agent(Misbehaving("x"), [case("hang")], timeout=0.2))
    assert time.monotonic() - started < 2
    assert failure.code == "agent_timeout" and failure.left_behind == ("thread agent-worker-7 (respond)",)
    assert "left running: thread agent-worker-7 (respond)" in failure.message


_CLOSES_FD_1 = """
import asyncio, os
from agenteval._agents import run_agent
from agenteval.plugins import Agent, AgentSession
from agenteval.models import Content, Invocation
from agenteval.testing import make_case, make_invocation

class Closer(Agent):
    async def session(self, case):
        return Session()

class Session(AgentSession):
    async def turn(self, user_content):
        os.close(1)
        return Invocation(user_content=user_content, final_response=Content.from_text("ok", role="model"))

[turns] = asyncio.run(run_agent(Closer("x"), [make_case([make_invocation("hi", "x")])]))
print("report after the agent:", turns[0].final_text(), "|", turns.output.strip())
"""


def test_an_agent_closing_file_descriptor_1_does_not_end_our_output():
    done = subprocess.run([sys.executable, "-c", _CLOSES_FD_1], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "report after the agent: ok" in done.stdout
    assert "file descriptor 1 (standard output) was found closed" in done.stdout


def test_stray_threads_lists_non_daemon_threads_an_agent_left():
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="agent-made", daemon=False)
    thread.start()
    try:
        assert thread in stray_threads()
    finally:
        stop.set()
        thread.join()
    assert thread not in stray_threads()
    assert threading.main_thread() not in stray_threads()


class HangsOnClose(Agent):
    async def session(self, case: EvalCase) -> AgentSession:
        return _HangingClose()


class _HangingClose(AgentSession):
    async def turn(self, user_content: Content) -> Invocation:
        return Invocation(user_content=user_content, final_response=Content.from_text("ok", role="model"))

    async def aclose(self) -> None:
        await asyncio.sleep(30)


def test_a_session_that_never_closes_costs_at_most_its_timeout():
    started = time.monotonic()
    [turns] = asyncio.run(run_agent(HangsOnClose("x"), [case("hi")], timeout=0.2))
    assert turns[0].final_text() == "ok" and time.monotonic() - started < 2
