"""A conversation as the ``author: text`` lines a simulated user reads.

Per invocation: ``user: <message>``, then what the agent said along the way
(intermediate texts, each with its author), then the final response. Thought parts are
left out. With ``include_function_calls`` the tool activity is shown too:
``<author> called tool 'NAME' with args {...}`` and ``tool 'NAME' returned {...}``.

Event-form invocations keep their order and authors; the final response is attributed to
the author of the last event (``agent`` when there is none) and left out when the last
event already said it. Legacy-form invocations do not record the order of texts and tool
calls: texts come first, then each call with its response.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Optional

from agenteval.models import Content, IntermediateData, Invocation, InvocationEvents, Part

from ._context import pair_calls

__all__ = ["transcript"]

_AGENT = "agent"


def _spoken(parts: Optional[Sequence[Part]]) -> str:
    return "\n".join(p.text for p in parts or () if p.text and p.text.strip() and not p.thought)


def _json(value: Any) -> str:
    return json.dumps(value if value is not None else {}, ensure_ascii=False, sort_keys=True, default=str)


def _call(author: str, name: Optional[str], args: Any) -> str:
    return f"{author} called tool {name!r} with args {_json(args)}"


def _result(name: Optional[str], response: Any) -> str:
    return f"tool {name!r} returned {_json(response)}"


def _event_lines(data: InvocationEvents, tools: bool) -> tuple[list[str], Optional[str], str]:
    """The events' lines, the last event's author, and the last event's own text."""
    lines: list[str] = []
    last_author: Optional[str] = None
    last_text = ""
    for event in data.invocation_events:
        last_author = event.author
        parts = event.content.parts if event.content is not None else None
        last_text = _spoken(parts)
        for part in parts or ():
            if part.text and part.text.strip() and not part.thought:
                lines.append(f"{event.author}: {part.text}")
            elif tools and part.function_call is not None:
                lines.append(_call(event.author, part.function_call.name, part.function_call.args))
            elif tools and part.function_response is not None:
                lines.append(_result(part.function_response.name, part.function_response.response))
    return lines, last_author, last_text


def _legacy_lines(data: IntermediateData, tools: bool) -> list[str]:
    lines = [f"{author}: {text}" for author, parts in data.intermediate_responses if (text := _spoken(parts))]
    if tools:
        for call, response in pair_calls(data.tool_uses, data.tool_responses):
            if call is not None:
                lines.append(_call(_AGENT, call.name, call.args))
            if response is not None:
                lines.append(_result(response.name, response.response))
    return lines


def _text(content: Optional[Content]) -> str:
    return _spoken(content.parts) if content is not None else ""


def transcript(invocations: Sequence[Invocation], *, include_function_calls: bool = False) -> list[str]:
    """The conversation as ``author: text`` lines, oldest first (see the module docstring)."""
    lines: list[str] = []
    for invocation in invocations:
        said = _text(invocation.user_content)
        if said:
            lines.append(f"user: {said}")
        data = invocation.intermediate_data
        final = _text(invocation.final_response)
        author = _AGENT
        if isinstance(data, InvocationEvents):
            events, last_author, last_text = _event_lines(data, include_function_calls)
            lines.extend(events)
            author = last_author or _AGENT
            if final and last_text.strip() == final.strip():
                final = ""  # the last event already said it
        elif isinstance(data, IntermediateData):
            lines.extend(_legacy_lines(data, include_function_calls))
        if final:
            lines.append(f"{author}: {final}")
    return lines
