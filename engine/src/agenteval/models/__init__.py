"""The eval data model, JSON-compatible with ADK 2.13's eval files.

See ``docs/data-model.md`` for the key-spelling and unknown-key rules.
"""

from ._content import Content, FunctionCall, FunctionResponse, Part
from ._efficiency import DURATION_KEYS, TOKEN_USAGE_KEYS
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
from ._rubric import RUBRIC_TYPES, Rubric, RubricContent

__all__ = [
    "DURATION_KEYS",
    "INVOCATION_INPUTS",
    "RUBRIC_TYPES",
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
    "TOKEN_USAGE_KEYS",
    "UserBehavior",
    "UserPersona",
]
