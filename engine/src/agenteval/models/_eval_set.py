"""Eval sets and eval cases, as in ADK's ``*.test.json`` / ``*.evalset.json`` files.

Key rules (ADK 2.13): the ``EvalSet`` top level takes snake_case keys only; its unknown
keys, which ADK ignores, are kept here and reported as warnings by the loader;
``EvalCase`` and ``SessionInput`` accept both spellings and keep unknown keys; everything
below rejects unknown keys.
"""

from __future__ import annotations

from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ._base import AdkModel, AdkModelKeepExtra
from ._checks import check_id, check_unique_rubric_ids
from ._invocation import Invocation
from ._rubric import Rubric

__all__ = [
    "BUILTIN_PERSONAS",
    "ConversationScenario",
    "EvalCase",
    "EvalSet",
    "SessionInput",
    "UserBehavior",
    "UserPersona",
]


class SessionInput(AdkModelKeepExtra):
    """How the agent's session starts: app, user, optional pinned session id, state."""

    app_name: str
    user_id: str
    session_id: Optional[str] = None
    state: dict[str, Any] = Field(default_factory=dict)


class UserBehavior(AdkModel):
    """One behaviour of a simulated user's persona."""

    name: str
    description: str
    behavior_instructions: list[str] = []
    violation_rubrics: list[str] = []


class UserPersona(AdkModel):
    """A simulated user's persona."""

    id: str
    description: str
    behaviors: list[UserBehavior] = []


#: The ids of ADK's built-in personas, which a scenario may name instead of giving one.
BUILTIN_PERSONAS = ("EXPERT", "NOVICE", "EVALUATOR")


class ConversationScenario(AdkModel):
    """A conversation played by a simulated user instead of a fixed list of turns.

    ``user_persona`` is a persona object or the id of a built-in persona
    (``BUILTIN_PERSONAS``; any other id is an error, as in ADK).
    """

    starting_prompt: str
    conversation_plan: str
    user_persona: Optional[Union[UserPersona, str]] = None

    @field_validator("user_persona")
    @classmethod
    def _known_persona(cls, value: Optional[Union[UserPersona, str]]) -> Optional[Union[UserPersona, str]]:
        if not isinstance(value, str) or value in BUILTIN_PERSONAS:
            return value
        upper = value.strip().upper()
        hint = f"did you mean {upper!r}? " if upper in BUILTIN_PERSONAS else ""
        msg = (
            f"unknown persona {value!r}; {hint}the built-in personas are {', '.join(BUILTIN_PERSONAS)}, "
            'or give one as an object {"id": ..., "description": ..., "behaviors": [...]}'
        )
        raise ValueError(msg)


class EvalCase(AdkModelKeepExtra):
    """One test case: a fixed conversation *or* a conversation scenario (exactly one).

    ``context_turns`` (not an ADK field, never written to a file): how many leading turns of
    ``conversation`` are context only, the history the judged turns follow (an Agent Platform
    dataset's ``conversation_history``). The engine hands criteria only the turns after them
    (``EvaluationContext.actual`` / ``expected``; the context is ``EvaluationContext.history``),
    so a criterion scores what the case judges. 0 (every turn judged) unless a reader sets it;
    it is less than the number of turns, and 0 for a scenario case. With ``--agent``, an
    adapter that takes history (``agenteval.plugins.Agent.takes_history``) starts the session
    with ``history()`` and only the later turns are sent.
    """

    eval_id: str
    conversation: Optional[list[Invocation]] = None
    conversation_scenario: Optional[ConversationScenario] = None
    session_input: Optional[SessionInput] = None
    creation_timestamp: float = 0.0
    rubrics: Optional[list[Rubric]] = None
    final_session_state: Optional[dict[str, Any]] = Field(default_factory=dict)
    context_turns: int = Field(default=0, ge=0, exclude=True)

    @field_validator("eval_id")
    @classmethod
    def _id(cls, value: str) -> str:
        return check_id(value, "eval_id")

    @field_validator("rubrics")
    @classmethod
    def _unique_rubrics(cls, value: Optional[list[Rubric]]) -> Optional[list[Rubric]]:
        check_unique_rubric_ids(rubric.rubric_id for rubric in value or ())
        return value

    @model_validator(mode="after")
    def _rubric_ids_unique_per_turn(self) -> EvalCase:
        """Case rubrics are added to each turn's own (as ADK does): their ids must differ."""
        case_ids = [rubric.rubric_id for rubric in self.rubrics or ()]
        for index, turn in enumerate(self.conversation or ()):
            if case_ids and turn.rubrics:
                turn_ids = [rubric.rubric_id for rubric in turn.rubrics]
                check_unique_rubric_ids([*case_ids, *turn_ids], f"in 'rubrics' and in conversation[{index}]")
        return self

    @model_validator(mode="after")
    def _one_conversation_kind(self) -> EvalCase:
        has_conversation = self.conversation is not None
        has_scenario = self.conversation_scenario is not None
        if has_conversation == has_scenario:
            both = "both" if has_conversation else "neither"
            msg = (
                f"a case needs exactly one of 'conversation' (fixed turns) and "
                f"'conversation_scenario' (simulated user); it has {both}"
            )
            raise ValueError(msg)
        return self

    def history(self) -> list[Invocation]:
        """The context turns (the first ``context_turns`` of ``conversation``, as recorded):
        the conversation the judged turns follow; ``[]`` for most cases."""
        return list((self.conversation or [])[: self.context_turns])

    @model_validator(mode="after")
    def _context_before_a_judged_turn(self) -> EvalCase:
        turns = len(self.conversation or ())
        if self.context_turns and self.context_turns >= turns:
            msg = (
                f"context_turns is {self.context_turns}, but the case has {turns} turn(s); "
                "at least the last turn is judged"
            )
            raise ValueError(msg)
        return self


class EvalSet(BaseModel):
    """A named list of eval cases: the content of one eval file."""

    model_config = ConfigDict(extra="allow")

    eval_set_id: str
    name: Optional[str] = None
    description: Optional[str] = None
    eval_cases: list[EvalCase]
    creation_timestamp: float = 0.0

    @field_validator("eval_set_id")
    @classmethod
    def _id(cls, value: str) -> str:
        return check_id(value, "eval_set_id", names_files=True)

    def case(self, eval_id: str) -> EvalCase:
        """The case with this id (``KeyError`` if there is none)."""
        for case in self.eval_cases:
            if case.eval_id == eval_id:
                return case
        raise KeyError(eval_id)

    def to_json(self, *, compact: bool = True, indent: Optional[int] = 2) -> str:
        """Serialise as ADK writes eval sets: snake_case keys.

        ``compact=True`` leaves out unset fields (a loaded file round-trips to the same
        data, explicit nulls included); ``compact=False`` spells out every field.
        """
        return self.model_dump_json(indent=indent, exclude_unset=compact, by_alias=False)
