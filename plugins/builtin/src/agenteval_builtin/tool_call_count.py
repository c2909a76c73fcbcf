"""``tool_call_count_v1``: how many tool calls each invocation made (informational)."""

from __future__ import annotations

from agenteval import EvaluationContext, Evaluator, EvaluatorInfo, InvocationScore, Score

__all__ = ["ToolCallCount"]


class ToolCallCount(Evaluator):
    """The number of tool calls per invocation, as ADK 2.13's ``tool_call_count_v1``.

    Score: a count (0 or more, no upper bound), reported, never passed or failed
    (informational: a threshold is an error). Per invocation: ``len(tool_calls())``,
    every call of the turn (legacy ``tool_uses``, or every ``function_call`` part of
    every event, sub-agents and ``transfer_to_agent`` included). Case score: the mean
    per invocation, not the total (sum ``per_invocation`` for that). Reference-free.
    No invocations: NOT_EVALUATED. ``reason``: none.
    """

    info = EvaluatorInfo(
        description="Tool calls per invocation (mean over the case); informational, as ADK.",
        min_score=0.0,
        max_score=None,
        higher_is_better=False,
        default_threshold=None,
        informational=True,
        shows_trajectory=True,
        reads=frozenset({"tool_calls"}),
    )

    def evaluate(self, ctx: EvaluationContext) -> Score:
        scores = [InvocationScore(score=float(len(inv.tool_calls()))) for inv in ctx.actual]
        return Score.mean_of(scores)
