"""``http_agent.py``: the ``http`` agent adapter, through httpx against our fake
OpenAI-compatible server (and, when installed, a real local model)."""

from __future__ import annotations

import asyncio
import json

import pytest
from agenteval.errors import ConfigError
from agenteval.testing import make_case, make_invocation
from agenteval_builtin.http_agent import HttpAgent


def _completion(content: str, tool_calls: list | None = None) -> str:
    message = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return json.dumps({"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": message}]})


def _talk(agent: HttpAgent, *messages: str):
    case = make_case([make_invocation(m, "expected") for m in messages])

    async def go():
        try:
            session = await agent.session(case)
            return [await session.turn(inv.user_content) for inv in case.conversation]
        finally:
            await agent.aclose()

    return asyncio.run(go())


def test_claims_urls_and_reads_the_model():
    assert HttpAgent.claims("http://127.0.0.1:8000/v1") and not HttpAgent.claims("pkg.mod:fn")
    agent = HttpAgent("http://127.0.0.1:8000/v1/?model=travel")
    assert (agent.model, agent.endpoint) == ("travel", "http://127.0.0.1:8000/v1/chat/completions")
    assert HttpAgent("https://agents.example/v1").model == "agent"
    with pytest.raises(ConfigError, match="expected http"):
        HttpAgent("http://").check_ready()


def test_turns_history_tool_calls_and_auth(fake_openai, monkeypatch):
    from agenteval_tests_fixtures_fake_llm_servers import Reply

    monkeypatch.setenv("AGENTEVAL_AGENT_API_KEY", "agent-key")
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
    fake_openai.script(
        Reply(raw_body=_completion("Sunny.", [call])), Reply(raw_body=_completion("You're welcome."))
    )
    turns = _talk(HttpAgent(f"{fake_openai.base_url}/v1?model=travel"), "Weather in Paris?", "Thanks!")
    assert [t.final_text() for t in turns] == ["Sunny.", "You're welcome."]
    assert [(c.name, c.args, c.id) for c in turns[0].tool_calls()] == [
        ("get_weather", {"city": "Paris"}, "c1")
    ]
    first, second = fake_openai.requests
    assert first.body["model"] == "travel" and first.headers.get("authorization") == "Bearer agent-key"
    assert second.body["messages"] == [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "Sunny."},
        {"role": "user", "content": "Thanks!"},
    ]


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ({"status": 500}, "answered HTTP 500"),
        ({"raw_body": "not json"}, "sent no chat completion"),
        ({"raw_body": _completion("x", [{"function": {"name": "f", "arguments": "{oops"}}])}, "not JSON"),
        ({"raw_body": '{"choices": [{"message": "just text"}]}'}, "sent no chat completion"),
        ({"raw_body": '{"choices": [{"message": {"content": 5}}]}'}, "neither text nor a list of text parts"),
        (
            {"raw_body": '{"choices": [{"message": {"content": ["a"]}}]}'},
            "neither text nor a list of text parts",
        ),
        (
            {"raw_body": _completion("x", [{"function": {"name": "f", "arguments": "[1, 2]"}}])},
            r"tool_calls\[0\] \(f\) has arguments that are not a JSON object: \[1, 2\]",
        ),
        (
            {"raw_body": '{"choices": [{"message": {"tool_calls": "f"}}]}'},
            "malformed message: tool_calls is not a list",
        ),
    ],
)
def test_failures_raise_with_the_reason(fake_openai, reply, message):
    from agenteval_tests_fixtures_fake_llm_servers import Reply

    fake_openai.script(Reply(**reply))
    with pytest.raises((RuntimeError, ValueError), match=message):
        _talk(HttpAgent(f"{fake_openai.base_url}/v1"), "hi")


def test_an_answer_in_text_parts_with_loose_ids_and_model_is_read(fake_openai):
    """Some OpenAI-compatible servers answer ``content`` as text parts, or give a tool call
    an id that is no string or a ``model`` that is no name: the text is joined, the id and
    the model left out."""
    from agenteval_tests_fixtures_fake_llm_servers import Reply

    message = {
        "content": [{"type": "text", "text": "Sun"}, {"type": "image_url"}, {"type": "text", "text": "ny."}],
        "tool_calls": [{"id": 7, "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}],
    }
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    body = json.dumps({"choices": [{"message": message}], "model": ["m"], "usage": usage})
    fake_openai.script(Reply(raw_body=body))
    (turn,) = _talk(HttpAgent(f"{fake_openai.base_url}/v1"), "Weather?")
    assert turn.final_text() == "Sunny."
    assert [(c.name, c.args, c.id) for c in turn.tool_calls()] == [("get_weather", {"city": "Paris"}, None)]


def test_the_agent_key_never_echoes_in_a_failure(fake_openai, monkeypatch):
    from agenteval_tests_fixtures_fake_llm_servers import Reply

    monkeypatch.setenv("AGENTEVAL_AGENT_API_KEY", "agent-key-0123456789")
    body = '{"error": {"message": "invalid token agent-key-0123456789"}}'
    fake_openai.script(Reply(status=401, raw_body=body), Reply(raw_body="echo agent-key-0123456789"))
    agent = HttpAgent(f"{fake_openai.base_url}/v1")
    for _ in range(2):
        with pytest.raises((RuntimeError, ValueError)) as info:
            _talk(agent, "hi")
        assert "agent-key-0123456789" not in str(info.value) and "[redacted]" in str(info.value)


def test_a_case_s_history_opens_the_messages_and_only_the_judged_turn_is_sent(fake_openai):
    from agenteval._agents import run_agent
    from agenteval.models import IntermediateData
    from agenteval_tests_fixtures_fake_llm_servers import Reply

    fake_openai.script(Reply(raw_body=_completion("Take the 9:40 train.")))
    first = make_invocation("Weather in Paris?", "Sunny.").model_copy(
        update={"intermediate_data": IntermediateData(tool_uses=[{"name": "get_weather", "args": {}}])}
    )
    case = make_case(
        [first, make_invocation("And Lyon?", "Rain."), make_invocation("Which train?", "x")], context_turns=2
    )

    async def go(agent):
        try:
            return await run_agent(agent, [case])
        finally:
            await agent.aclose()

    [turns] = asyncio.run(go(HttpAgent(f"{fake_openai.base_url}/v1")))
    [request] = fake_openai.requests  # one call: the history is never sent as turns of its own
    assert request.body["messages"] == [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "Sunny."},
        {"role": "user", "content": "And Lyon?"},
        {"role": "assistant", "content": "Rain."},
        {"role": "user", "content": "Which train?"},
    ]
    assert [t.final_text() for t in turns] == ["Sunny.", "Rain.", "Take the 9:40 train."]
