"""``rubric_based_multi_turn_trajectory_quality_v1``: an LLM judge checks yes/no rubrics on a
whole conversation, as ADK 2.13's RubricBasedMultiTurnTrajectoryEvaluator."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from agenteval import EvaluationContext, EvaluatorInfo, InvocationScore
from agenteval.models import Invocation, Rubric

from ._context import all_instructions, tool_declarations
from ._dialogue import dialogue, merged_app_details
from ._judge import not_scored
from ._prompts import rubric_multi_turn_trajectory as prompts
from ._rubric_criterion import RubricCriterion, RubricParams

__all__ = ["PROMPT_VERSION", "RubricMultiTurnTrajectoryQuality"]

PROMPT_VERSION = "rubric_based_multi_turn_trajectory_quality_v1/1"


class RubricMultiTurnTrajectoryQuality(RubricCriterion):
    """An LLM judge reads the whole conversation and checks each rubric once: the share of
    rubrics met.

    Score: in [0, 1], higher is better: the mean of the rubric verdicts (yes and
    not_applicable score 1, no 0; ``num_samples`` samples vote per rubric, a tie is "no").
    Only the **last invocation** is judged, with the transcript of every invocation
    (``_dialogue``: user turns, the agents' texts, tool calls and outputs of the event form,
    final responses), the case's history first (``ctx.history``: an Agent Platform dataset's
    ``conversation_history``, context that is not scored), and the agents' instructions and
    tools; the earlier invocations are NOT_EVALUATED with ``earlier_turn`` and the case score
    is the last invocation's, as in ADK. Rubrics: the criterion's ``rubrics`` plus the case's
    and the last expected invocation's rubrics whose ``type`` is exactly ``TRAJECTORY_QUALITY``.

    NOT_EVALUATED (last invocation and case): ``no_rubrics``, ``duplicate_rubric_id``,
    ``empty_rubric``, or the judge failure's code when no sample was usable. ``details``
    as for ``rubric_based_final_response_quality_v1``.
    """

    TAG = "TRAJECTORY_QUALITY"
    PROMPT_VERSION = PROMPT_VERSION
    TEMPLATES = (prompts.SYSTEM, prompts.PROMPT)

    info = EvaluatorInfo(
        description="LLM judge: share of yes/no rubrics the whole conversation meets (judged at its end).",
        default_threshold=0.8,
        requires_rubrics=True,
        requires_judge=True,
        shows_trajectory=True,
    )

    Params = RubricParams
    params: RubricParams

    def not_judged(self, ctx: EvaluationContext, index: int) -> Optional[InvocationScore]:
        if index == len(ctx.actual) - 1:
            return None
        return not_scored(
            "earlier_turn",
            "judged as part of the whole conversation at the last invocation",
        )

    def prompt_for(
        self, ctx: EvaluationContext, got: Invocation, want: Optional[Invocation], rubrics: Sequence[Rubric]
    ) -> tuple[str, str]:
        """The system instruction and the prompt: the whole conversation up to ``got``, its
        history included."""
        whole = [*ctx.history, *ctx.actual]
        app = merged_app_details(whole)
        untrusted = {
            "agent_instructions": all_instructions(app),
            "agent_tools": tool_declarations(app),
            "conversation": "\n".join(dialogue(whole)),
        }
        return self.render_prompts(untrusted, rubrics)
