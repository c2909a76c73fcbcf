"""What the judge prompts show about an invocation, read from both intermediate-data forms.

* developer instructions and tool declarations come from ``app_details`` (the actual
  invocation's, else the expected one's);
* tool calls are paired with their responses by ``id``; calls and responses without ids
  (hand-written legacy data) are paired in order, by tool name. ADK pairs every id-less
  call with the *last* id-less response; a response nobody called is kept, not dropped;
* grounding metadata comes from the events (event form only: the legacy form has none);
* hallucination contexts are built from the events *and* from the legacy ``tool_uses`` /
  ``tool_responses`` (ADK reads only events, so hand-written traces look ungrounded).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from agenteval.models import (
    AppDetails,
    FunctionCall,
    FunctionResponse,
    IntermediateData,
    Invocation,
    InvocationEvent,
    InvocationEvents,
    Part,
)

__all__ = [
    "HallucinationStep",
    "app_details",
    "developer_instructions",
    "grounding_metadata",
    "hallucination_steps",
    "response_text",
    "tool_declarations",
    "tool_steps",
    "user_text",
]


def user_text(invocation: Optional[Invocation]) -> str:
    """The user's message text (``""`` without one)."""
    if invocation is None:
        return ""
    return invocation.user_content.text()


def response_text(invocation: Invocation, include_intermediate: bool = False) -> str:
    """The final response text; with ``include_intermediate``, the intermediate
    natural-language texts first, one per line (ADK's
    ``include_intermediate_responses_in_final``)."""
    parts = [text for _, text in invocation.intermediate_texts()] if include_intermediate else []
    final = invocation.final_text()
    if final:
        parts.append(final)
    return "\n".join(p for p in parts if p)


def app_details(actual: Invocation, expected: Optional[Invocation] = None) -> Optional[AppDetails]:
    """The actual invocation's ``app_details``, else the expected one's."""
    if actual.app_details is not None:
        return actual.app_details
    return expected.app_details if expected is not None else None


def _events(invocation: Invocation) -> list[InvocationEvent]:
    data = invocation.intermediate_data
    return list(data.invocation_events) if isinstance(data, InvocationEvents) else []


def developer_instructions(invocation: Invocation, app: Optional[AppDetails]) -> str:
    """The instructions of the agent that authored the first event, else of the first
    agent in ``app_details``; ``""`` when there are none."""
    if app is None or not app.agent_details:
        return ""
    events = _events(invocation)
    if events and events[0].author in app.agent_details:
        return app.agent_details[events[0].author].instructions
    return next(iter(app.agent_details.values())).instructions


def all_instructions(app: Optional[AppDetails]) -> dict[str, str]:
    """Every agent's instructions, by agent name (agents without any are left out)."""
    if app is None:
        return {}
    return {name: d.instructions for name, d in app.agent_details.items() if d.instructions}


def tool_declarations(app: Optional[AppDetails]) -> dict[str, list[Any]]:
    """``{agent: [tool declarations]}`` for the agents that declared tools."""
    if app is None:
        return {}
    return {name: list(d.tool_declarations) for name, d in app.agent_details.items() if d.tool_declarations}


def _call(call: FunctionCall) -> dict[str, Any]:
    out: dict[str, Any] = {"name": call.name}
    out["args"] = call.args if call.args is not None else {}
    return out


def _response(response: FunctionResponse) -> dict[str, Any]:
    out: dict[str, Any] = {"name": response.name, "response": response.response}
    if response.parts:
        out["parts"] = response.parts
    return out


def pair_calls(
    calls: Sequence[FunctionCall], responses: Sequence[FunctionResponse]
) -> list[tuple[Optional[FunctionCall], Optional[FunctionResponse]]]:
    """Calls with their responses: by ``id`` first, then id-less ones in order by name.

    Returns one pair per call, in call order, then ``(None, response)`` for each response
    no call claimed.
    """
    used: set[int] = set()
    call_ids = {c.id for c in calls if c.id}
    first_by_id: dict[str, int] = {}
    for index, response in enumerate(responses):
        if response.id and response.id not in first_by_id:
            first_by_id[response.id] = index
    paired: list[Optional[int]] = []
    for call in calls:
        found = first_by_id.get(call.id) if call.id else None
        if found is not None and found not in used:
            used.add(found)
            paired.append(found)
        else:
            paired.append(None)
    free = [i for i, r in enumerate(responses) if i not in used and not (r.id and r.id in call_ids)]
    for position, call in enumerate(calls):
        if paired[position] is not None:
            continue
        match = next((i for i in free if i not in used and responses[i].name in (call.name, None)), None)
        if match is not None:
            used.add(match)
            paired[position] = match
    pairs: list[tuple[Optional[FunctionCall], Optional[FunctionResponse]]] = [
        (call, responses[index] if index is not None else None)
        for call, index in zip(calls, paired, strict=True)
    ]
    pairs.extend((None, r) for i, r in enumerate(responses) if i not in used)
    return pairs


def tool_steps(invocation: Invocation) -> list[dict[str, Any]]:
    """``[{"step", "tool_call", "tool_response"}]`` for the invocation's tool activity."""
    pairs = pair_calls(invocation.tool_calls(), invocation.tool_responses())
    return [
        {
            "step": number,
            "tool_call": _call(call) if call is not None else None,
            "tool_response": _response(response) if response is not None else None,
        }
        for number, (call, response) in enumerate(pairs, start=1)
    ]


def grounding_metadata(invocation: Invocation) -> list[Any]:
    """The grounding metadata of the invocation's events, in order."""
    return [e.grounding_metadata for e in _events(invocation) if e.grounding_metadata]


# -- hallucinations ------------------------------------------------------------------


def _spoken(parts: Optional[Sequence[Part]]) -> list[str]:
    """The non-thought, non-empty text parts."""
    return [p.text for p in parts or () if p.text and p.text.strip() and not p.thought]


def _event_entry(event: InvocationEvent) -> Optional[dict[str, Any]]:
    content = event.content
    parts = content.parts if content is not None else None
    entry: dict[str, Any] = {"author": event.author}
    text = "\n".join(_spoken(parts))
    if text:
        entry["text"] = text
    calls = [_call(p.function_call) for p in parts or () if p.function_call is not None]
    outputs = [_response(p.function_response) for p in parts or () if p.function_response is not None]
    if calls:
        entry["tool_calls"] = calls
    if outputs:
        entry["tool_outputs"] = outputs
    if event.grounding_metadata:
        entry["grounding_metadata"] = event.grounding_metadata
    return entry if len(entry) > 1 else None


def _final_echo(events: Sequence[InvocationEvent], final: str) -> Optional[int]:
    """The index of the last event when it only repeats the final response's text."""
    if not events or not final.strip():
        return None
    last = events[-1]
    texts = _spoken(last.content.parts if last.content is not None else None)
    return len(events) - 1 if texts and "\n".join(texts).strip() == final.strip() else None


@dataclass
class HallucinationStep:
    """One text to check and the context it may rely on."""

    kind: str  # "final_response" or "intermediate_response"
    text: str
    context: dict[str, Any] = field(default_factory=dict)
    author: Optional[str] = None


def _base_context(invocation: Invocation, expected: Optional[Invocation]) -> dict[str, Any]:
    app = app_details(invocation, expected)
    base: dict[str, Any] = {"user_prompt": user_text(invocation)}
    instructions = all_instructions(app)
    if instructions:
        base["developer_instructions"] = instructions
    declarations = tool_declarations(app)
    if declarations:
        base["tool_declarations"] = declarations
    return base


def hallucination_steps(
    invocation: Invocation, expected: Optional[Invocation] = None, *, intermediate: bool = False
) -> list[HallucinationStep]:
    """The texts ``hallucinations_v1`` checks, each with its context.

    Event form: with ``intermediate``, each non-thought text part of each event is a step
    whose context holds the *earlier* events (plus that event's own grounding metadata);
    the final response is a step whose context holds every event. Legacy form: the
    ``tool_uses`` / ``tool_responses`` pairs form the context of every step (their order
    relative to ``intermediate_responses`` is not recorded, so all are shown).
    """
    base = _base_context(invocation, expected)
    data = invocation.intermediate_data
    final = invocation.final_text()
    steps: list[HallucinationStep] = []
    if isinstance(data, InvocationEvents):
        events = list(data.invocation_events)
        entries = [_event_entry(e) for e in events]
        echo = _final_echo(events, final)
        if echo is not None and entries[echo] is not None:
            # The final text repeated as the last event is not evidence for itself.
            trimmed = {k: v for k, v in entries[echo].items() if k != "text"}  # type: ignore[union-attr]
            entries[echo] = trimmed if len(trimmed) > 1 else None
        if intermediate:
            for index, event in enumerate(events):
                if index == echo:
                    continue
                texts = _spoken(event.content.parts if event.content is not None else None)
                earlier = [e for e in entries[:index] if e is not None]
                for text in texts:
                    context = {**base, "events": earlier}
                    if event.grounding_metadata:
                        context["grounding_metadata_of_this_text"] = event.grounding_metadata
                    steps.append(HallucinationStep("intermediate_response", text, context, event.author))
        activity = [e for e in entries if e is not None]
        if final.strip():
            steps.append(HallucinationStep("final_response", final, {**base, "events": activity}))
        return steps
    legacy_tools = tool_steps(invocation) if isinstance(data, IntermediateData) else []
    context = {**base, "tool_activity": legacy_tools} if legacy_tools else dict(base)
    if intermediate and isinstance(data, IntermediateData):
        for author, parts in data.intermediate_responses:
            for text in _spoken(parts):
                steps.append(HallucinationStep("intermediate_response", text, dict(context), author))
    if final.strip():
        steps.append(HallucinationStep("final_response", final, dict(context)))
    return steps
