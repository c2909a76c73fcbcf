"""Content and parts: JSON-compatible with google-genai's ``Content`` / ``Part``.

The engine does not depend on google-genai. These models accept every key genai 2.x's
``Part`` accepts (snake_case or camelCase) and reject unknown keys, as genai does. Only the
fields agenteval reads are modelled in depth (text, thought, function calls and
responses); the others are kept as plain JSON so that a file round-trips unchanged.
"""

from __future__ import annotations

from typing import Any, Optional

from ._base import AdkModel

__all__ = ["Content", "FunctionCall", "FunctionResponse", "Part"]

JsonObject = dict[str, Any]


class FunctionCall(AdkModel):
    """A tool call. Only ``name`` and ``args`` ever take part in a comparison."""

    id: Optional[str] = None
    name: Optional[str] = None
    args: Optional[JsonObject] = None
    partial_args: Optional[list[JsonObject]] = None
    will_continue: Optional[bool] = None


class FunctionResponse(AdkModel):
    """A tool's response, paired with its call by ``id`` when both carry one."""

    id: Optional[str] = None
    name: Optional[str] = None
    response: Optional[JsonObject] = None
    will_continue: Optional[bool] = None
    scheduling: Optional[str] = None
    parts: Optional[list[JsonObject]] = None


class Part(AdkModel):
    """One part of a message: text, a thought, a function call or response, or media."""

    text: Optional[str] = None
    thought: Optional[bool] = None
    thought_signature: Optional[str] = None
    function_call: Optional[FunctionCall] = None
    function_response: Optional[FunctionResponse] = None
    inline_data: Optional[JsonObject] = None
    file_data: Optional[JsonObject] = None
    executable_code: Optional[JsonObject] = None
    code_execution_result: Optional[JsonObject] = None
    video_metadata: Optional[JsonObject] = None
    media_resolution: Optional[JsonObject] = None
    tool_call: Optional[JsonObject] = None
    tool_response: Optional[JsonObject] = None
    part_metadata: Optional[JsonObject] = None
    audio_transcription: Optional[JsonObject] = None
    media_processing: Optional[JsonObject] = None
    speech_metadata: Optional[JsonObject] = None


class Content(AdkModel):
    """A message: a role (``user``, ``model``, or anything the writer used) and parts."""

    role: Optional[str] = None
    parts: Optional[list[Part]] = None

    @classmethod
    def from_text(cls, text: Optional[str], role: str = "user") -> Content:
        """A one-part text message."""
        return cls(role=role, parts=[Part(text=text)])

    def text(self) -> str:
        """The ``text`` of every part joined with newlines, as ADK reads a response.

        Parts whose text is missing or empty are skipped; thought parts are *not*
        excluded (ADK 2.13 includes them). A content without parts gives ``""``.
        """
        return "\n".join(p.text for p in self.parts or () if p.text)
