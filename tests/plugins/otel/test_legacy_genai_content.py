"""ADK's legacy schema (1) writes each legacy message event's content as a ``google.genai``
``Content``: its text, function calls and responses are read, with the ``Content``'s role."""

from __future__ import annotations

from agenteval_otel._legacy_events import legacy_messages


def _content(role: str, *parts: dict) -> dict:
    empty = {"function_call": None, "function_response": None, "text": None, "thought": None}
    return {"content": {"role": role, "parts": [{**empty, **part} for part in parts]}}


def test_genai_contents_become_messages_with_their_own_roles():
    events = [
        ("gen_ai.user.message", _content("user", {"text": "Weather in Paris?"})),
        (
            "gen_ai.user.message",
            _content("model", {"function_call": {"id": "c1", "name": "w", "args": {"c": 1}}}),
        ),
        (
            "gen_ai.user.message",
            _content("user", {"function_response": {"id": "c1", "name": "w", "response": {}}}),
        ),
        (
            "gen_ai.choice",
            {"index": 0, **_content("model", {"text": "thinking", "thought": True}, {"text": "Sunny."})},
        ),
    ]
    found = legacy_messages(events, elided="<elided>")
    assert found["gen_ai.input.messages"] == [
        {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]},
        {
            "role": "assistant",
            "parts": [{"type": "tool_call", "id": "c1", "name": "w", "arguments": {"c": 1}}],
        },
        {"role": "user", "parts": [{"type": "tool_call_response", "id": "c1", "response": {}}]},
    ]
    assert found["gen_ai.output.messages"] == [
        {"role": "assistant", "parts": [{"type": "text", "content": "Sunny."}]}
    ]


def test_a_genai_content_without_parts_gives_no_message():
    assert legacy_messages([("gen_ai.user.message", _content("user"))], elided="<elided>") == {}
