"""``judge_model_options``: ADK's keys and ours, shared by every judge criterion."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import Field, field_validator

from .._evaluator import Params
from .._secrets import register_secrets_in

__all__ = ["DEFAULT_JUDGE_MODEL", "JudgeOptions"]

DEFAULT_JUDGE_MODEL = "gemini-2.5-flash"


class JudgeOptions(Params):
    """How a criterion calls its judge.

    ADK's keys: ``judge_model`` (``provider:model`` or a Gemini name; default
    ``gemini-2.5-flash``), ``judge_model_config`` (extra generation settings, passed to
    the provider), ``num_samples`` (answers per question, majority vote; default 5) and
    ``parallelism_limit`` (accepted for compatibility; the run-wide ``--judge-concurrency``
    governs instead, since ADK's default of 1 makes every call wait for the previous one).

    Ours: ``concurrency`` (a cap for this criterion within the run-wide limit),
    ``temperature``, ``timeout_seconds`` per call (wall time, default 60), ``max_retries``
    on 429, 5xx, timeouts and dropped connections (default 3: four attempts), and
    ``max_response_bytes``, the largest answer body accepted (default 2 MB; a larger one
    is NOT_EVALUATED ``judge_response_too_large`` and is not read further).
    """

    judge_model: str = DEFAULT_JUDGE_MODEL
    judge_model_config: Optional[dict[str, Any]] = None
    num_samples: int = Field(default=5, ge=1, le=100)
    parallelism_limit: Optional[int] = Field(default=None, ge=1)
    concurrency: Optional[int] = Field(default=None, ge=1)
    temperature: Optional[float] = Field(default=None, ge=0.0, le=2.0)
    timeout_seconds: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=20)
    max_response_bytes: int = Field(default=2_000_000, ge=1_000)

    @field_validator("judge_model_config")
    @classmethod
    def _credentials_are_secrets(cls, config: Optional[dict[str, Any]]) -> Optional[dict[str, Any]]:
        register_secrets_in(config)  # a key given here is scrubbed as the environment's are
        return config
