"""``rubric_based_final_response_quality_v1``: an LLM judge checks the final response
against yes/no rubrics (reference-free), as ADK 2.13's RubricBasedFinalResponseQualityV1Evaluator."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from agenteval import EvaluatorInfo
from agenteval.models import Invocation, Rubric
from pydantic import Field

from ._context import (
    app_details,
    developer_instructions,
    grounding_metadata,
    response_text,
    tool_declarations,
    tool_steps,
    user_text,
)
from ._prompts import rubric_final_response as prompts
from ._rubric_criterion import RubricCriterion, RubricParams

__all__ = ["PROMPT_VERSION", "RubricFinalResponseQuality"]

PROMPT_VERSION = "rubric_based_final_response_quality_v1/1"


class RubricFinalResponseQuality(RubricCriterion):
    """An LLM judge checks each rubric on the final response: the share of rubrics met.

    Score: in [0, 1], higher is better. Rubrics: the criterion's ``rubrics`` plus the
    case's and the expected invocation's rubrics whose ``type`` is exactly
    ``FINAL_RESPONSE_QUALITY`` (ADK's filter; untyped ones are left out and named in the
    reason and in ``details.rubrics_filtered_out``). Each invocation is scored against its
    own rubrics. Verdicts: yes / no / not_applicable (counts as met). Per rubric the
    ``num_samples`` samples vote, a tie is "no"; the invocation score is the mean over its
    rubrics and the case score the mean over all rubric verdicts of all evaluated
    invocations (ADK's pooling).

    The judge sees the developer instructions and tool declarations (``app_details``), the
    user text, the tool calls paired with their responses, grounding metadata and the final
    response (after the intermediate texts with ``include_intermediate_responses_in_final``).

    NOT_EVALUATED invocations: ``no_rubrics``, ``duplicate_rubric_id``, ``empty_rubric``,
    or the judge failure's code (``judge_error``, ``judge_timeout``, ``judge_unparseable``)
    when no sample was usable. ``details``: per invocation ``rubrics`` (``rubric_id``,
    ``verdict``, ``score``, ``rationale``, ``votes``) and ``samples``; per case
    ``rubric_scores``, ``prompt_version``, ``prompt_sha256``.
    """

    TAG = "FINAL_RESPONSE_QUALITY"
    PROMPT_VERSION = PROMPT_VERSION
    TEMPLATES = (prompts.SYSTEM, prompts.PROMPT)

    info = EvaluatorInfo(
        description="LLM judge: share of yes/no rubrics the final response meets (reference-free).",
        default_threshold=0.8,
        requires_rubrics=True,
        requires_judge=True,
    )

    class Params(RubricParams):
        """ADK's ``RubricsBasedCriterion`` keys."""

        include_intermediate_responses_in_final: bool = Field(
            default=False,
            description="Put the intermediate natural-language responses before the final response.",
        )

    params: Params

    def build_prompt(
        self, got: Invocation, want: Optional[Invocation], rubrics: Sequence[Rubric]
    ) -> tuple[str, str]:
        """The system instruction and the prompt for one invocation."""
        app = app_details(got, want)
        untrusted = {
            "developer_instructions": developer_instructions(got, app),
            "available_tools": tool_declarations(app),
            "user_prompt": user_text(got),
            "response_steps": tool_steps(got),
            "grounding_metadata": grounding_metadata(got),
            "final_answer": response_text(got, self.params.include_intermediate_responses_in_final),
        }
        return self.render_prompts(untrusted, rubrics)
