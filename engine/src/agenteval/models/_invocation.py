"""One turn of a conversation (``Invocation``) and its intermediate data, in both forms.

* legacy ``IntermediateData``: ``tool_uses``, ``tool_responses`` and
  ``intermediate_responses`` (``[author, [parts]]`` pairs);
* event form ``InvocationEvents``: ``invocation_events``, a list of
  ``{author, content, ...}`` events, as ADK's inference writes them.

``{}`` is the legacy form (as in ADK); mixing keys of the two forms is an error.
"""

from __future__ import annotations

from typing import Annotated, Any, Optional, Union

from pydantic import Discriminator, Field, PrivateAttr, Tag, field_validator

from ._base import AdkModel, AdkModelIgnoreExtra
from ._checks import check_unique_rubric_ids
from ._content import Content, FunctionCall, FunctionResponse, Part
from ._missing import MissingInput
from ._rubric import Rubric

__all__ = [
    "AgentDetails",
    "AppDetails",
    "IntermediateData",
    "Invocation",
    "InvocationEvent",
    "InvocationEvents",
]


class IntermediateData(AdkModel):
    """Legacy intermediate data, the form hand-written expected data normally uses."""

    tool_uses: list[FunctionCall] = []
    tool_responses: list[FunctionResponse] = []
    intermediate_responses: list[tuple[str, list[Part]]] = []


class InvocationEvent(AdkModelIgnoreExtra):
    """One event the agent emitted during a turn. Unknown keys are dropped, as in ADK."""

    author: str
    content: Optional[Content] = None
    grounding_metadata: Optional[dict[str, Any]] = None
    usage_metadata: Optional[dict[str, Any]] = None
    model_version: Optional[str] = None


class InvocationEvents(AdkModel):
    """Event-form intermediate data, as written by ADK's inference and ``adk web``."""

    invocation_events: list[InvocationEvent] = Field(default_factory=list)


def _intermediate_form(value: Any) -> str:
    if isinstance(value, dict):
        is_events = "invocation_events" in value or "invocationEvents" in value
    else:
        is_events = isinstance(value, InvocationEvents)
    return "events" if is_events else "legacy"


IntermediateDataType = Annotated[
    Union[
        Annotated[IntermediateData, Tag("legacy")],
        Annotated[InvocationEvents, Tag("events")],
    ],
    Discriminator(_intermediate_form),
]


#: A duration in seconds.
_Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class AgentDetails(AdkModel):
    """An agent's name, its rendered instructions and its tool declarations."""

    name: str
    instructions: str = ""
    tool_declarations: list[Any] = []


class AppDetails(AdkModel):
    """The agents taking part in an invocation, keyed by agent name."""

    agent_details: dict[str, AgentDetails] = {}


class Invocation(AdkModel):
    """One user turn and the agent's answer to it, with what happened in between."""

    invocation_id: str = ""
    user_content: Content
    final_response: Optional[Content] = None
    intermediate_data: Optional[IntermediateDataType] = None
    creation_timestamp: float = 0.0
    #: Seconds (the turn's, and the union of its model and of its tool intervals): finite and
    #: never negative, else the file is refused at its JSON path.
    duration: Optional[_Seconds] = None
    model_duration: Optional[_Seconds] = None
    tool_duration: Optional[_Seconds] = None
    rubrics: Optional[list[Rubric]] = None
    app_details: Optional[AppDetails] = None
    #: What the recording of this turn lacks (never read from or written to a file).
    _missing_inputs: tuple[MissingInput, ...] = PrivateAttr(default=())

    @field_validator("rubrics")
    @classmethod
    def _unique_rubrics(cls, value: Optional[list[Rubric]]) -> Optional[list[Rubric]]:
        check_unique_rubric_ids(rubric.rubric_id for rubric in value or ())
        return value

    def missing_inputs(self) -> tuple[MissingInput, ...]:
        """What the recording of this turn lacks (``()`` for a complete turn)."""
        # (read from pydantic's private store at once: every criterion asks it of every turn)
        private = self.__pydantic_private__
        return private.get("_missing_inputs", ()) if private else ()

    def mark_missing(self, missing: tuple[MissingInput, ...]) -> None:
        """Record what this turn lacks (a reader of lossy recordings calls it)."""
        self._missing_inputs = tuple(missing)

    def final_text(self) -> str:
        """The final response's text (parts joined with newlines); ``""`` if none."""
        return self.final_response.text() if self.final_response is not None else ""

    def tool_calls(self) -> list[FunctionCall]:
        """Every tool call of the turn, in order.

        Legacy form: ``tool_uses`` as is. Event form: every ``function_call`` part of
        every event, from every author (sub-agents and ``transfer_to_agent`` included).
        No intermediate data gives ``[]``.
        """
        data = self.intermediate_data
        if data is None:
            return []
        if isinstance(data, IntermediateData):
            return list(data.tool_uses)
        return [
            part.function_call
            for event in data.invocation_events
            if event.content is not None
            for part in event.content.parts or ()
            if part.function_call is not None
        ]

    def tool_responses(self) -> list[FunctionResponse]:
        """Every tool response of the turn, in order (the analogue of ``tool_calls``)."""
        data = self.intermediate_data
        if data is None:
            return []
        if isinstance(data, IntermediateData):
            return list(data.tool_responses)
        return [
            part.function_response
            for event in data.invocation_events
            if event.content is not None
            for part in event.content.parts or ()
            if part.function_response is not None
        ]

    def intermediate_texts(self) -> list[tuple[str, str]]:
        """``(author, text)`` of the natural-language steps before the final response.

        Legacy form: ``intermediate_responses``. Event form: the text of events that
        carry text and no function call or response.
        """
        data = self.intermediate_data
        if data is None:
            return []
        if isinstance(data, IntermediateData):
            return [
                (author, "\n".join(p.text for p in parts if p.text))
                for author, parts in data.intermediate_responses
            ]
        steps = []
        for event in data.invocation_events:
            if event.content is None or not event.content.parts:
                continue
            parts = event.content.parts
            if any(p.function_call or p.function_response for p in parts):
                continue
            text = event.content.text()
            if text:
                steps.append((event.author, text))
        return steps
