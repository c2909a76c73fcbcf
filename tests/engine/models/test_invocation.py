"""``models/_invocation.py``: invocations and their two forms of intermediate data."""

from __future__ import annotations

import json

import pytest
from agenteval.models import IntermediateData, Invocation, InvocationEvents
from agenteval.testing import make_invocation
from pydantic import ValidationError

CALLS = [("get_weather", {"city": "Paris"}), ("exit_loop", None)]


@pytest.mark.parametrize("form", ["legacy", "events"])
def test_tool_calls_in_both_forms(form):
    invocation = make_invocation("q", "a", CALLS, form=form)
    assert [(c.name, c.args) for c in invocation.tool_calls()] == CALLS


def test_event_form_reads_calls_from_every_author_in_order():
    invocation = Invocation.model_validate(
        {
            "user_content": {"parts": [{"text": "q"}]},
            "intermediate_data": {
                "invocation_events": [
                    {
                        "author": "root",
                        "content": {"parts": [{"function_call": {"name": "transfer_to_agent"}}]},
                    },
                    {"author": "sub", "content": None},
                    {
                        "author": "sub",
                        "content": {
                            "parts": [
                                {"function_call": {"name": "a"}},
                                {"text": ""},
                                {"function_call": {"name": "b"}},
                            ]
                        },
                    },
                    {
                        "author": "sub",
                        "content": {
                            "role": "user",
                            "parts": [{"function_response": {"name": "a", "response": {}}}],
                        },
                    },
                    {"author": "sub", "content": {"parts": None}},
                ]
            },
        }
    )
    assert [c.name for c in invocation.tool_calls()] == ["transfer_to_agent", "a", "b"]
    assert [r.name for r in invocation.tool_responses()] == ["a"]
    assert invocation.intermediate_texts() == []


def test_no_intermediate_data():
    invocation = make_invocation("q", "a", form=None)
    assert invocation.intermediate_data is None
    assert invocation.tool_calls() == [] and invocation.tool_responses() == []
    assert invocation.intermediate_texts() == []


def test_legacy_tool_responses_and_intermediate_texts():
    invocation = Invocation.model_validate(
        {
            "user_content": {"parts": [{"text": "q"}]},
            "intermediate_data": {
                "tool_uses": [{"name": "t"}],
                "tool_responses": [{"name": "t", "response": {"ok": True}}],
                "intermediate_responses": [["sub_agent", [{"text": "step 1"}, {"text": "step 2"}]]],
            },
        }
    )
    assert isinstance(invocation.intermediate_data, IntermediateData)
    assert invocation.tool_responses()[0].response == {"ok": True}
    assert invocation.intermediate_texts() == [("sub_agent", "step 1\nstep 2")]


def test_event_form_intermediate_texts_skip_tool_events():
    invocation = Invocation.model_validate(
        {
            "user_content": {"parts": [{"text": "q"}]},
            "intermediate_data": {
                "invocation_events": [
                    {"author": "planner", "content": {"parts": [{"text": "I will search."}]}},
                    {
                        "author": "planner",
                        "content": {"parts": [{"text": "calling"}, {"function_call": {"name": "s"}}]},
                    },
                    {"author": "writer", "content": {"parts": [{"text": ""}]}},
                    {"author": "writer", "content": {"parts": [{"text": "Draft ready."}]}},
                ]
            },
        }
    )
    assert isinstance(invocation.intermediate_data, InvocationEvents)
    assert invocation.intermediate_texts() == [("planner", "I will search."), ("writer", "Draft ready.")]


def test_final_text():
    assert make_invocation("q", "answer").final_text() == "answer"
    assert make_invocation("q", None).final_text() == ""
    assert make_invocation("q", "").final_text() == ""


def test_defaults():
    invocation = Invocation.model_validate({"userContent": {"parts": [{"text": "q"}]}})
    assert invocation.invocation_id == "" and invocation.creation_timestamp == 0.0
    assert invocation.final_response is None and invocation.rubrics is None


def test_user_content_is_required():
    with pytest.raises(ValidationError):
        Invocation.model_validate({"final_response": {"parts": []}})


def test_make_invocation_rejects_unknown_forms():
    with pytest.raises(ValueError):
        make_invocation("q", form="xml")
    with pytest.raises(ValueError):
        make_invocation("q", tool_calls=[("t", {})], form=None)


@pytest.mark.parametrize("field", ["duration", "model_duration", "tool_duration"])
@pytest.mark.parametrize("value", [-1, -0.001, float("inf"), float("nan")])
def test_a_duration_that_is_negative_or_not_finite_is_refused_at_its_path(tmp_path, field, value):
    """A recording whose turn lasted -1 s is refused when read, at the value's JSON path (it
    reached ``invocation_duration_v1``, which then broke its own score range)."""
    from agenteval import load_eval_set
    from agenteval.errors import DataError

    turn = {"invocation_id": "i", "user_content": {"role": "user", "parts": [{"text": "q"}]}, field: value}
    path = tmp_path / "a.evalset.json"
    path.write_text(
        json.dumps({"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": [turn]}]})
    )
    with pytest.raises(DataError) as caught:
        load_eval_set(path)
    assert f"eval_cases[0].conversation[0].{field}" in str(caught.value)
    turn[field] = 0.25
    path.write_text(
        json.dumps({"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": [turn]}]})
    )
    assert getattr(load_eval_set(path).eval_cases[0].conversation[0], field) == 0.25
