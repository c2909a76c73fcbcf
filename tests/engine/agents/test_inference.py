"""``agents/_inference.py``: replaying fixed conversations through an adapter."""

from __future__ import annotations

import asyncio

from agenteval._agents import AgentFailure, run_agent
from agenteval.models import Content, EvalCase, Invocation
from agenteval.plugins import Agent, AgentSession
from agenteval.testing import make_case, make_invocation


class Echo(Agent):
    """Answers 'echo: <message>'; raises on 'crash', hangs on 'hang'; counts closed sessions."""

    closed = 0
    in_flight = 0
    most_in_flight = 0

    async def session(self, case: EvalCase) -> AgentSession:
        return _EchoSession()


class _EchoSession(AgentSession):
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def turn(self, user_content: Content) -> Invocation:
        Echo.in_flight += 1
        Echo.most_in_flight = max(Echo.most_in_flight, Echo.in_flight)
        try:
            text = user_content.text()
            await asyncio.sleep(0.01)
            if text == "crash":
                raise RuntimeError("the agent fell over")
            if text == "hang":
                await asyncio.sleep(60)
            self.seen.append(text)
            return Invocation(
                user_content=user_content,
                final_response=Content.from_text(f"echo: {text} (turn {len(self.seen)})", role="model"),
            )
        finally:
            Echo.in_flight -= 1

    async def aclose(self) -> None:
        Echo.closed += 1


def case(eval_id: str, *messages: str) -> EvalCase:
    return make_case([make_invocation(m, "expected") for m in messages], eval_id=eval_id)


def test_fixed_conversations_are_replayed_in_order_with_one_session_each():
    Echo.closed = 0
    [turns] = asyncio.run(run_agent(Echo("x"), [case("a", "hi", "again")]))
    assert [t.user_content.text() for t in turns] == ["hi", "again"]
    assert [t.final_text() for t in turns] == ["echo: hi (turn 1)", "echo: again (turn 2)"]
    assert Echo.closed == 1


def test_a_crash_or_a_hang_is_that_case_s_failure_and_the_others_go_on():
    Echo.closed = 0
    outcomes = asyncio.run(
        run_agent(
            Echo("x"), [case("ok", "hi"), case("bad", "hi", "crash"), case("slow", "hang")], timeout=0.2
        )
    )
    assert isinstance(outcomes[0], list) and outcomes[0][0].final_text() == "echo: hi (turn 1)"
    assert isinstance(outcomes[1], AgentFailure) and outcomes[1].code == "agent_error"
    assert "turn 2: the agent raised RuntimeError: the agent fell over" == outcomes[1].message
    assert "RuntimeError" in outcomes[1].traceback
    assert isinstance(outcomes[2], AgentFailure) and outcomes[2].code == "agent_timeout"
    assert Echo.closed == 3  # every session is closed, whatever happened


def test_concurrency_is_bounded():
    Echo.most_in_flight = 0
    asyncio.run(run_agent(Echo("x"), [case(f"c{i}", "hi") for i in range(10)], concurrency=3))
    assert Echo.most_in_flight == 3


def test_a_scenario_case_needs_the_user_simulator():
    scenario = EvalCase.model_validate(
        {"eval_id": "s", "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "p"}}
    )
    [outcome] = asyncio.run(run_agent(Echo("x"), [scenario]))
    assert isinstance(outcome, AgentFailure) and outcome.code == "no_user_simulator"


class Timed(Agent):
    """Returns turns that carry their own timing."""

    async def session(self, case: EvalCase) -> AgentSession:
        return _TimedSession()


class _TimedSession(AgentSession):
    async def turn(self, user_content: Content) -> Invocation:
        return Invocation(user_content=user_content, duration=7.0, creation_timestamp=123.0)


def test_turns_are_timed_unless_the_adapter_timed_them():
    import time

    before = time.time()
    [turns] = asyncio.run(run_agent(Echo("x"), [case("a", "hi")]))
    (turn,) = turns
    assert 0.005 <= turn.duration < 5 and turn.duration == round(turn.duration, 3)
    assert before <= turn.creation_timestamp <= time.time()
    [[own]] = asyncio.run(run_agent(Timed("x"), [case("b", "hi")]))
    assert (own.duration, own.creation_timestamp) == (7.0, 123.0)


class _Remembers(Agent):
    """Takes history: answers with the texts of the conversation it was given and has had."""

    takes_history = True
    opened: list[EvalCase] = []

    async def session(self, case: EvalCase) -> AgentSession:
        _Remembers.opened.append(case)
        return _RemembersSession([t.user_content.text() for t in case.history()])


class _RemembersSession(AgentSession):
    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    async def turn(self, user_content: Content) -> Invocation:
        self.seen.append(user_content.text())
        return Invocation(user_content=user_content, final_response=Content.from_text(" | ".join(self.seen)))


def _with_history() -> EvalCase:
    return make_case(
        [make_invocation("first", "recorded 1"), make_invocation("second", "recorded 2")]
        + [make_invocation("now", "x")],
        eval_id="h",
        context_turns=2,
    )


def test_a_case_with_history_starts_the_session_with_it_and_sends_only_the_judged_turns():
    _Remembers.opened = []
    case = _with_history()
    [turns] = asyncio.run(run_agent(_Remembers("x"), [case]))
    assert _Remembers.opened == [case]
    # the history as recorded (never sent again), then the one turn the agent played
    assert [t.final_text() for t in turns] == ["recorded 1", "recorded 2", "first | second | now"]
    assert turns[:2] == case.conversation[:2]


def test_an_adapter_that_cannot_take_history_does_not_run_the_case():
    Echo.closed = 0
    [outcome] = asyncio.run(run_agent(Echo("x"), [_with_history()]))
    assert isinstance(outcome, AgentFailure) and outcome.code == "history_unsupported"
    assert "first 2 turn(s) are history" in outcome.message and "--actual" in outcome.message
    assert Echo.closed == 0  # no session was opened: nothing was sent to the agent


def test_a_process_isolated_adapter_takes_history_as_the_one_it_wraps():
    from agenteval._agents import ProcessIsolatedAgent

    assert ProcessIsolatedAgent(_Remembers("x")).takes_history is True
    assert ProcessIsolatedAgent(Echo("x")).takes_history is False
    assert EvalCase.model_fields["context_turns"].exclude  # history() is rebuilt from the case in a worker
    assert _with_history().history() == _with_history().conversation[:2]
    assert make_case([make_invocation("a", "b")]).history() == []


def test_a_worker_killed_again_is_reaped_once():
    # Each reap closes the worker's descriptors; two reaps at once could close one twice, the
    # second time after its number went to the next worker's socket (seen on a loaded machine
    # as "worker ... died (its connection closed)" for a live worker).
    from agenteval._agents._isolation import _Worker

    worker = _Worker("agenteval.testing:EchoAgent", "x")
    reaps = []
    reap = worker._reap
    worker._reap = lambda: (reaps.append(1), reap())
    for _ in range(3):  # a cancelled call, its session's release, the run's end
        worker.kill()
    worker.process.wait(timeout=30)
    assert reaps == [1]
