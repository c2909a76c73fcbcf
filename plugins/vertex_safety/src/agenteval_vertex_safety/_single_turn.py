"""Criteria that score each invocation with its own call (``safety_v1``,
``response_evaluation_score``): the case score is the mean of the scored invocations."""

from __future__ import annotations

import asyncio
import math
from typing import Optional

from agenteval import EvaluationContext, InvocationScore, Score, explain_scores
from agenteval.models import Invocation

from ._vertex_criterion import VertexCriterion
from .provider import build_instance

__all__ = ["SingleTurnVertexCriterion"]


class SingleTurnVertexCriterion(VertexCriterion):
    """Each invocation with a final response is one call; the case score is the mean of the
    scored invocations (NOT_EVALUATED when none was)."""

    def planned_judge_calls(self, ctx: EvaluationContext) -> int:
        return sum(1 for got in ctx.actual if got.final_text().strip())

    def skip(self, ctx: EvaluationContext) -> Optional[Score]:
        """A case-level NOT_EVALUATED before any call, else ``None``."""
        return None

    async def evaluate(self, ctx: EvaluationContext) -> Score:
        if ctx.judge is None:
            return Score.not_evaluated("no judge service was given to this criterion", "no_judge")
        skipped = self.skip(ctx)
        if skipped is not None:
            return skipped
        items = list(await asyncio.gather(*(self._invocation(ctx, got) for got in ctx.actual)))
        scored = [s.score for s in items if s.score is not None]
        details = {"metric": self.METRIC, "scored_invocations": len(scored)}
        if not items:
            return Score.not_evaluated(
                "the case has no invocations to score", "no_invocations", details=details
            )
        if not scored:
            codes = {s.reason_code for s in items}
            code = codes.pop() if len(codes) == 1 and None not in codes else "no_scored_invocations"
            where = "invocation #1: " if len(items) > 1 else ""
            reason = f"no invocation could be scored; {where}{items[0].reason or code}"
            return Score(value=None, reason=reason, reason_code=code, per_invocation=items, details=details)
        value = math.fsum(scored) / len(scored)
        return Score(
            value=value, reason=explain_scores(items, ctx.threshold), per_invocation=items, details=details
        )

    async def _invocation(self, ctx: EvaluationContext, got: Invocation) -> InvocationScore:
        response = got.final_text()
        if not response.strip():
            return InvocationScore(
                score=None, reason="the agent gave no final response to score", reason_code="no_response"
            )
        return await self.ask(ctx, build_instance(got.user_content.text(), response))
