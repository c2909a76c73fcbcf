"""``http-traces`` starts a case with its history as the ``http`` adapter does (it is that
adapter's conversation, with a trace read per judged turn)."""

from __future__ import annotations

import asyncio
import socket

from agenteval.testing import make_case, make_invocation
from agenteval_otel._live_agent import TracedHttpAgent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_traced_http_session_opens_with_the_case_s_history():
    case = make_case([make_invocation("Weather in Paris?", "Sunny."), make_invocation("Thanks!", "x")])
    case = case.model_copy(update={"context_turns": 1})
    agent = TracedHttpAgent(f"http://127.0.0.1:9/v1?otlp_port={_free_port()}")
    assert agent.takes_history

    async def go():
        try:
            session = await agent.session(case)
            return session._inner._messages
        finally:
            await agent.aclose()

    assert asyncio.run(go()) == [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "Sunny."},
    ]
