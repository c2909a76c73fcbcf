"""One turn's ADK events as an ``Invocation``, the way ADK's eval inference reads them.

* the final response is the content of the last event that ``is_final_response()`` and
  has parts; a later audio-only one does not replace one with text;
* the intermediate events are the agent events (any author but ``user``: sub-agents
  included) whose parts hold a function call or response, text or inline data, or that
  carry grounding metadata. The final response's own event keeps its content only when
  it has function calls (its text is already the final response);
* the invocation id is the events' (``""`` when the agent emitted none, where ADK would
  drop the turn).

``form="events"`` records them as ADK does (``invocation_events``, with usage metadata and
model version). ``form="legacy"`` records the same turn as ``tool_uses``,
``tool_responses`` and ``intermediate_responses``: every function call and response of
those events in order (``transfer_to_agent`` included), and ``[author, text parts]`` of
the events that hold text and no function call or response, so both forms give the same
``tool_calls()``, ``tool_responses()`` and ``intermediate_texts()``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Optional

from agenteval.models import AgentDetails, AppDetails, Content, Invocation

__all__ = ["Form", "app_details", "build_invocation", "to_genai_content"]

Form = Literal["events", "legacy"]


def _plain(value: Any) -> Any:
    """A google-genai / pydantic value as plain JSON data (unset fields left out)."""
    if value is None:
        return None
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    return value


def _content(value: Any) -> Optional[Content]:
    if value is None:
        return None
    return Content.model_validate_json(value.model_dump_json(exclude_none=True))


def to_genai_content(content: Content) -> Any:
    """Our ``Content`` as a ``google.genai.types.Content`` (JSON round trip, so bytes
    fields such as ``thought_signature`` stay base64 on both sides)."""
    from google.genai import types

    return types.Content.model_validate_json(content.model_dump_json(exclude_none=True))


def _is_agent_event(event: Any) -> bool:
    return (event.author or "agent").lower() != "user"


def _has_text(content: Any) -> bool:
    return any(part.text for part in content.parts or ())


def _final_event(events: Sequence[Any]) -> Any:
    final = None
    for event in events:
        if not (event.content and event.content.parts and event.is_final_response()):
            continue
        if final is None or not _has_text(final.content) or _has_text(event.content):
            final = event
    return final


def _kept(event: Any) -> bool:
    if event.grounding_metadata is not None:
        return True
    parts = event.content.parts if event.content else None
    return any(p.function_call or p.function_response or p.text or p.inline_data for p in parts or ())


def _events_form(kept: Sequence[Any], final: Any) -> dict[str, Any]:
    records = []
    for event in kept:
        content = event.content if event is not final or event.get_function_calls() else None
        record: dict[str, Any] = {"author": event.author, "content": _content(content)}
        for key in ("grounding_metadata", "usage_metadata"):
            record[key] = _plain(getattr(event, key, None))
        record["model_version"] = event.model_version
        records.append(record)
    return {"invocation_events": records}


def _legacy_form(kept: Sequence[Any], final: Any) -> dict[str, Any]:
    calls: list[Any] = []
    responses: list[Any] = []
    texts: list[list[Any]] = []
    for event in kept:
        if event is final and not event.get_function_calls():
            continue  # its text is the final response
        parts = event.content.parts if event.content else None
        if not parts:
            continue
        calls.extend(_plain(p.function_call) for p in parts if p.function_call)
        responses.extend(_plain(p.function_response) for p in parts if p.function_response)
        if not any(p.function_call or p.function_response for p in parts):
            text_parts = [_plain(p) for p in parts if p.text]
            if text_parts:
                texts.append([event.author, text_parts])
    return {"tool_uses": calls, "tool_responses": responses, "intermediate_responses": texts}


def app_details(requests: Mapping[str, Any]) -> AppDetails:
    """``AppDetails`` from the first model request each agent made in the turn
    (``{agent name: LlmRequest}``): its system instruction and tool declarations."""
    details = {}
    for name, request in requests.items():
        config = request.config
        instruction = config.system_instruction if config is not None else None
        if instruction is not None and not isinstance(instruction, str):
            parts = getattr(instruction, "parts", None) or ()
            instruction = "\n".join(p.text for p in parts if getattr(p, "text", None))
        tools = (config.tools if config is not None else None) or []
        details[name] = AgentDetails(
            name=name, instructions=instruction or "", tool_declarations=[_plain(t) for t in tools]
        )
    return AppDetails(agent_details=details)


def build_invocation(
    user_content: Content,
    events: Sequence[Any],
    *,
    form: Form,
    app: Optional[AppDetails],
    started_at: float,
    duration: Optional[float],
) -> Invocation:
    """The turn whose message was ``user_content`` and whose ADK events are ``events``."""
    agent_events = [e for e in events if _is_agent_event(e)]
    final = _final_event(agent_events)
    kept = [e for e in agent_events if _kept(e)]
    intermediate = _events_form(kept, final) if form == "events" else _legacy_form(kept, final)
    return Invocation.model_validate(
        {
            "invocation_id": next((e.invocation_id for e in events if e.invocation_id), ""),
            "user_content": user_content,
            "final_response": _content(final.content) if final is not None else None,
            "intermediate_data": intermediate,
            "creation_timestamp": started_at,
            "duration": duration,
            "app_details": app,
        }
    )
