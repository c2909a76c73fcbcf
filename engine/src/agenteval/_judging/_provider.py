"""The judge-model provider contract (entry-point group ``agenteval.judge_models``).

A provider turns a ``JudgeRequest`` into one model call. The engine's ``JudgeService``
wraps every call with the run's concurrency limit, retries with backoff, a timeout and the
cache, so a provider stays small: build the SDK client lazily, translate the request, and
map SDK errors to ``JudgeCallError``.

    [project.entry-points."agenteval.judge_models"]
    gemini = "agenteval_llm_judges.providers.gemini:GeminiJudge"

A judge model is named ``provider:model`` (``openai:llama3``); a name without a known
provider prefix goes to the provider whose ``claims(name)`` accepts it (Gemini claims
``gemini-*``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from ._types import JudgeRequest, JudgeResponse

__all__ = ["JudgeModel"]


class JudgeModel(ABC):
    """A provider's model client. One instance per (provider, model) per run.

    Attributes:
        model: the model name without the provider prefix.
    """

    #: Models this provider answers for without a ``provider:`` prefix (glob patterns).
    unprefixed_patterns: ClassVar[tuple[str, ...]] = ()

    def __init__(self, model: str) -> None:
        self.model = model

    @abstractmethod
    async def generate(self, request: JudgeRequest) -> JudgeResponse:
        """Make one call. Raise ``JudgeCallError`` for failures (``retryable`` as fits)."""

    def check_ready(self) -> None:  # noqa: B027 - an optional hook, a no-op by default
        """Preflight before any work: raise ``agenteval.errors.ConfigError`` saying exactly what
        to set when credentials or endpoints are missing. Must not call the model."""

    def identity(self) -> dict[str, Any]:
        """What distinguishes this model's answers in the cache key (provider, model,
        endpoint...). Never include secrets."""
        return {"provider": type(self).__module__ + "." + type(self).__qualname__, "model": self.model}

    async def aclose(self) -> None:  # noqa: B027 - an optional hook, a no-op by default
        """Release the client at the end of a run."""
