"""Rubrics: yes/no properties a judge checks. Carried by criteria, cases or invocations."""

from __future__ import annotations

from typing import Optional

from ._base import AdkModel

__all__ = ["Rubric", "RubricContent"]


class RubricContent(AdkModel):
    """The text of a rubric's property."""

    text_property: Optional[str] = None


class Rubric(AdkModel):
    """A property to check. ``type`` is conventionally ``FINAL_RESPONSE_QUALITY``,
    ``TOOL_USE_QUALITY`` or ``TRAJECTORY_QUALITY``."""

    rubric_id: str
    rubric_content: RubricContent
    description: Optional[str] = None
    type: Optional[str] = None
