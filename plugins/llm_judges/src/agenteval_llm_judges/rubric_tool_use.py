"""``rubric_based_tool_use_quality_v1``: an LLM judge checks the agent's tool calls against
yes/no rubrics (reference-free), as ADK 2.13's RubricBasedToolUseV1Evaluator."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from agenteval import EvaluatorInfo
from agenteval.models import Invocation, Rubric

from ._context import app_details, tool_declarations, tool_steps, user_text
from ._prompts import rubric_tool_use as prompts
from ._rubric_criterion import RubricCriterion, RubricParams

__all__ = ["PROMPT_VERSION", "RubricToolUseQuality"]

PROMPT_VERSION = "rubric_based_tool_use_quality_v1/1"


class RubricToolUseQuality(RubricCriterion):
    """An LLM judge checks each rubric on the agent's tool use: the share of rubrics met.

    Score: in [0, 1], higher is better. Rubrics: the criterion's ``rubrics`` plus the
    case's and the expected invocation's rubrics whose ``type`` is exactly
    ``TOOL_USE_QUALITY`` (ADK's filter; others are left out and named in the reason and in
    ``details.rubrics_filtered_out``). Each invocation is scored against its own rubrics.
    Verdicts: yes / no / not_applicable (counts as met). Per rubric the ``num_samples``
    samples vote, a tie is "no"; the invocation score is the mean over its rubrics and the
    case score the mean over all rubric verdicts of all evaluated invocations (ADK's
    pooling).

    The judge sees the tool declarations (``app_details``), the user text and the tool
    calls (legacy ``tool_uses`` or events) paired with their responses. An invocation
    without tool calls is still judged (rubrics may require that no tool is called).

    NOT_EVALUATED invocations: ``no_rubrics``, ``duplicate_rubric_id``, ``empty_rubric``,
    or the judge failure's code (``judge_error``, ``judge_timeout``, ``judge_unparseable``)
    when no sample was usable. ``details`` as for ``rubric_based_final_response_quality_v1``.
    """

    TAG = "TOOL_USE_QUALITY"
    PROMPT_VERSION = PROMPT_VERSION
    TEMPLATES = (prompts.SYSTEM, prompts.PROMPT)

    info = EvaluatorInfo(
        description="LLM judge: share of yes/no rubrics the agent's tool calls meet (reference-free).",
        default_threshold=0.8,
        requires_rubrics=True,
        requires_judge=True,
        shows_trajectory=True,
    )

    class Params(RubricParams):
        """ADK's ``RubricsBasedCriterion`` keys."""

    params: Params

    def build_prompt(
        self, got: Invocation, want: Optional[Invocation], rubrics: Sequence[Rubric]
    ) -> tuple[str, str]:
        """The system instruction and the prompt for one invocation."""
        untrusted = {
            "available_tools": tool_declarations(app_details(got, want)),
            "user_prompt": user_text(got),
            "response_steps": tool_steps(got),
        }
        return self.render_prompts(untrusted, rubrics)
