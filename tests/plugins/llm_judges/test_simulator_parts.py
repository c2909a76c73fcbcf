"""The user simulator's parts: the transcript it reads and the built-in personas."""

from __future__ import annotations

import pytest
from agenteval.models import Content, Invocation, InvocationEvents, Part, UserPersona
from agenteval.testing import make_invocation
from agenteval_llm_judges._transcript import transcript
from agenteval_llm_judges.personas import BUILTIN_PERSONAS, UnknownPersona, resolve_persona


def _event(author: str, *parts: dict) -> dict:
    return {"author": author, "content": {"role": "model", "parts": list(parts)}}


def test_event_form_keeps_order_and_authors_and_drops_thoughts():
    turn = Invocation(
        user_content=Content(role="user", parts=[Part(text="Book it"), Part(text="pondering", thought=True)]),
        final_response=Content.from_text("Done: table 4.", role="model"),
        intermediate_data=InvocationEvents.model_validate(
            {
                "invocation_events": [
                    _event("planner", {"text": "secret plan", "thought": True}, {"text": "Let me check."}),
                    _event("planner", {"function_call": {"name": "book", "args": {"party": 2}}}),
                    _event("booker", {"function_response": {"name": "book", "response": {"table": 4}}}),
                ]
            }
        ),
    )
    assert transcript([turn]) == ["user: Book it", "planner: Let me check.", "booker: Done: table 4."]
    assert transcript([turn], include_function_calls=True) == [
        "user: Book it",
        "planner: Let me check.",
        "planner called tool 'book' with args {\"party\": 2}",
        "tool 'book' returned {\"table\": 4}",
        "booker: Done: table 4.",
    ]


def test_a_final_response_the_last_event_already_said_is_not_repeated():
    turn = Invocation(
        user_content=Content.from_text("Hi"),
        final_response=Content.from_text("Hello!", role="model"),
        intermediate_data=InvocationEvents.model_validate(
            {"invocation_events": [_event("greeter", {"text": "Hello!"})]}
        ),
    )
    assert transcript([turn]) == ["user: Hi", "greeter: Hello!"]


def test_legacy_form_and_turns_without_a_response():
    turns = [make_invocation("a", "b", [("lookup", {"q": 1})]), make_invocation("c", None)]
    assert transcript(turns) == ["user: a", "agent: b", "user: c"]
    with_tools = transcript(turns, include_function_calls=True)
    assert with_tools[1] == "agent called tool 'lookup' with args {\"q\": 1}"


def test_builtin_personas_resolve_and_others_are_explained():
    assert set(BUILTIN_PERSONAS) == {"EXPERT", "NOVICE", "EVALUATOR"}
    for persona_id, persona in BUILTIN_PERSONAS.items():
        assert resolve_persona(persona_id) is persona and persona.id == persona_id
        assert persona.description and persona.behaviors
        assert all(b.behavior_instructions and b.violation_rubrics for b in persona.behaviors)
    given = UserPersona(id="x", description="d")
    assert resolve_persona(given) is given and resolve_persona(None) is None
    with pytest.raises(UnknownPersona, match="'expert' is not a built-in persona"):
        resolve_persona("expert")  # ids are case-sensitive, as in ADK
