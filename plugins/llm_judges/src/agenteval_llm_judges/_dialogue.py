"""The whole dialogue of a case as ADK 2.13's multi-turn trajectory judge reads it.

Per invocation ``n`` (1-based), oldest first:

- ``USER TURN n: <text>`` (the user content's text parts, joined by spaces);
- per event of the event form, in order: ``<ROLE> TURN n: <text>``, then for each tool call
  ``<ROLE> TURN n (tool call): name({json args})`` and each tool response
  ``<ROLE> TURN n (tool output): name -> {json}``; ROLE is ``USER`` for an event by the
  user, else ``AGENT (<author>)``. The legacy form records no events: none are shown;
- ``AGENT (<author>) TURN n: <final response>``, with the author of the invocation's
  *first* event (``agent`` when there is none), as ADK names it.

Thought parts are kept, as ADK keeps every text part. The agents' instructions and tool
declarations come from every invocation's ``app_details`` (``merged_app_details``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Optional

from agenteval.models import AgentDetails, AppDetails, Content, Invocation, InvocationEvents

__all__ = ["dialogue", "merged_app_details"]


def _texts(content: Optional[Content]) -> str:
    return " ".join(p.text for p in (content.parts if content is not None else None) or () if p.text)


def _json(value: Any) -> str:
    return json.dumps(value or {}, ensure_ascii=False, default=str)


def _event_lines(turn: int, data: InvocationEvents) -> list[str]:
    lines = []
    for event in data.invocation_events:
        if event.content is None:
            continue
        role = "USER" if (event.author or "").lower() == "user" else f"AGENT ({event.author})"
        said = _texts(event.content)
        if said:
            lines.append(f"{role} TURN {turn}: {said}")
        for part in event.content.parts or ():
            if part.function_call is not None:
                call = part.function_call
                lines.append(f"{role} TURN {turn} (tool call): {call.name}({_json(call.args)})")
            if part.function_response is not None:
                answer = part.function_response
                lines.append(f"{role} TURN {turn} (tool output): {answer.name} -> {_json(answer.response)}")
    return lines


def dialogue(invocations: Sequence[Invocation]) -> list[str]:
    """The transcript lines of ``invocations`` (see the module docstring)."""
    lines: list[str] = []
    for index, invocation in enumerate(invocations):
        turn = index + 1
        said = _texts(invocation.user_content)
        if said:
            lines.append(f"USER TURN {turn}: {said}")
        data = invocation.intermediate_data
        author = "agent"
        if isinstance(data, InvocationEvents):
            lines.extend(_event_lines(turn, data))
            if data.invocation_events:
                author = data.invocation_events[0].author
        final = _texts(invocation.final_response)
        if final:
            lines.append(f"AGENT ({author}) TURN {turn}: {final}")
    return lines


def merged_app_details(invocations: Sequence[Invocation]) -> Optional[AppDetails]:
    """The agents of every invocation's ``app_details`` (an agent's first record wins);
    ``None`` when none was recorded."""
    agents: dict[str, AgentDetails] = {}
    for invocation in invocations:
        if invocation.app_details is not None:
            for name, details in invocation.app_details.agent_details.items():
                agents.setdefault(name, details)
    return AppDetails(agent_details=agents) if agents else None
