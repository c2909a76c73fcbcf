"""Content and parts: JSON-compatible with google-genai's ``Content`` / ``Part``.

The engine does not depend on google-genai. These models accept every key genai 2.x's
``Part`` accepts (snake_case or camelCase) and reject unknown keys, as genai does. Only the
fields agenteval reads are modelled in depth (text, thought, function calls and
responses); the others are kept as plain JSON so that a file round-trips unchanged. The
bytes of ``inline_data`` are checked as genai reads them (base64, standard or URL-safe,
padding optional): a file genai refuses is refused here at load, not by the agent.
"""

from __future__ import annotations

from typing import Any, Optional

import pydantic_core
from pydantic import ConfigDict, TypeAdapter, ValidationError, field_validator

from ._base import AdkModel

__all__ = ["Content", "FunctionCall", "FunctionResponse", "Part"]

JsonObject = dict[str, Any]

#: How google-genai's ``Blob.data`` (bytes) reads JSON: base64, by pydantic's own decoder.
_BLOB_BYTES: TypeAdapter[bytes] = TypeAdapter(bytes, config=ConfigDict(val_json_bytes="base64"))


class FunctionCall(AdkModel):
    """A tool call. Only ``name`` and ``args`` ever take part in a comparison.

    ``name`` is required and not blank (a call to no tool can match nothing).
    """

    id: Optional[str] = None
    name: str
    args: Optional[JsonObject] = None
    partial_args: Optional[list[JsonObject]] = None
    will_continue: Optional[bool] = None

    @field_validator("name")
    @classmethod
    def _named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a tool call needs the tool's name; 'name' is empty")
        return value


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

    @field_validator("inline_data")
    @classmethod
    def _base64_data(cls, value: Optional[JsonObject]) -> Optional[JsonObject]:
        data = value.get("data") if value else None
        if data is None:
            return value
        try:
            _BLOB_BYTES.validate_json(pydantic_core.to_json(data) if isinstance(data, str) else b"0")
        except ValidationError:
            shown = repr(data) if len(repr(data)) <= 40 else repr(data)[:39] + "…"
            raise ValueError(
                f"inline_data.data {shown} is not base64; google-genai reads media bytes as base64 "
                "(standard or URL-safe): encode the bytes so"
            ) from None
        return value


#: The roles a message may have, as in google-genai's ``Content`` (tool responses are
#: ``user`` messages).
ROLES = ("user", "model")
_ROLE_HINTS = {"assistant": "model", "agent": "model", "bot": "model", "human": "user", "tool": "user"}


class Content(AdkModel):
    """A message: a role (``user``, ``model`` or none) and parts."""

    role: Optional[str] = None
    parts: Optional[list[Part]] = None

    @field_validator("role")
    @classmethod
    def _known_role(cls, value: Optional[str]) -> Optional[str]:
        if value is None or value in ROLES:
            return value
        hint = _ROLE_HINTS.get(value.strip().lower())
        fix = f"did you mean {hint!r}? " if hint else ""
        raise ValueError(f"unknown role {value!r}; {fix}a message's role is 'user' or 'model' (or left out)")

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
