"""``agents/_inference.py`` with a user simulator: playing conversation scenarios."""

from __future__ import annotations

import asyncio
from typing import Optional

import pytest
from agenteval._agents import AgentFailure, SimulatedConversation, run_agent
from agenteval.errors import UserSimulatorError
from agenteval.models import Content, ConversationScenario, EvalCase, Invocation
from agenteval.plugins import (
    Agent,
    AgentSession,
    NextUserMessage,
    SimulationContext,
    SimulatorStatus,
    UserSimulator,
    UserSimulatorConfig,
)
from agenteval.testing import make_case, make_invocation


class Echo(Agent):
    """Answers 'echo: <message>'; hangs on 'hang'; raises on 'crash'."""

    async def session(self, case: EvalCase) -> AgentSession:
        return _EchoSession()


class _EchoSession(AgentSession):
    async def turn(self, user_content: Content) -> Invocation:
        text = user_content.text()
        if text == "hang":
            await asyncio.sleep(60)
        if text == "crash":
            raise RuntimeError("the agent fell over")
        return Invocation(user_content=user_content, final_response=Content.from_text(f"echo: {text}"))


class Scripted(UserSimulator):
    """Says each line of ``script`` in turn; a line naming a status ends with it; 'boom'
    and 'keyerror' raise; an exhausted script stops with the stop signal. Records what it saw."""

    instances: list[Scripted] = []

    def __init__(self, config: UserSimulatorConfig, judge=None, script=()) -> None:
        super().__init__(config, judge)
        self.script = list(script)
        self.seen: list[SimulationContext] = []
        self.closed = False
        Scripted.instances.append(self)

    def describe(self) -> dict:
        return {"user_simulator": "scripted", "prompt_version": "scripted/1"}

    async def next_message(self, ctx: SimulationContext) -> NextUserMessage:
        self.seen.append(ctx)
        line = self.script.pop(0) if self.script else "stop_signal_detected"
        if line == "boom":
            raise UserSimulatorError("the model call failed after 3 attempts: HTTP 500")
        if line == "keyerror":
            raise KeyError("oops")
        if line in {s.value for s in SimulatorStatus}:
            return NextUserMessage.stop(SimulatorStatus(line), why=line)
        return NextUserMessage.say(line, turn=ctx.turn)

    async def aclose(self) -> None:
        self.closed = True


def scenario_case(eval_id: str = "s", prompt: str = "hi") -> EvalCase:
    return make_case(
        eval_id=eval_id,
        scenario=ConversationScenario(starting_prompt=prompt, conversation_plan="say hello, then stop"),
    )


def factory(*script: str, limit: int = 20):
    config = UserSimulatorConfig(max_allowed_invocations=limit)
    return lambda case: Scripted(config, None, script)


def play(case: EvalCase, simulator, **kwargs) -> object:
    Scripted.instances = []
    [outcome] = asyncio.run(run_agent(Echo("x"), [case], user_simulator=simulator, **kwargs))
    return outcome


def test_starting_prompt_verbatim_then_simulated_turns_until_the_stop_signal():
    outcome = play(scenario_case(prompt="  Hello there  "), factory("second", "third"))
    assert isinstance(outcome, SimulatedConversation) and isinstance(outcome, list)
    assert [t.user_content.text() for t in outcome] == ["  Hello there  ", "second", "third"]
    assert [t.final_text() for t in outcome] == ["echo:   Hello there  ", "echo: second", "echo: third"]
    assert outcome.status is SimulatorStatus.STOP_SIGNAL_DETECTED
    [simulator] = Scripted.instances
    assert [ctx.turn for ctx in simulator.seen] == [2, 3, 4]  # never asked for the first message
    assert [len(ctx.history) for ctx in simulator.seen] == [1, 2, 3]
    assert simulator.seen[-1].history[-1].final_text() == "echo: third"
    assert simulator.closed
    assert outcome.details == {
        "user_simulator": "scripted",
        "prompt_version": "scripted/1",
        "status": "stop_signal_detected",
        "run_index": 0,
        "messages": [{"turn": 2}, {"turn": 3}, {"why": "stop_signal_detected"}],
    }


def test_the_turn_limit_counts_the_starting_prompt():
    outcome = play(scenario_case(), factory("a", "b", "c", "d", limit=3))
    assert [t.user_content.text() for t in outcome] == ["hi", "a", "b"]
    assert outcome.status is SimulatorStatus.TURN_LIMIT_REACHED
    assert len(Scripted.instances[0].seen) == 2  # not asked a third time


def test_a_limit_of_one_plays_only_the_starting_prompt():
    outcome = play(scenario_case(), factory("never", limit=1))
    assert [t.user_content.text() for t in outcome] == ["hi"]
    assert outcome.status is SimulatorStatus.TURN_LIMIT_REACHED
    assert Scripted.instances[0].seen == []


def test_minus_one_is_unlimited_until_the_simulator_stops():
    lines = [f"m{i}" for i in range(30)]
    outcome = play(scenario_case(), factory(*lines, limit=-1))
    assert len(outcome) == 31 and outcome.status is SimulatorStatus.STOP_SIGNAL_DETECTED


@pytest.mark.parametrize("status", ["no_message_generated", "turn_limit_reached"])
def test_other_statuses_end_the_conversation(status):
    outcome = play(scenario_case(), factory("a", status))
    assert [t.user_content.text() for t in outcome] == ["hi", "a"]
    assert outcome.status is SimulatorStatus(status)


def test_a_simulator_failure_is_that_case_s_error_and_the_others_go_on():
    Scripted.instances = []
    scripts = {"bad": ["a", "boom"], "odd": ["keyerror"], "ok": ["fine"]}
    config = UserSimulatorConfig()
    outcomes = asyncio.run(
        run_agent(
            Echo("x"),
            [scenario_case(i) for i in scripts],
            user_simulator=lambda case: Scripted(config, None, scripts[case.eval_id]),
        )
    )
    bad, odd, ok = outcomes
    assert isinstance(bad, AgentFailure) and bad.code == "user_simulator_error"
    assert bad.message == (
        "turn 3: the user simulator failed: the model call failed after 3 attempts: HTTP 500"
    )
    assert "UserSimulatorError" in bad.traceback
    assert isinstance(odd, AgentFailure) and odd.code == "user_simulator_error"
    assert odd.message == "turn 2: the user simulator raised KeyError: 'oops'"
    assert [t.user_content.text() for t in ok] == ["hi", "fine"]
    assert all(s.closed for s in Scripted.instances)


def test_a_simulator_that_cannot_be_made_or_answers_nonsense_is_an_error():
    def broken(case):
        raise ValueError("no such persona")

    made = play(scenario_case(), broken)
    assert isinstance(made, AgentFailure) and made.code == "user_simulator_error"
    assert made.message == "the user simulator could not be made: ValueError: no such persona"

    class Nonsense(Scripted):
        async def next_message(self, ctx):
            return "just a string"

    nonsense = play(scenario_case(), lambda case: Nonsense(UserSimulatorConfig()))
    assert isinstance(nonsense, AgentFailure) and nonsense.code == "user_simulator_error"
    assert nonsense.message == "turn 2: the user simulator returned str, not a NextUserMessage"


def test_agent_errors_in_simulated_turns_are_reported_as_for_fixed_turns():
    crash = play(scenario_case(), factory("fine", "crash"))
    assert isinstance(crash, AgentFailure) and crash.code == "agent_error"
    assert crash.message == "turn 3: the agent raised RuntimeError: the agent fell over"
    slow = play(scenario_case(), factory("hang"), timeout=0.1)
    assert isinstance(slow, AgentFailure) and slow.code == "agent_timeout"
    assert slow.message == "turn 2: the agent did not answer within 0.1 s"
    assert Scripted.instances[0].closed


def test_without_a_simulator_or_when_the_factory_gives_none_the_case_is_not_run():
    assert play(scenario_case(), None).code == "no_user_simulator"
    none: Optional[object] = play(scenario_case(), lambda case: None)
    assert isinstance(none, AgentFailure) and none.code == "no_user_simulator"


def test_fixed_conversations_ignore_the_simulator():
    fixed = make_case([make_invocation("one", "x"), make_invocation("two", "x")], eval_id="f")
    Scripted.instances = []
    turns = play(fixed, factory("never"))
    assert not isinstance(turns, SimulatedConversation)
    assert [t.user_content.text() for t in turns] == ["one", "two"]
    assert Scripted.instances == []


def test_a_case_listed_several_times_is_run_several_times_with_its_run_index():
    case, other = scenario_case("a"), scenario_case("b")
    Scripted.instances = []
    outcomes = asyncio.run(run_agent(Echo("x"), [case, other, case, case], user_simulator=factory("x")))
    assert [o.details["run_index"] for o in outcomes] == [0, 0, 1, 2]
    assert sorted(s.seen[0].run_index for s in Scripted.instances) == [0, 0, 1, 2]
    assert len(Scripted.instances) == 4  # one simulator per conversation


def test_next_user_message_keeps_content_and_status_consistent():
    with pytest.raises(ValueError, match="if and only if"):
        NextUserMessage(SimulatorStatus.SUCCESS)
    with pytest.raises(ValueError, match="if and only if"):
        NextUserMessage(SimulatorStatus.STOP_SIGNAL_DETECTED, Content.from_text("x"))
    said = NextUserMessage.say("hello", cached=True)
    assert said.content.role == "user" and said.content.text() == "hello" and said.details == {"cached": True}
    assert NextUserMessage.stop("turn_limit_reached").status is SimulatorStatus.TURN_LIMIT_REACHED
