"""Pydantic base classes that reproduce ADK 2.13's key-spelling and unknown-key rules.

ADK's nested eval models accept both snake_case and camelCase keys and reject unknown
keys; a few models (``EvalCase``, ``SessionInput``) keep unknown keys, and
``InvocationEvent`` drops them. We mirror each rule per model so that a file ADK accepts
loads here and a file ADK rejects is rejected here too (with a better message).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

__all__ = ["AdkModel", "AdkModelKeepExtra", "AdkModelIgnoreExtra"]

_COMMON = ConfigDict(
    alias_generator=to_camel,
    populate_by_name=True,
    # Error locations use the Python (snake_case) field names, which is what ADK's docs
    # and most hand-written files use, not the camelCase aliases.
    loc_by_alias=False,
    ser_json_bytes="base64",
    val_json_bytes="base64",
    # Fields such as ``model_version`` are ADK's names; older pydantic warns about them.
    protected_namespaces=(),
)


class AdkModel(BaseModel):
    """Accepts snake_case and camelCase keys; rejects unknown keys."""

    model_config = ConfigDict(**_COMMON, extra="forbid")


class AdkModelKeepExtra(BaseModel):
    """Accepts snake_case and camelCase keys; keeps unknown keys (round-tripped)."""

    model_config = ConfigDict(**_COMMON, extra="allow")


class AdkModelIgnoreExtra(BaseModel):
    """Accepts snake_case and camelCase keys; drops unknown keys."""

    model_config = ConfigDict(**_COMMON, extra="ignore")
