"""The efficiency criteria (``inference_call_count_v1``, ``token_usage_v1``,
``invocation_duration_v1``) against ADK 2.13's own evaluators on the same invocations."""

from __future__ import annotations

import math
from typing import Any, Optional

import pytest
from agenteval.models import Content, IntermediateData, Invocation, InvocationEvent, InvocationEvents
from agenteval_builtin.inference_call_count import InferenceCallCount
from agenteval_builtin.invocation_duration import InvocationDuration
from agenteval_builtin.token_usage import TokenUsage
from agenteval_builtin_test_helpers import run
from hypothesis import given, settings
from hypothesis import strategies as st

#: Ours -> the name of ADK 2.13's evaluator of the same metric.
ADK = {
    InferenceCallCount: "_InferenceCallCountV1Evaluator",
    TokenUsage: "_TokenUsageV1Evaluator",
    InvocationDuration: "_InvocationDurationV1Evaluator",
}


def turn(
    calls: Optional[list[Optional[dict[str, Any]]]] = None,
    *,
    duration: Optional[float] = None,
    model: Optional[float] = None,
    tool: Optional[float] = None,
) -> Invocation:
    """A turn in the event form with one event per model call (``None``: a call that
    reported a model version and no usage); ``calls=None`` gives the legacy form."""
    if calls is None:
        data: Any = IntermediateData()
    else:
        events = [InvocationEvent(author="root", content=Content.from_text("thinking", role="model"))]
        for usage in calls:
            if usage is None:
                events.append(InvocationEvent(author="sub", model_version="gemini-2.5-flash"))
            else:
                events.append(InvocationEvent(author="root", usage_metadata=usage))
        data = InvocationEvents(invocation_events=events)
    return Invocation(
        user_content=Content.from_text("hi"),
        final_response=Content.from_text("hello", role="model"),
        intermediate_data=data,
        duration=duration,
        model_duration=model,
        tool_duration=tool,
    )


def adk_result(cls: type, actual: list[Invocation]) -> Any:
    """ADK's own evaluator on the same invocations (skipped without google-adk)."""
    efficiency = pytest.importorskip("google.adk.evaluation._efficiency_evaluators")
    from google.adk.evaluation.eval_case import Invocation as AdkInvocation

    adk_invocations = [AdkInvocation.model_validate_json(i.model_dump_json()) for i in actual]
    return getattr(efficiency, ADK[cls])().evaluate_invocations(adk_invocations)


def assert_same_as_adk(cls: type, actual: list[Invocation]) -> None:
    ours, adk = run(cls, actual), adk_result(cls, actual)
    assert [s.score for s in ours.per_invocation] == [r.score for r in adk.per_invocation_results]
    if adk.overall_score is None:
        assert ours.value is None and ours.reason_code
    else:
        assert ours.value is not None and math.isclose(ours.value, adk.overall_score)
    assert cls.info.informational


USAGE = {
    "prompt_token_count": 100,
    "candidates_token_count": 20,
    "thoughts_token_count": 5,
    "total_token_count": 999,
}


def test_model_calls_are_events_with_usage_or_a_model_version():
    actual = [turn([USAGE, None, {}]), turn([]), turn([USAGE])]
    assert [s.score for s in run(InferenceCallCount, actual).per_invocation] == [3.0, 0.0, 1.0]
    assert_same_as_adk(InferenceCallCount, actual)


def test_legacy_turns_have_no_model_call_count_not_zero():
    result = run(InferenceCallCount, [turn(None), turn([USAGE])])
    assert result.per_invocation[0].score is None
    assert result.per_invocation[0].reason_code == "no_model_calls_recorded"
    assert result.value == 1.0
    only_legacy = run(InferenceCallCount, [turn(None)])
    assert only_legacy.value is None and only_legacy.reason_code == "no_model_calls_recorded"
    assert_same_as_adk(InferenceCallCount, [turn(None), turn([USAGE])])
    assert_same_as_adk(InferenceCallCount, [turn(None)])


def test_tokens_are_input_plus_output_with_adks_breakdown():
    usage = {**USAGE, "cached_content_token_count": 40, "tool_use_prompt_token_count": 7}
    result = run(TokenUsage, [turn([usage, USAGE])])
    [one] = result.per_invocation
    assert one.score == (107 + 25) + (100 + 25)  # the reported total (999) is not read
    assert one.details == {
        "total_tokens": 257,
        "input_tokens": 207,
        "prompt_tokens": 200,
        "cached_tokens": 40,
        "tool_use_tokens": 7,
        "output_tokens": 50,
        "candidates_tokens": 40,
        "reasoning_tokens": 10,
    }
    adk = adk_result(TokenUsage, [turn([usage, USAGE])])
    assert one.details == adk.per_invocation_results[0].token_usage_details.model_dump()
    assert result.details == adk.overall_token_usage_details.model_dump()


def test_camel_case_usage_metadata_is_read_too():
    camel = {"promptTokenCount": 10, "candidatesTokenCount": 2}
    assert run(TokenUsage, [turn([camel])]).value == 12


def test_unreported_tokens_are_not_evaluated_never_zero():
    result = run(TokenUsage, [turn([None]), turn(None)])
    assert result.value is None and result.reason_code == "no_token_usage"
    assert [s.reason_code for s in result.per_invocation] == ["no_token_usage", "no_token_usage"]
    assert all(s.score is None for s in result.per_invocation)
    assert_same_as_adk(TokenUsage, [turn([None]), turn(None)])


def test_case_average_counts_a_silent_turn_as_zero_as_adk_does():
    actual = [turn([USAGE]), turn([None])]
    result = run(TokenUsage, actual)
    assert result.value == 125 / 2
    assert result.details["reasoning_tokens"] == 2.5
    assert result.details["cached_tokens"] is None  # no turn reported it
    assert_same_as_adk(TokenUsage, actual)


def test_duration_and_its_split():
    actual = [turn([], duration=2.0, model=1.2, tool=0.5), turn([], duration=1.0), turn([])]
    result = run(InvocationDuration, actual)
    first, second, third = result.per_invocation
    assert first.details == {
        "total_seconds": 2.0,
        "model_seconds": 1.2,
        "tool_seconds": 0.5,
        "framework_seconds": 0.3,
    }
    assert second.details["framework_seconds"] is None and second.score == 1.0
    assert third.score is None and third.reason_code == "not_timed"
    assert result.value == 1.5
    assert result.details == adk_result(InvocationDuration, actual).overall_duration_details.model_dump()
    assert_same_as_adk(InvocationDuration, actual)


def test_framework_time_is_clamped_at_zero():
    [one] = run(InvocationDuration, [turn([], duration=1.0, model=0.8, tool=0.3)]).per_invocation
    assert one.details["framework_seconds"] == 0.0


def test_untimed_case_is_not_evaluated():
    result = run(InvocationDuration, [turn([])])
    assert result.value is None and result.reason_code == "not_timed"
    assert_same_as_adk(InvocationDuration, [turn([])])


@pytest.mark.parametrize("cls", list(ADK))
def test_no_invocations(cls):
    result = run(cls, [])
    assert result.value is None and result.reason_code == "no_invocations"
    assert adk_result(cls, []).overall_score is None


@pytest.mark.parametrize("cls", list(ADK))
def test_info_is_informational_and_reference_free(cls):
    info = cls.info
    assert info.informational and info.default_threshold is None and not info.requires_expected
    assert (info.min_score, info.max_score) == (0.0, None)
    assert not info.higher_is_better  # ADK: lower is better for all four


# -- property: the same numbers as ADK's evaluators on any invocations -------------------------

counts = st.one_of(st.none(), st.integers(min_value=0, max_value=10**6))
usages = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            key: counts
            for key in (
                "prompt_token_count",
                "candidates_token_count",
                "thoughts_token_count",
                "cached_content_token_count",
                "tool_use_prompt_token_count",
            )
        },
    ),
)
seconds = st.one_of(
    st.none(), st.floats(min_value=0, max_value=1000, allow_nan=False).map(lambda x: round(x, 3))
)
turns = st.builds(
    turn,
    st.one_of(st.none(), st.lists(usages, max_size=4)),
    duration=seconds,
    model=seconds,
    tool=seconds,
)


@settings(max_examples=60, deadline=None)
@given(st.lists(turns, max_size=4), st.sampled_from(list(ADK)))
def test_same_as_adk_on_any_invocations(actual, cls):
    assert_same_as_adk(cls, actual)


# -- end to end: a Python agent's reported usage, the four appended, never gating ------------

AGENT = """
def respond(message, history):
    if message == "silent":
        return {"text": "hi"}
    usage = {"prompt_tokens": 10, "completion_tokens": 2}
    return {"text": "hi", "model_calls": [{"model": "m", "usage": usage}]}
"""


def _evalset(tmp_path, *messages: str):
    import json

    turns = [
        {
            "user_content": {"role": "user", "parts": [{"text": m}]},
            "final_response": {"role": "model", "parts": [{"text": "hi"}]},
        }
        for m in messages
    ]
    path = tmp_path / "set.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": turns}]}))
    return path


def test_a_python_agents_usage_through_the_engine(tmp_path):
    import agenteval
    from agenteval._loading._config import config_from_data, with_efficiency

    (tmp_path / "agent.py").write_text(AGENT)
    config = with_efficiency(config_from_data({"criteria": {"response_match_score": 0.5}}))
    result = agenteval.evaluate_agent(
        f"{tmp_path / 'agent.py'}:respond", _evalset(tmp_path, "hello", "silent"), config
    )
    [case] = result.cases()
    by_name = {c.criterion: c for c in case.criteria}
    assert result.passed and case.status.value == "PASSED"  # informational results never gate
    assert {by_name[n].status.value for n in ADK_NAMES} == {"INFORMATIONAL"}
    assert by_name["inference_call_count_v1"].score == 1.0  # the silent turn is unknown, not 0
    calls = by_name["inference_call_count_v1"].per_invocation
    assert [(i.score, i.reason_code) for i in calls] == [(1.0, None), (None, "no_model_calls_recorded")]
    assert by_name["token_usage_v1"].score == 6.0  # ADK's average: 12 and (nothing reported) over 2
    assert by_name["token_usage_v1"].details["input_tokens"] == 5.0
    assert all(i.score is not None and i.score >= 0 for i in by_name["invocation_duration_v1"].per_invocation)


ADK_NAMES = ("tool_call_count_v1", "inference_call_count_v1", "token_usage_v1", "invocation_duration_v1")
