"""What a judge model is asked and what it answers (provider-neutral)."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["JudgeRequest", "JudgeResponse", "JudgeUsage"]


class JudgeUsage(BaseModel):
    """Tokens one call (or a sum of calls) used; 0 when the provider did not report them."""

    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: JudgeUsage) -> JudgeUsage:
        return JudgeUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
        )


class JudgeRequest(BaseModel):
    """One question to a judge model.

    Attributes:
        prompt: the user message (untrusted text inside it must already be delimited).
        system_instruction: optional system message.
        response_schema: a JSON schema the answer must follow; providers that support
            structured output send it (Gemini ``response_schema``, OpenAI
            ``response_format``), the others ignore it (the prompt still says the format).
        temperature / max_output_tokens: generation settings (``None``: the model's own).
        config: further provider-specific generation settings (ADK's
            ``judge_model_config``), passed through as given.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt: str
    system_instruction: Optional[str] = None
    response_schema: Optional[dict[str, Any]] = None
    temperature: Optional[float] = None
    max_output_tokens: Optional[int] = None
    config: dict[str, Any] = Field(default_factory=dict)


class JudgeResponse(BaseModel):
    """A judge model's answer: its text, the tokens it used, and the model version."""

    model_config = ConfigDict(frozen=True)

    text: str
    usage: JudgeUsage = Field(default_factory=JudgeUsage)
    model_version: Optional[str] = None
    cached: bool = False
