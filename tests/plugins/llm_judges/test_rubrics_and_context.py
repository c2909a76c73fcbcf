"""Rubric merging (scopes, type filter, duplicates) and what the prompts read from invocations."""

from __future__ import annotations

from agenteval.models import (
    AgentDetails,
    AppDetails,
    Content,
    FunctionCall,
    FunctionResponse,
    IntermediateData,
    Invocation,
    InvocationEvent,
    InvocationEvents,
    Part,
    Rubric,
    RubricContent,
)
from agenteval.testing import make_invocation
from agenteval_llm_judges._context import (
    developer_instructions,
    hallucination_steps,
    pair_calls,
    response_text,
    tool_steps,
)
from agenteval_llm_judges._rubrics import merge_rubrics

TAG = "FINAL_RESPONSE_QUALITY"


def rub(rubric_id: str, text: str = "A property.", kind: str | None = None) -> Rubric:
    return Rubric(rubric_id=rubric_id, rubric_content=RubricContent(text_property=text), type=kind)


def _unvalidated(rubric_id: str, kind: str) -> Rubric:
    """A rubric with a type the eval models refuse at load, as code may still build one."""
    return Rubric.model_construct(
        rubric_id=rubric_id, rubric_content=RubricContent(text_property="A property."), type=kind
    )


# -- merging ---------------------------------------------------------------------------------


def test_scopes_merge_in_order_and_criterion_rubrics_are_never_filtered():
    merged = merge_rubrics(
        TAG, [rub("c", kind="TOOL_USE_QUALITY")], [rub("k", kind=TAG)], [rub("i", kind=TAG)]
    )
    assert merged.ids() == ["c", "k", "i"]
    assert merged.problem is None and merged.filtered_out == []


def test_case_and_invocation_rubrics_need_the_exact_type():
    merged = merge_rubrics(
        TAG,
        [rub("c")],
        [
            rub("untyped"),
            _unvalidated("lower", "final_response_quality"),
            rub("other", kind="TOOL_USE_QUALITY"),
        ],
        [rub("i", kind=TAG)],
    )
    assert merged.ids() == ["c", "i"]
    assert [rid for rid, _, _ in merged.filtered_out] == ["untyped", "lower", "other"]


def test_no_rubrics_reason_mentions_the_type_filter():
    merged = merge_rubrics(TAG, [], [rub("tone")], [rub("facts", kind="TOOL_USE_QUALITY")])
    assert merged.problem is not None and merged.problem.code == "no_rubrics"
    reason = merged.problem.reason
    assert "'tone' (case, no type)" in reason
    assert "'facts' (expected invocation, type 'TOOL_USE_QUALITY')" in reason
    assert f'"type": "{TAG}"' in reason


def test_no_rubrics_at_all():
    merged = merge_rubrics(TAG, [], None, None)
    assert merged.problem is not None and merged.problem.code == "no_rubrics"
    assert "left out" not in merged.problem.reason


def test_duplicate_ids_are_reported_with_their_scopes():
    merged = merge_rubrics(TAG, [rub("r")], [rub("r", kind=TAG)], [rub("s", kind=TAG), rub("s", kind=TAG)])
    assert merged.problem is not None and merged.problem.code == "duplicate_rubric_id"
    assert "'r' (criterion, case)" in merged.problem.reason
    assert "'s' (expected invocation, expected invocation)" in merged.problem.reason


def test_a_rubric_without_text_uses_its_description_or_is_rejected():
    described = Rubric(rubric_id="d", rubric_content=RubricContent(), description="Is polite.")
    assert merge_rubrics(TAG, [described], None, None).problem is None
    empty = Rubric(rubric_id="e", rubric_content=RubricContent(text_property="  "))
    merged = merge_rubrics(TAG, [empty], None, None)
    assert merged.problem is not None and merged.problem.code == "empty_rubric"


# -- tool calls and responses ----------------------------------------------------------------


def call(name: str, call_id: str | None = None, **args) -> FunctionCall:
    return FunctionCall(id=call_id, name=name, args=args)


def response(name: str | None, call_id: str | None = None, **value) -> FunctionResponse:
    return FunctionResponse(id=call_id, name=name, response=value)


def test_pairing_by_id_then_in_order_by_name():
    calls = [call("a", "1"), call("b"), call("a"), call("c", "9")]
    responses = [
        response("a", result=2),
        response("b", result="B"),
        response("a", "1", result=1),
        response("z"),
    ]
    pairs = pair_calls(calls, responses)
    got = [(c.name if c else None, r.response if r else None) for c, r in pairs]
    assert got == [
        ("a", {"result": 1}),  # by id
        ("b", {"result": "B"}),  # id-less, by name
        ("a", {"result": 2}),  # id-less, by name (ADK would pair every id-less call with the last response)
        ("c", None),  # its id has no response
        (None, {}),  # a response no call claimed is kept
    ]


def test_tool_steps_from_legacy_and_event_forms():
    legacy = Invocation(
        user_content=Content.from_text("q"),
        final_response=Content.from_text("a", role="model"),
        intermediate_data=IntermediateData(
            tool_uses=[call("roll", sides=6)], tool_responses=[response("roll", result=4)]
        ),
    )
    assert tool_steps(legacy) == [
        {
            "step": 1,
            "tool_call": {"name": "roll", "args": {"sides": 6}},
            "tool_response": {"name": "roll", "response": {"result": 4}},
        }
    ]
    events = make_invocation("q", "a", [("roll", {"sides": 6}), ("check", None)], form="events")
    steps = tool_steps(events)
    assert [s["tool_call"] for s in steps] == [
        {"name": "roll", "args": {"sides": 6}},
        {"name": "check", "args": {}},
    ]
    assert all(s["tool_response"]["response"] == {"result": "ok"} for s in steps)


def test_developer_instructions_follow_the_first_event_author():
    app = AppDetails(
        agent_details={
            "root": AgentDetails(name="root", instructions="Be root."),
            "helper": AgentDetails(name="helper", instructions="Be helpful."),
        }
    )
    inv = make_invocation("q", "a", [("t", {})], form="events", author="helper")
    assert developer_instructions(inv, app) == "Be helpful."
    assert developer_instructions(make_invocation("q", "a"), app) == "Be root."  # fallback: first agent
    assert developer_instructions(inv, None) == ""


def test_response_text_with_intermediate_texts():
    inv = Invocation(
        user_content=Content.from_text("q"),
        final_response=Content.from_text("Final.", role="model"),
        intermediate_data=IntermediateData(intermediate_responses=[("sub", [Part(text="Working on it.")])]),
    )
    assert response_text(inv) == "Final."
    assert response_text(inv, include_intermediate=True) == "Working on it.\nFinal."


# -- hallucination steps -----------------------------------------------------------------------


def event(author: str, *parts: Part, grounding: dict | None = None) -> InvocationEvent:
    return InvocationEvent(
        author=author, content=Content(role="model", parts=list(parts)), grounding_metadata=grounding
    )


def test_hallucination_steps_event_form():
    inv = Invocation(
        user_content=Content.from_text("Weather in Paris?"),
        final_response=Content.from_text("It is 21 °C in Paris.", role="model"),
        intermediate_data=InvocationEvents(
            invocation_events=[
                event(
                    "agent",
                    Part(text="Let me check."),
                    Part(function_call=call("weather", "1", city="Paris")),
                ),
                event("agent", Part(function_response=response("weather", "1", temp=21))),
                event(
                    "agent",
                    Part(text="thinking...", thought=True),
                    Part(text="Found it."),
                    grounding={"src": "w"},
                ),
                event("agent", Part(text="It is 21 °C in Paris.")),  # the final text, repeated
            ]
        ),
    )
    final_only = hallucination_steps(inv)
    assert [(s.kind, s.text) for s in final_only] == [("final_response", "It is 21 °C in Paris.")]
    events = final_only[0].context["events"]
    assert events[0] == {
        "author": "agent",
        "text": "Let me check.",
        "tool_calls": [{"name": "weather", "args": {"city": "Paris"}}],
    }
    assert events[1]["tool_outputs"] == [{"name": "weather", "response": {"temp": 21}}]
    assert events[2] == {
        "author": "agent",
        "text": "Found it.",
        "grounding_metadata": {"src": "w"},
    }  # no thoughts
    assert len(events) == 3  # the repeated final text is not evidence for itself
    steps = hallucination_steps(inv, intermediate=True)
    assert [s.text for s in steps] == ["Let me check.", "Found it.", "It is 21 °C in Paris."]
    assert steps[0].context["events"] == []  # only earlier events
    assert len(steps[1].context["events"]) == 2
    assert steps[1].context["grounding_metadata_of_this_text"] == {"src": "w"}
    assert steps[0].context["user_prompt"] == "Weather in Paris?"


def test_hallucination_context_includes_legacy_tool_data():
    inv = Invocation(
        user_content=Content.from_text("Roll a die"),
        final_response=Content.from_text("You rolled a 4.", role="model"),
        intermediate_data=IntermediateData(
            tool_uses=[call("roll", sides=6)],
            tool_responses=[response("roll", result=4)],
            intermediate_responses=[("agent", [Part(text="Rolling now.")])],
        ),
    )
    (final,) = hallucination_steps(inv)
    assert final.context["tool_activity"][0]["tool_response"]["response"] == {"result": 4}
    steps = hallucination_steps(inv, intermediate=True)
    assert [(s.kind, s.author) for s in steps] == [
        ("intermediate_response", "agent"),
        ("final_response", None),
    ]


def test_no_text_no_steps():
    assert hallucination_steps(make_invocation("q", None)) == []
    assert hallucination_steps(make_invocation("q", "   ")) == []
