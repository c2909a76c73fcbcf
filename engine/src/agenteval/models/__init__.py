"""The eval data model, JSON-compatible with ADK 2.13's eval files.

See ``docs/data-model.md`` for the key-spelling and unknown-key rules.
"""

from ._content import Content, FunctionCall, FunctionResponse, Part
from ._eval_set import (
    ConversationScenario,
    EvalCase,
    EvalSet,
    SessionInput,
    UserBehavior,
    UserPersona,
)
from ._invocation import (
    AgentDetails,
    AppDetails,
    IntermediateData,
    Invocation,
    InvocationEvent,
    InvocationEvents,
)
from ._missing import INVOCATION_INPUTS, InvocationInput, MissingInput
from ._rubric import Rubric, RubricContent

__all__ = [
    "INVOCATION_INPUTS",
    "AgentDetails",
    "AppDetails",
    "Content",
    "ConversationScenario",
    "EvalCase",
    "EvalSet",
    "FunctionCall",
    "FunctionResponse",
    "IntermediateData",
    "Invocation",
    "InvocationEvent",
    "InvocationEvents",
    "InvocationInput",
    "MissingInput",
    "Part",
    "Rubric",
    "RubricContent",
    "SessionInput",
    "UserBehavior",
    "UserPersona",
]
