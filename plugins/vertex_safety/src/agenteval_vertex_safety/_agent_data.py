"""A conversation as the Vertex AI evaluation service's ``AgentData`` (JSON), built as ADK
2.13's multi-turn facade builds it.

``agents``: per agent name in the invocations' ``app_details`` (first record wins)
``{agent_id, instruction, tools}``. ``turns``: per invocation ``{turn_index, turn_id,
events}``, the events being the user content (author ``user``), every event of the event
form that has content (the legacy form records none), then the final response (author
``agent``; without a final response the event has no content).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from agenteval.models import Content, Invocation, InvocationEvents

__all__ = ["agent_data"]


def _event(author: str, content: Optional[Content]) -> dict[str, Any]:
    event: dict[str, Any] = {"author": author}
    if content is not None:
        event["content"] = content.model_dump(mode="json", exclude_none=True)
    return event


def _turn(index: int, invocation: Invocation) -> dict[str, Any]:
    events = [_event("user", invocation.user_content)]
    data = invocation.intermediate_data
    if isinstance(data, InvocationEvents):
        events.extend(_event(e.author, e.content) for e in data.invocation_events if e.content is not None)
    events.append(_event("agent", invocation.final_response))
    return {"turn_index": index, "turn_id": invocation.invocation_id, "events": events}


def agent_data(invocations: Sequence[Invocation]) -> dict[str, Any]:
    """The ``AgentData`` of ``invocations`` (see the module docstring)."""
    agents: dict[str, Any] = {}
    for invocation in invocations:
        if invocation.app_details is None:
            continue
        for name, details in invocation.app_details.agent_details.items():
            agents.setdefault(
                name,
                {
                    "agent_id": details.name,
                    "instruction": details.instructions,
                    "tools": details.tool_declarations,
                },
            )
    return {"agents": agents, "turns": [_turn(i, invocation) for i, invocation in enumerate(invocations)]}
