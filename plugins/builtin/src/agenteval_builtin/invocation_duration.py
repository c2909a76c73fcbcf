"""``invocation_duration_v1``: seconds per invocation and where they went (informational)."""

from __future__ import annotations

from typing import Optional

from agenteval import EvaluationContext, Evaluator, EvaluatorInfo, Score
from agenteval.models import DURATION_KEYS, Invocation

from ._efficiency import per_turn_scores

__all__ = ["InvocationDuration"]

#: ``reason_code`` of a turn that carries no duration (read from a file, not run).
NOT_TIMED = "not_timed"


def _parts(invocation: Invocation) -> dict[str, Optional[float]]:
    if invocation.duration is None:
        return dict.fromkeys(DURATION_KEYS)
    model, tool = invocation.model_duration, invocation.tool_duration
    framework = (
        None if model is None or tool is None else round(max(invocation.duration - model - tool, 0.0), 3)
    )
    return {
        "total_seconds": invocation.duration,
        "model_seconds": model,
        "tool_seconds": tool,
        "framework_seconds": framework,
    }


class InvocationDuration(Evaluator):
    """Wall-clock seconds per invocation, as ADK 2.13's ``invocation_duration_v1``.

    Score: seconds (0 or more, no upper bound), reported, never passed or failed
    (informational: a threshold is an error). Per invocation: the turn's ``duration``;
    ``details`` splits it into ``model_seconds`` and ``tool_seconds`` (when the adapter
    measured them: the ``adk`` adapter does) and ``framework_seconds`` (the rest, clamped
    at 0; ``None`` unless both others are known). A turn with no ``duration`` (read from
    a file rather than run by agenteval) is NOT_EVALUATED with ``reason_code``
    ``not_timed``, never 0. Case score and ``details``: each part averaged over the turns
    that have it, rounded to milliseconds, as ADK does. Wall-clock time is noisy: read it
    as an indication and judge a regression on the counts. Reference-free.
    """

    info = EvaluatorInfo(
        description="Seconds per invocation (mean over the case), split model/tool/framework; informational.",
        min_score=0.0,
        max_score=None,
        higher_is_better=False,
        default_threshold=None,
        informational=True,
        reads=frozenset(),
    )

    def evaluate(self, ctx: EvaluationContext) -> Score:
        parts = [_parts(invocation) for invocation in ctx.actual]
        reason = "the turn carries no duration (it was not run by agenteval)"
        scores = per_turn_scores(parts, "total_seconds", reason, NOT_TIMED)
        if not parts:
            return Score.mean_of(scores)
        averaged = {part: _average([turn[part] for turn in parts]) for part in DURATION_KEYS}
        if averaged["total_seconds"] is None:
            return Score.not_evaluated(
                "no turn of the case carries a duration", NOT_TIMED, per_invocation=scores
            )
        return Score(value=averaged["total_seconds"], per_invocation=scores, details=averaged)


def _average(values: list[Optional[float]]) -> Optional[float]:
    present = [value for value in values if value is not None]
    return round(sum(present) / len(present), 3) if present else None
