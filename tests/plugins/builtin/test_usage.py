"""Model calls and token usage reported by Python and HTTP agents (``_usage.py``), read by
the efficiency criteria the way ADK 2.13's evaluators read them."""

from __future__ import annotations

import asyncio
import json

import pytest
from agenteval.models import Content, InvocationEvents
from agenteval.testing import make_case, make_invocation
from agenteval_builtin._usage import usage_metadata
from agenteval_builtin.http_agent import HttpAgent
from agenteval_builtin.inference_call_count import InferenceCallCount
from agenteval_builtin.python_agent import reply_to_invocation
from agenteval_builtin.token_usage import TokenUsage
from agenteval_builtin.tool_call_count import ToolCallCount
from agenteval_builtin_test_helpers import run
from hypothesis import given, settings
from hypothesis import strategies as st

OPENAI_USAGE = {
    "prompt_tokens": 120,
    "completion_tokens": 30,
    "total_tokens": 150,
    "prompt_tokens_details": {"cached_tokens": 100},
    "completion_tokens_details": {"reasoning_tokens": 10},
}


def test_openai_usage_becomes_geminis_usage_metadata_reasoning_moved_out():
    assert usage_metadata(OPENAI_USAGE) == {
        "prompt_token_count": 120,
        "candidates_token_count": 20,
        "thoughts_token_count": 10,
        "cached_content_token_count": 100,
        "total_token_count": 150,
    }
    assert usage_metadata({"prompt_tokens": 5}) == {"prompt_token_count": 5}
    assert usage_metadata({}) == {}
    gemini = {"prompt_token_count": 3, "candidates_token_count": 4}
    assert usage_metadata(gemini) == gemini


def test_openai_usage_reads_as_adk_reads_the_same_metadata():
    AdkTokenUsage = pytest.importorskip("google.adk.telemetry._token_usage").TokenUsage
    from google.genai import types

    adk = AdkTokenUsage.from_usage_metadata(
        types.GenerateContentResponseUsageMetadata(**usage_metadata(OPENAI_USAGE))
    )
    assert (adk.input_tokens, adk.output_tokens, adk.reasoning_output_tokens) == (120, 30, 10)


@pytest.mark.parametrize(
    ("usage", "message"),
    [
        ({"prompt_tokens": -1}, "whole number"),
        ({"prompt_tokens": 1.5}, "whole number"),
        ({"prompt_tokens": True}, "whole number"),
        ({"input_tokens": 3}, "unknown keys ['input_tokens']"),
        ({"prompt_tokens": 3, "prompt_token_count": 3}, "mixes OpenAI's and Gemini's"),
        ({"completion_tokens": 1, "completion_tokens_details": {"reasoning_tokens": 2}}, "exceed"),
        ({"prompt_tokens_details": 3}, "expected an object"),
        ([1], "an object of token counts"),
    ],
)
def test_bad_usage_is_explained(usage, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        usage_metadata(usage)


def test_a_python_reply_with_model_calls_is_recorded_as_adk_events():
    reply = {
        "text": "Sunny.",
        "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}}],
        "tool_responses": [{"name": "get_weather", "response": {"sky": "sunny"}}],
        "intermediate": [["planner", "checking"]],
        "model_calls": [
            {"model": "gpt-4o-mini", "usage": OPENAI_USAGE},
            {"usage": {"prompt_tokens": 10}},
            {},
        ],
    }
    invocation = reply_to_invocation(reply, Content.from_text("Weather?"), 1)
    assert isinstance(invocation.intermediate_data, InvocationEvents)
    assert [c.name for c in invocation.tool_calls()] == ["get_weather"]
    assert [r.response for r in invocation.tool_responses()] == [{"sky": "sunny"}]
    assert invocation.intermediate_texts() == [("planner", "checking")]
    assert run(InferenceCallCount, [invocation]).value == 3.0
    assert run(ToolCallCount, [invocation]).value == 1.0
    assert run(TokenUsage, [invocation]).value == 150 + 10
    # ADK's own evaluators read the same numbers from the same turn.
    efficiency = pytest.importorskip("google.adk.evaluation._efficiency_evaluators")
    from google.adk.evaluation.eval_case import Invocation as AdkInvocation

    adk = [AdkInvocation.model_validate_json(invocation.model_dump_json())]
    assert efficiency._InferenceCallCountV1Evaluator().evaluate_invocations(adk).overall_score == 3.0
    assert efficiency._TokenUsageV1Evaluator().evaluate_invocations(adk).overall_score == 160


def test_a_python_reply_without_model_calls_stays_legacy_and_unknown():
    invocation = reply_to_invocation({"text": "hi"}, Content.from_text("hello"), 1)
    assert run(InferenceCallCount, [invocation]).reason_code == "no_model_calls_recorded"
    assert run(TokenUsage, [invocation]).reason_code == "no_token_usage"


@pytest.mark.parametrize(
    ("model_calls", "message"),
    [
        (3, "model_calls is a list"),
        ([{"tokens": 3}], r"model_calls\[0\]: expected"),
        ([{"usage": {"prompt_tokens": "many"}}], r"model_calls\[0\]: usage prompt_tokens"),
    ],
)
def test_bad_model_calls_are_explained(model_calls, message):
    with pytest.raises(ValueError, match=message):
        reply_to_invocation({"text": "x", "model_calls": model_calls}, Content.from_text("q"), 1)


def _completion(content: str, usage: dict | None) -> str:
    body = {"id": "x", "model": "served-model", "choices": [{"index": 0, "message": {"content": content}}]}
    if usage is not None:
        body["usage"] = usage
    return json.dumps(body)


def _talk(agent: HttpAgent, *messages: str):
    case = make_case([make_invocation(m, "expected") for m in messages])

    async def go():
        try:
            session = await agent.session(case)
            return [await session.turn(inv.user_content) for inv in case.conversation]
        finally:
            await agent.aclose()

    return asyncio.run(go())


def test_http_usage_is_one_model_call_with_its_tokens(fake_openai):
    from agenteval_tests_fixtures_fake_llm_servers import Reply

    fake_openai.script(Reply(raw_body=_completion("a", OPENAI_USAGE)), Reply(raw_body=_completion("b", None)))
    first, second = _talk(HttpAgent(f"{fake_openai.base_url}/v1"), "one", "two")
    [event] = first.intermediate_data.invocation_events
    assert event.model_version == "served-model" and event.usage_metadata["prompt_token_count"] == 120
    calls = run(InferenceCallCount, [first, second])
    assert [s.score for s in calls.per_invocation] == [1.0, None]  # no usage: unknown, not 0
    assert run(TokenUsage, [first]).value == 150


def test_http_malformed_usage_is_an_error(fake_openai):
    from agenteval_tests_fixtures_fake_llm_servers import Reply

    fake_openai.script(Reply(raw_body=_completion("a", {"prompt_tokens": -3})))
    with pytest.raises(ValueError, match="sent a malformed usage: usage prompt_tokens"):
        _talk(HttpAgent(f"{fake_openai.base_url}/v1"), "one")


# -- property: any OpenAI usage reads, through ADK's own reader, as the same input/output ----

_counts = st.integers(min_value=0, max_value=10**7)


@st.composite
def _openai_usages(draw):
    usage = {}
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        if draw(st.booleans()):
            usage[key] = draw(_counts)
    if "completion_tokens" in usage and draw(st.booleans()):
        reasoning = draw(st.integers(min_value=0, max_value=usage["completion_tokens"]))
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    if draw(st.booleans()):
        usage["prompt_tokens_details"] = {"cached_tokens": draw(_counts)}
    return usage


@settings(max_examples=100, deadline=None)
@given(_openai_usages())
def test_any_openai_usage_keeps_its_input_and_output_through_adks_reader(usage):
    AdkTokenUsage = pytest.importorskip("google.adk.telemetry._token_usage").TokenUsage
    from google.genai import types

    adk = AdkTokenUsage.from_usage_metadata(
        types.GenerateContentResponseUsageMetadata(**usage_metadata(usage))
    )
    assert adk.input_tokens == usage.get("prompt_tokens")
    assert adk.output_tokens == usage.get("completion_tokens")
    reasoning = (usage.get("completion_tokens_details") or {}).get("reasoning_tokens")
    assert adk.reasoning_output_tokens == reasoning
