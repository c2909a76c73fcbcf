"""The GenAI conventions' legacy per-message events, read as today's message attributes.

Before ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (semantic conventions 1.28 to
1.36), instrumentations recorded a model call's content as one event per message — as span
events, or as log records (``eventName`` / ``event.name``) — with the message in the event's
body (log records) or attributes (span events):

* ``gen_ai.system.message``, ``gen_ai.user.message``: ``{"content": TEXT}``;
* ``gen_ai.assistant.message``: ``{"content": TEXT, "tool_calls": [{"id", "function":
  {"name", "arguments"}}]}``;
* ``gen_ai.tool.message``: ``{"content": RESULT, "id": CALL_ID}``;
* ``gen_ai.choice``: ``{"index", "finish_reason", "message": {"content", "tool_calls"}}``.

ADK's legacy schema (1) writes each message's ``content`` as a ``google.genai`` ``Content``
(``{"role": "user" | "model", "parts": [{"text"}, {"function_call"}, {"function_response"}]}``,
the choice's beside ``index`` instead of in ``message``), every earlier message of the
conversation as a ``gen_ai.user.message``: its role is the ``Content``'s (``model``: assistant).

``legacy_messages`` turns them into the two attributes (parts of type ``text``,
``tool_call`` and ``tool_call_response``), so a turn reads the same whichever generation of
the conventions wrote it. Events without content (capture off) give no message: the turn
then lacks content, and the lint says so.
"""

from __future__ import annotations

import json
from typing import Any, Optional

__all__ = ["LEGACY_EVENTS", "event_fields", "legacy_messages"]

_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
LEGACY_EVENTS = frozenset({*_ROLES, "gen_ai.choice"})


def event_fields(body: Any, attributes: dict[str, Any]) -> dict[str, Any]:
    """A legacy event's message: its body's fields (log records) with its attributes (span
    events), structured fields given as JSON text parsed."""
    fields = {**(body if isinstance(body, dict) else {}), **attributes}
    for key in ("message", "tool_calls", "content"):
        value = fields.get(key)
        if isinstance(value, str) and value[:1] in ("{", "["):
            try:
                fields[key] = json.loads(value)
            except (ValueError, RecursionError):
                pass  # text that looks like JSON and is not stays text
    return fields


def legacy_messages(
    events: list[tuple[str, dict[str, Any]]], *, elided: str
) -> dict[str, list[dict[str, Any]]]:
    """``{"gen_ai.input.messages": [...], "gen_ai.output.messages": [...]}`` from ``(event
    name, fields)`` pairs in their recorded order (a key only when some event gave content;
    ``elided`` content counts as none)."""
    inputs: list[dict[str, Any]] = []
    outputs: list[tuple[int, dict[str, Any]]] = []
    for name, fields in events:
        if name == "gen_ai.choice":
            message = fields.get("message")
            if not isinstance(message, dict):
                message = {"content": fields["content"]} if _is_genai(fields.get("content")) else {}
            converted = _message("assistant", message, elided)
            index = fields.get("index")
            if converted is not None:
                if fields.get("finish_reason") is not None:
                    converted["finish_reason"] = fields["finish_reason"]
                outputs.append((index if isinstance(index, int) else 0, converted))
        elif name in _ROLES:
            converted = _message(str(fields.get("role") or _ROLES[name]), fields, elided)
            if converted is not None:
                inputs.append(converted)
    found: dict[str, list[dict[str, Any]]] = {}
    if inputs:
        found["gen_ai.input.messages"] = inputs
    if outputs:  # n > 1 choices: the first, as a caller of the model reads it
        first = min(index for index, _ in outputs)
        found["gen_ai.output.messages"] = [m for index, m in outputs if index == first]
    return found


def _message(role: str, fields: dict[str, Any], elided: str) -> Optional[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    content = None if fields.get("content") == elided else fields.get("content")
    if _is_genai(content):
        return _genai_message(role, content)
    if role == "tool":
        if content is not None:
            parts.append({"type": "tool_call_response", "id": fields.get("id"), "response": content})
    else:
        parts.extend({"type": "text", "content": text} for text in _texts(content))
    for call in fields.get("tool_calls") or ():
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and function.get("name"):
            part = {"type": "tool_call", "id": call.get("id"), "name": function["name"]}
            if function.get("arguments") is not None:
                part["arguments"] = function["arguments"]
            parts.append(part)
    return {"role": role, "parts": parts} if parts else None


def _texts(content: Any) -> list[str]:
    """Text of a message's ``content``: a string, or a list of strings / ``{"text": ...}``."""
    if isinstance(content, str):
        return [content] if content else []
    if isinstance(content, list):
        return [
            item if isinstance(item, str) else item["text"]
            for item in content
            if isinstance(item, str) or (isinstance(item, dict) and isinstance(item.get("text"), str))
        ]
    return []


def _is_genai(content: Any) -> bool:
    return isinstance(content, dict) and isinstance(content.get("parts"), list)


def _genai_message(role: str, content: dict[str, Any]) -> Optional[dict[str, Any]]:
    """A ``google.genai`` ``Content`` as a message: text (not thoughts), function calls and
    responses; its own role when it has one."""
    parts: list[dict[str, Any]] = []
    for part in content["parts"]:
        if not isinstance(part, dict) or part.get("thought") is True:
            continue
        call, response = part.get("function_call"), part.get("function_response")
        if isinstance(part.get("text"), str) and part["text"]:
            parts.append({"type": "text", "content": part["text"]})
        elif isinstance(call, dict) and call.get("name"):
            parts.append(
                {
                    "type": "tool_call",
                    "id": call.get("id"),
                    "name": call["name"],
                    "arguments": call.get("args") or {},
                }
            )
        elif isinstance(response, dict) and response.get("name"):
            parts.append(
                {"type": "tool_call_response", "id": response.get("id"), "response": response.get("response")}
            )
    written = content.get("role")
    if isinstance(written, str) and written:
        role = "assistant" if written == "model" else written
    return {"role": role, "parts": parts} if parts else None
