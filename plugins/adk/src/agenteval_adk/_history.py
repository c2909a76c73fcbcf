"""A case's history (``EvalCase.history()``) as the ADK session events it would have left.

Each recorded turn becomes, in order and under the turn's invocation id (a new one when it
has none):

* the user's event (author ``user``, the turn's ``user_content``);
* its intermediate steps: in the event form, each recorded event with content; in the legacy
  form, each tool call followed by its response (by ``id``, else the next one of the same
  name), then the remaining responses and the text steps (``intermediate_responses``);
* its final response.

A step keeps its recorded author when that names an agent of the tree (a sub-agent's steps
stay its own); any other author (none, or a name the agent under evaluation does not have:
the history was recorded elsewhere) is the agent under evaluation, so its model sees its own
earlier calls and answers, not another agent's quoted "for context". The final response is
the last step's author's (so the runner routes the next message as ADK would), else the
agent under evaluation's.

A function call without an ``id`` gets ADK's client-side one (``adk-<uuid>``, which ADK strips
before a model sees it) and its response the same, so ADK pairs them as it pairs its own.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Optional

from agenteval.models import Content, IntermediateData, Invocation, Part

from ._events import to_genai_content

__all__ = ["history_events"]

#: ADK's prefix of the ids it gives function calls that have none.
_CLIENT_ID_PREFIX = "adk-"


def _steps(turn: Invocation, agent_name: str) -> list[tuple[str, Content]]:
    """The turn's intermediate steps as ``(author, content)``, in recorded order."""
    data = turn.intermediate_data
    if data is None:
        return []
    if not isinstance(data, IntermediateData):
        return [(e.author, e.content) for e in data.invocation_events if e.content and e.content.parts]
    steps: list[tuple[str, Content]] = []
    responses = list(data.tool_responses)
    for call in data.tool_uses:
        steps.append((agent_name, Content(role="model", parts=[Part(function_call=call)])))
        answer = next((r for r in responses if call.id and r.id == call.id), None)
        answer = answer or next((r for r in responses if not r.id and r.name == call.name), None)
        if answer is not None:
            responses.remove(answer)
            steps.append((agent_name, Content(role="user", parts=[Part(function_response=answer)])))
    steps += [(agent_name, Content(role="user", parts=[Part(function_response=r)])) for r in responses]
    steps += [(author, Content(role="model", parts=parts)) for author, parts in data.intermediate_responses]
    return steps


def _pair_ids(contents: Sequence[Any]) -> None:
    """Give id-less function calls ADK's client-side ids and their responses the same."""
    waiting: dict[Optional[str], list[str]] = {}
    for content in contents:
        for part in content.parts or ():
            call, answer = part.function_call, part.function_response
            if call is not None and not call.id:
                call.id = f"{_CLIENT_ID_PREFIX}{uuid.uuid4()}"
                waiting.setdefault(call.name, []).append(call.id)
            elif answer is not None and not answer.id and waiting.get(answer.name):
                answer.id = waiting[answer.name].pop(0)


def history_events(history: Sequence[Invocation], root: Any) -> list[Any]:
    """The ``google.adk.events.Event`` list a session holds after ``history`` (see the
    module docstring); ``root`` is the agent under evaluation."""
    from google.adk.events import Event

    agent_name = str(getattr(root, "name", "") or "agent")
    find = getattr(root, "find_agent", None)

    def author_of(recorded: str) -> str:
        known = find is None or (recorded != "user" and find(recorded) is not None)
        return recorded if known else agent_name

    events = []
    for turn in history:
        invocation_id = turn.invocation_id or Event.new_id()
        steps = [(author_of(author), content) for author, content in _steps(turn, agent_name)]
        written = [("user", turn.user_content), *steps]
        if turn.final_response is not None:
            final = turn.final_response.model_copy(update={"role": turn.final_response.role or "model"})
            written.append((steps[-1][0] if steps else agent_name, final))
        contents = [to_genai_content(content) for _, content in written]
        _pair_ids(contents)
        events += [
            Event(invocation_id=invocation_id, author=author, content=content)
            for (author, _), content in zip(written, contents, strict=True)
        ]
    return events
