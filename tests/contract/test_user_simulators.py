"""Every installed user simulator keeps the contract (``agenteval.user_simulators``).

Parametrised over the installed entry points, so a new simulator type is checked without
editing this file. Each one loads through ``user_simulator_factory``, passes its preflight
with a Gemini judge pointed at the fake server, and plays one scenario against a small
agent: the starting prompt first, then its own messages until it stops.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json

import pytest
from agenteval import JudgeService
from agenteval._agents import (
    SimulatedConversation,
    parse_user_simulator_config,
    run_agent,
    user_simulator_factory,
)
from agenteval._registry import USER_SIMULATORS_GROUP
from agenteval.models import Content, ConversationScenario, EvalCase, Invocation
from agenteval.plugins import Agent, AgentSession, UserSimulator
from agenteval.testing import make_case

INSTALLED = sorted({ep.name for ep in importlib.metadata.entry_points(group=USER_SIMULATORS_GROUP)})


class Echo(Agent):
    async def session(self, case: EvalCase) -> AgentSession:
        return _Echo()


class _Echo(AgentSession):
    async def turn(self, user_content: Content) -> Invocation:
        reply = Content.from_text(f"echo: {user_content.text()}", role="model")
        return Invocation(user_content=user_content, final_response=reply)


@pytest.mark.parametrize("name", INSTALLED)
def test_installed_user_simulator_keeps_the_contract(name, gemini_env, monkeypatch):
    monkeypatch.setenv("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "0.01")
    gemini_env.responder = lambda request: "Thanks, that is all. </finished>"
    judge = JudgeService()
    config = parse_user_simulator_config({"type": name, "max_allowed_invocations": 4})
    factory = user_simulator_factory(config, judge)
    klass = factory.simulator_class
    assert issubclass(klass, UserSimulator)
    assert klass.description and "\n" not in klass.description, "a one-line description is required"
    case = make_case(
        eval_id="c",
        scenario=ConversationScenario(starting_prompt="Hello.", conversation_plan="Say hello, stop."),
    )
    factory.check_ready([case])

    async def go():
        try:
            return await run_agent(Echo("x"), [case], user_simulator=factory)
        finally:
            await judge.aclose()

    [conversation] = asyncio.run(go())
    assert isinstance(conversation, SimulatedConversation), conversation
    assert 1 <= len(conversation) <= 4
    assert conversation[0].user_content.text() == "Hello."
    assert json.loads(json.dumps(conversation.details))  # JSON-serialisable, as recorded
