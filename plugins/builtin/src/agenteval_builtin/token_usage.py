"""``token_usage_v1``: tokens spent per invocation, with ADK's breakdown (informational)."""

from __future__ import annotations

from typing import Optional

from agenteval import EvaluationContext, Evaluator, EvaluatorInfo, Score
from agenteval.models import TOKEN_USAGE_KEYS

from ._efficiency import per_turn_scores, token_counts

__all__ = ["TokenUsage"]

#: ``reason_code`` of a turn none of whose model calls reported token usage.
NO_TOKEN_USAGE = "no_token_usage"


class TokenUsage(Evaluator):
    """Tokens per invocation, as ADK 2.13's ``token_usage_v1``.

    Score: a token count (0 or more, no upper bound), reported, never passed or failed
    (informational: a threshold is an error). Per invocation: input + output tokens summed
    over the turn's model calls (input = prompt + tool-use prompt tokens, output =
    candidates + reasoning tokens; ``details`` holds the whole breakdown: ``total_tokens``,
    ``input_tokens``, ``prompt_tokens``, ``cached_tokens``, ``tool_use_tokens``,
    ``output_tokens``, ``candidates_tokens``, ``reasoning_tokens``, ``None`` for a count no
    call reported). A turn with no usage reported (legacy form, or a backend that reports
    none) is NOT_EVALUATED with ``reason_code`` ``no_token_usage``, never 0.

    Case score and ``details``: each count averaged over **all** the case's turns, a turn
    that did not report it counting as 0, as ADK averages (a backend leaves out a count a
    call did not spend); a count no turn reported stays ``None``, and when no turn
    reported any, the case is NOT_EVALUATED (``no_token_usage``). Reference-free.
    """

    info = EvaluatorInfo(
        description="Tokens per invocation (mean over the case) with ADK's breakdown; informational.",
        min_score=0.0,
        max_score=None,
        higher_is_better=False,
        default_threshold=None,
        informational=True,
        reads=frozenset(),
    )

    def evaluate(self, ctx: EvaluationContext) -> Score:
        counts = [token_counts(invocation) for invocation in ctx.actual]
        reason = "no model call of the turn reported token usage"
        scores = per_turn_scores(counts, "total_tokens", reason, NO_TOKEN_USAGE)
        if not counts:
            return Score.mean_of(scores)
        averaged = {field: _average([turn[field] for turn in counts]) for field in TOKEN_USAGE_KEYS}
        if averaged["total_tokens"] is None:
            return Score.not_evaluated(
                "no model call of the case reported token usage",
                NO_TOKEN_USAGE,
                per_invocation=scores,
                details=averaged,
            )
        return Score(value=averaged["total_tokens"], per_invocation=scores, details=averaged)


def _average(values: list[Optional[float]]) -> Optional[float]:
    present = [value for value in values if value is not None]
    return sum(present) / len(values) if present else None
