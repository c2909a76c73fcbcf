"""Model calls an agent reports, as ADK records them: one ``invocation_events`` entry per
call, carrying the call's token usage as Gemini ``usage_metadata`` (the shape ADK's
``token_usage_v1`` reads) and the model name as ``model_version``.

A report is a mapping with either OpenAI's usage names (``prompt_tokens``,
``completion_tokens``, ``total_tokens``, ``prompt_tokens_details.cached_tokens``,
``completion_tokens_details.reasoning_tokens``) or Gemini's (``prompt_token_count``,
``candidates_token_count``, ``thoughts_token_count``, ``cached_content_token_count``,
``tool_use_prompt_token_count``, ``total_token_count``), not both; ``{}`` is a call whose
usage is unknown (counted as a call; its tokens stay unknown, never 0). OpenAI's
``completion_tokens`` include the reasoning tokens, Gemini's ``candidates_token_count``
does not: the reasoning tokens are moved to ``thoughts_token_count``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

__all__ = ["model_call_event", "usage_metadata"]

_GEMINI_KEYS = (
    "prompt_token_count",
    "candidates_token_count",
    "thoughts_token_count",
    "cached_content_token_count",
    "tool_use_prompt_token_count",
    "total_token_count",
)
_OPENAI_KEYS = (
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "prompt_tokens_details",
    "completion_tokens_details",
)


def _count(value: Any, name: str) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"usage {name}: expected a whole number of tokens (0 or more), got {value!r}")
    return value


def _detail(usage: Mapping[str, Any], group: str, key: str) -> Optional[int]:
    details = usage.get(group)
    if details is None:
        return None
    if not isinstance(details, Mapping):
        raise ValueError(f"usage {group}: expected an object, got {details!r}")
    return _count(details.get(key), f"{group}.{key}")


def usage_metadata(usage: Mapping[str, Any]) -> dict[str, int]:
    """One call's usage report (see the module docstring) as Gemini usage metadata, the
    counts it did not report left out. ``ValueError`` for unknown keys, a mix of the two
    namings, or counts that are not whole numbers."""
    if not isinstance(usage, Mapping):
        raise ValueError(f"a model call's usage is an object of token counts, got {usage!r}")
    keys = set(usage)
    unknown = keys - set(_GEMINI_KEYS) - set(_OPENAI_KEYS)
    if unknown:
        raise ValueError(
            f"usage has unknown keys {sorted(unknown)}; use OpenAI's names ({', '.join(_OPENAI_KEYS)}) "
            f"or Gemini's ({', '.join(_GEMINI_KEYS)})"
        )
    if keys & set(_GEMINI_KEYS) and keys & set(_OPENAI_KEYS):
        raise ValueError("usage mixes OpenAI's and Gemini's names for token counts; use one of them")
    if keys & set(_GEMINI_KEYS):
        counted = {key: _count(usage.get(key), key) for key in _GEMINI_KEYS}
        return {key: value for key, value in counted.items() if value is not None}
    completion = _count(usage.get("completion_tokens"), "completion_tokens")
    reasoning = _detail(usage, "completion_tokens_details", "reasoning_tokens")
    candidates = completion - reasoning if completion is not None and reasoning is not None else completion
    if candidates is not None and candidates < 0:
        raise ValueError(f"usage: reasoning_tokens ({reasoning}) exceed completion_tokens ({completion})")
    counted = {
        "prompt_token_count": _count(usage.get("prompt_tokens"), "prompt_tokens"),
        "candidates_token_count": candidates,
        "thoughts_token_count": reasoning,
        "cached_content_token_count": _detail(usage, "prompt_tokens_details", "cached_tokens"),
        "total_token_count": _count(usage.get("total_tokens"), "total_tokens"),
    }
    return {key: value for key, value in counted.items() if value is not None}


def model_call_event(author: str, usage: Mapping[str, Any], model: Optional[str] = None) -> dict[str, Any]:
    """An ``invocation_events`` entry for one model call (no content)."""
    return {"author": author, "usage_metadata": usage_metadata(usage), "model_version": model}
