"""``response_evaluation_score``: the coherence of each final response, scored 1 to 5 by the
Vertex AI evaluation service (ADK 2.13's ``response_evaluation_score``)."""

from __future__ import annotations

from typing import Optional

from agenteval import EvaluationContext, EvaluatorInfo, Score

from ._single_turn import SingleTurnVertexCriterion
from ._vertex_criterion import VertexParams
from .provider import COHERENCE

__all__ = ["ResponseEvaluationScore"]


class ResponseEvaluationScore(SingleTurnVertexCriterion):
    """Each invocation's final response goes to the Vertex AI evaluation service's coherence
    metric, which scores how well it holds together: 1 (incoherent) to 5 (coherent).

    Score: in [1, 5], higher is better; the case score is the mean of the scored
    invocations. As in ADK, the case needs expected invocations (``no_expected_invocations``
    without them) of the same number (``invocation_count_mismatch``), though the score does
    not read them. An invocation without a final response is NOT_EVALUATED
    (``no_response``); a failed call: the judge service's code; no score: ``no_score``.

    ``details`` per invocation: ``explanation`` (the service's), ``cached``. Case
    ``details``: ``metric`` (``coherence``), ``scored_invocations``.
    """

    METRIC = COHERENCE
    SCORE_LABEL = "coherence score"

    info = EvaluatorInfo(
        description="Vertex AI evaluation service: coherence of each final response (1 to 5).",
        min_score=1.0,
        max_score=5.0,
        default_threshold=3.0,
        requires_expected=True,
        requires_judge=True,
    )

    class Params(VertexParams):
        """ADK's ``response_evaluation_score`` takes only a threshold; these are agenteval's additions."""

    params: Params

    def planned_judge_calls(self, ctx: EvaluationContext) -> int:
        return 0 if self.skip(ctx) is not None else super().planned_judge_calls(ctx)

    def skip(self, ctx: EvaluationContext) -> Optional[Score]:
        if ctx.expected is None:
            return Score.not_evaluated(
                "response_evaluation_score needs expected invocations, as in ADK", "no_expected_invocations"
            )
        if len(ctx.expected) != len(ctx.actual):
            return Score.not_evaluated(
                f"{len(ctx.expected)} expected invocations for {len(ctx.actual)} actual ones",
                "invocation_count_mismatch",
            )
        return None
