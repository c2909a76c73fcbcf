"""Rubrics: yes/no properties a judge checks. Carried by criteria, cases or invocations."""

from __future__ import annotations

from typing import Optional

from pydantic import field_validator

from ._base import AdkModel
from ._checks import check_id

__all__ = ["RUBRIC_TYPES", "Rubric", "RubricContent"]

#: The rubric types ADK's rubric criteria select by (an untyped rubric is kept too).
RUBRIC_TYPES = ("FINAL_RESPONSE_QUALITY", "TOOL_USE_QUALITY", "TRAJECTORY_QUALITY")


class RubricContent(AdkModel):
    """The text of a rubric's property."""

    text_property: Optional[str] = None


class Rubric(AdkModel):
    """A property to check. ``type`` is one of ``RUBRIC_TYPES`` or left out; ``rubric_id``
    is not blank."""

    rubric_id: str
    rubric_content: RubricContent
    description: Optional[str] = None
    type: Optional[str] = None

    @field_validator("rubric_id")
    @classmethod
    def _id(cls, value: str) -> str:
        return check_id(value, "rubric_id")

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: Optional[str]) -> Optional[str]:
        if value is None or value in RUBRIC_TYPES:
            return value
        upper = value.strip().upper()
        fix = f"did you mean {upper!r}? " if upper in RUBRIC_TYPES else ""
        raise ValueError(
            f"unknown rubric type {value!r}; {fix}valid: {', '.join(RUBRIC_TYPES)} (or left out)"
        )
