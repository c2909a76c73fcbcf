"""``multi_turn_task_success_v1``, ``multi_turn_trajectory_quality_v1``,
``multi_turn_tool_use_quality_v1``: the whole conversation scored once by the Vertex AI
evaluation service's rubric metrics (ADK 2.13's multi-turn Vertex facades)."""

from __future__ import annotations

from agenteval import EvaluationContext, EvaluatorInfo, InvocationScore, Score, explain_scores

from ._agent_data import agent_data
from ._vertex_criterion import VertexCriterion, VertexParams
from .provider import build_agent_instance

__all__ = ["MultiTurnTaskSuccess", "MultiTurnToolUseQuality", "MultiTurnTrajectoryQuality"]


class _MultiTurnVertexCriterion(VertexCriterion):
    """One call per case with the whole conversation as ``AgentData`` (``_agent_data``), the
    case's history first (``ctx.history``: an Agent Platform dataset's ``conversation_history``
    or earlier ``agent_data`` turns, context that is not scored); the service generates its
    own rubrics and judges them.

    Score: in [0, 1], higher is better: the service's score of the conversation, held by the
    last invocation; the earlier invocations are NOT_EVALUATED (``earlier_turn``), as in ADK.
    A failed call: the judge service's reason code; no score: ``no_score`` (the explanation
    and verdicts are kept). ``details`` of the last invocation: ``explanation`` (the
    service's, never a rubric), ``rubrics`` (the service's verdicts: ``rubric_id`` is the
    rubric's text as ADK names it, ``verdict`` yes / no, ``score``, ``rationale``),
    ``cached``. Case ``details``: ``metric``.
    """

    SCORE_LABEL = "score"

    class Params(VertexParams):
        """ADK's metric takes only a threshold; these are agenteval's additions."""

    params: Params

    def planned_judge_calls(self, ctx: EvaluationContext) -> int:
        return 1 if ctx.actual else 0

    async def evaluate(self, ctx: EvaluationContext) -> Score:
        if ctx.judge is None:
            return Score.not_evaluated("no judge service was given to this criterion", "no_judge")
        details = {"metric": self.METRIC}
        if not ctx.actual:
            return Score.not_evaluated(
                "the case has no invocations to score", "no_invocations", details=details
            )
        earlier = [
            InvocationScore(
                score=None,
                reason="scored as part of the whole conversation at the last invocation",
                reason_code="earlier_turn",
            )
            for _ in ctx.actual[:-1]
        ]
        last = await self.ask(ctx, build_agent_instance(agent_data([*ctx.history, *ctx.actual])))
        items = [*earlier, last]
        if last.score is None:
            return Score(
                value=None,
                reason=last.reason,
                reason_code=last.reason_code,
                per_invocation=items,
                details=details,
            )
        return Score(
            value=last.score,
            reason=explain_scores(items, ctx.threshold),
            per_invocation=items,
            details=details,
        )


def _info(description: str) -> EvaluatorInfo:
    return EvaluatorInfo(
        description=description, default_threshold=0.8, requires_judge=True, shows_trajectory=True
    )


class MultiTurnTaskSuccess(_MultiTurnVertexCriterion):
    __doc__ = "Did the agent accomplish the user's goal over the conversation? " + (
        _MultiTurnVertexCriterion.__doc__ or ""
    )
    METRIC = "multi_turn_task_success_v1"
    info = _info(
        "Vertex AI evaluation service: did the conversation accomplish the user's task (rubric metric)."
    )


class MultiTurnTrajectoryQuality(_MultiTurnVertexCriterion):
    __doc__ = "How good was the agent's path through the conversation? " + (
        _MultiTurnVertexCriterion.__doc__ or ""
    )
    METRIC = "multi_turn_trajectory_quality_v1"
    info = _info("Vertex AI evaluation service: quality of the agent's trajectory over the conversation.")


class MultiTurnToolUseQuality(_MultiTurnVertexCriterion):
    __doc__ = "How well did the agent use its tools over the conversation? " + (
        _MultiTurnVertexCriterion.__doc__ or ""
    )
    METRIC = "multi_turn_tool_use_quality_v1"
    info = _info("Vertex AI evaluation service: quality of the agent's tool use over the conversation.")
