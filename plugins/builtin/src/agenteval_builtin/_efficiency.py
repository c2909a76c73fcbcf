"""What the efficiency criteria read from an invocation, as ADK 2.13 reads it.

* model calls: the ``invocation_events`` that carry ``usage_metadata`` or a
  ``model_version`` (ADK's test for a model-call event). The legacy ``tool_uses`` form
  records no model calls: the count is unknown there, not 0;
* tokens: each model call's usage metadata (Gemini's names, as ADK stores them), read as
  ADK's telemetry reads it: input = ``prompt_token_count`` + ``tool_use_prompt_token_count``,
  output = ``candidates_token_count`` + ``thoughts_token_count``, total = input + output
  (derived, not the reported total). A count no call reported stays ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional

from agenteval import InvocationScore
from agenteval.models import TOKEN_USAGE_KEYS, Invocation, InvocationEvent, InvocationEvents

__all__ = ["model_call_events", "per_turn_scores", "token_counts"]


def _is_model_call(event: InvocationEvent) -> bool:
    return event.usage_metadata is not None or event.model_version is not None


def model_call_events(invocation: Invocation) -> Optional[list[InvocationEvent]]:
    """The turn's model-call events; ``None`` when the turn is not in the event form."""
    data = invocation.intermediate_data
    if not isinstance(data, InvocationEvents):
        return None
    return [event for event in data.invocation_events if _is_model_call(event)]


def _add(total: Optional[float], count: Any) -> Optional[float]:
    if count is None:
        return total
    return (total or 0) + count


def _sum_if_any(first: Any, second: Any) -> Optional[int]:
    if first is None and second is None:
        return None
    return (first or 0) + (second or 0)


def _one_call(usage: Mapping[str, Any]) -> dict[str, Any]:
    def count(key: str) -> Any:
        return usage.get(key, usage.get(_camel(key)))

    prompt, tool = count("prompt_token_count"), count("tool_use_prompt_token_count")
    candidates, thoughts = count("candidates_token_count"), count("thoughts_token_count")
    return {
        "input_tokens": _sum_if_any(prompt, tool),
        "prompt_tokens": prompt,
        "cached_tokens": count("cached_content_token_count"),
        "tool_use_tokens": tool,
        "output_tokens": _sum_if_any(candidates, thoughts),
        "candidates_tokens": candidates,
        "reasoning_tokens": thoughts,
    }


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word.title() for word in rest)


def token_counts(invocation: Invocation) -> dict[str, Optional[float]]:
    """The turn's token counts (``agenteval.models.TOKEN_USAGE_KEYS``), summed over its model
    calls; every count ``None`` when no call reported usage (or the turn is not in the event
    form)."""
    totals: dict[str, Optional[float]] = dict.fromkeys(TOKEN_USAGE_KEYS)
    for event in model_call_events(invocation) or ():
        if event.usage_metadata is None:
            continue
        for key, value in _one_call(event.usage_metadata).items():
            totals[key] = _add(totals[key], value)
    if totals["input_tokens"] is not None or totals["output_tokens"] is not None:
        totals["total_tokens"] = (totals["input_tokens"] or 0) + (totals["output_tokens"] or 0)
    return totals


def per_turn_scores(
    breakdowns: Sequence[Mapping[str, Optional[float]]], key: str, reason: str, code: str
) -> list[InvocationScore]:
    """One score per turn: its ``key`` from its breakdown (the whole breakdown in
    ``details``), or NOT_EVALUATED with ``reason`` / ``code`` when the turn has none (never 0)."""
    return [
        InvocationScore(score=None, reason=reason, reason_code=code, details=dict(turn))
        if turn[key] is None
        else InvocationScore(score=turn[key], details=dict(turn))
        for turn in breakdowns
    ]
