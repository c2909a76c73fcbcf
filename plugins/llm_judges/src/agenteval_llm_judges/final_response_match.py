"""``final_response_match_v2``: an LLM judge decides whether the agent's final response
agrees with the reference (expected) response, as ADK 2.13's FinalResponseMatchV2Evaluator."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from agenteval import EvaluationContext, EvaluatorInfo, InvocationScore, JudgeOptions, Score
from agenteval import Params as ParamsBase
from agenteval.models import Invocation
from pydantic import Field

from ._context import response_text, user_text
from ._judge import (
    JudgeCriterion,
    Sample,
    ask,
    failure,
    not_scored,
    sample_counts,
    shorten,
    summarise,
)
from ._parsing import label, require, text_field
from ._pivotal import Judged, score_pivotal, single_sample
from ._prompts import final_response_match as prompts
from ._render import nonce_for, render
from ._voting import JudgeSampling

__all__ = ["PROMPT_VERSION", "FinalResponseMatchV2", "Verdict", "read_verdict"]

PROMPT_VERSION = "final_response_match_v2/1"

_VERDICTS = {"valid": "valid", "true": "valid", "invalid": "invalid", "false": "invalid"}
#: ADK's field name, accepted when a judge uses it instead of ``verdict``.
_ADK_FIELD = "is_the_agent_response_valid"


@dataclass(frozen=True)
class Verdict:
    """One sample's verdict."""

    valid: bool
    reasoning: str


def read_verdict(obj: dict[str, Any]) -> Verdict:
    """``{"reasoning": str, "verdict": "valid" | "invalid"}`` (case, spaces, fences and
    JSON booleans tolerated; ADK's ``is_the_agent_response_valid`` accepted for
    ``verdict``); ``Unparseable`` otherwise."""
    keyed = require(obj, "reasoning")
    if "verdict" not in keyed and _ADK_FIELD in keyed:
        keyed["verdict"] = keyed[_ADK_FIELD]
    keyed = require(keyed, "reasoning", "verdict")
    verdict = label(keyed["verdict"], _VERDICTS, "verdict")
    return Verdict(valid=verdict == "valid", reasoning=text_field(keyed, "reasoning"))


class FinalResponseMatchV2(JudgeCriterion):
    """An LLM judge compares each final response with the expected one: 1.0 (valid) or 0.0.

    Score: in [0, 1], higher is better. Each invocation is asked ``num_samples`` times
    (``judge_model_options``); the samples vote and **a tie is invalid** (ADK's rule, so an
    even ``num_samples`` leans towards 0). The case score is valid invocations divided by
    evaluated invocations. Inputs: the user text of the *expected* invocation, the actual
    final text (after the intermediate texts with ``include_intermediate_responses_in_final``)
    and the expected final text.

    Edge cases: an expected invocation without a final text is NOT_EVALUATED
    (``no_reference``); an empty actual response scores 0.0 without a judge call. A sample
    that fails or cannot be read does not vote; an invocation with no usable sample is
    NOT_EVALUATED with the failure's code (``judge_error``, ``judge_timeout``,
    ``judge_unparseable``). No invocation evaluated: NOT_EVALUATED.

    Sampling (``judge_sampling``): by default the samples are drawn in batches that stop
    once the majority is decided (the same verdict as all ``num_samples``, fewer calls);
    ``{"curtail": false}`` asks all of them, ``{"mode": "sequential"}`` runs an SPRT.
    ``{"pivotal": true}`` judges the invocations in turn and, once the case's point verdict
    cannot change, gives each remaining invocation one sample (its ``details`` then hold
    ``pivotal: false`` and ``decided``); the point verdict is the one full sampling gives.

    ``details`` per invocation: ``samples`` (``verdict`` and ``reasoning``, or ``error``),
    ``votes``, ``samples_used`` / ``samples_failed``, ``sampling``, ``calls_used`` /
    ``calls_saved`` (and ``barrier`` / ``unsettled`` in sequential mode). Case ``details``:
    ``prompt_version``, ``prompt_sha256``, ``valid_invocations``, ``evaluated_invocations``.
    """

    PROMPT_VERSION = PROMPT_VERSION
    TEMPLATES = (prompts.SYSTEM, prompts.PROMPT)

    info = EvaluatorInfo(
        description="LLM judge: 1.0 per invocation when the final response agrees with the expected one.",
        default_threshold=0.8,
        requires_expected=True,
        requires_judge=True,
    )

    class Params(ParamsBase):
        """ADK's ``LlmAsAJudgeCriterion`` keys."""

        judge_model_options: JudgeOptions = Field(
            default_factory=JudgeOptions, description="Judge model, samples and call settings."
        )
        include_intermediate_responses_in_final: bool = Field(
            default=False,
            description="Put the intermediate natural-language responses before the final response.",
        )
        judge_sampling: JudgeSampling = Field(
            default_factory=JudgeSampling,
            description="When to stop sampling: curtailed majority (default), all samples, or sequential.",
        )

    params: Params

    def planned_judge_calls(self, ctx: EvaluationContext) -> int:
        self.adopt_run(ctx)
        if ctx.expected is None:
            return 0
        return (
            sum(1 for _, want in zip(ctx.actual, ctx.expected, strict=False) if want.final_text().strip())
            * self.samples_per_question
        )

    async def evaluate(self, ctx: EvaluationContext) -> Score:
        blocked = self.without_judge(ctx)
        if blocked is not None:
            return blocked
        sampling = self.sampling
        items = [self._invocation(ctx, got, want) for got, want in ctx.pairs()]
        scores = await score_pivotal(items, ctx.threshold, enabled=sampling.pivotal)
        evaluated = [s for s in scores if s.score is not None]
        details = {
            **self.prompt_identity(),
            "valid_invocations": sum(1 for s in evaluated if s.score == 1.0),
            "evaluated_invocations": len(evaluated),
        }
        return summarise(scores, ctx.threshold, details=details)

    def build_prompt(self, got: Invocation, want: Invocation) -> tuple[str, str]:
        """The system instruction and the prompt for one invocation."""
        untrusted = {
            "user_request": user_text(want),
            "agent_response": response_text(got, self.params.include_intermediate_responses_in_final),
            "reference_response": want.final_text(),
        }
        nonce = nonce_for(untrusted, PROMPT_VERSION)
        system = render(prompts.SYSTEM, untrusted={}, nonce=nonce)
        return system, render(prompts.PROMPT, untrusted=untrusted, nonce=nonce)

    def _invocation(self, ctx: EvaluationContext, got: Invocation, want: Invocation) -> Judged:
        """The invocation's score when no judge is needed, else how to judge it (in full, or
        with one sample when it is not pivotal)."""
        if not want.final_text().strip():
            return not_scored("no_reference", "the expected invocation has no final response to compare with")
        if not response_text(got, self.params.include_intermediate_responses_in_final).strip():
            return InvocationScore(
                score=0.0, reason="the agent gave no final response", details={"judge_called": False}
            )
        system, prompt = self.build_prompt(got, want)
        request = self.request(system, prompt, prompts.SCHEMA)
        sampling = self.sampling

        async def judged(full: bool) -> InvocationScore:
            if not full:
                samples = await ask(ctx.judge, request, self.options, read_verdict, single=True)
                return single_sample(_score(samples, JudgeSampling(), 1), sampling, self.options.num_samples)
            samples = await ask(
                ctx.judge, request, self.options, read_verdict, sampling=sampling, votes=_vote
            )
            return _score(samples, sampling, self.options.num_samples)

        return judged


def _vote(verdict: Verdict) -> list[bool]:
    return [verdict.valid]


def _sample_detail(sample: Sample) -> dict[str, Any]:
    if sample.ok:
        return {"verdict": "valid" if sample.value.valid else "invalid", "reasoning": sample.value.reasoning}
    return {"error": sample.code, "message": sample.message}


def _score(samples: list[Sample], sampling: JudgeSampling, num_samples: int) -> InvocationScore:
    details: dict[str, Any] = {"samples": [_sample_detail(s) for s in samples], **sample_counts(samples)}
    usable = [s for s in samples if s.ok]
    decision = sampling.decide([s.value.valid for s in usable])
    details.update(sampling.details(len(samples), num_samples, [decision]))
    if not usable:
        code, reason = failure(samples)
        return not_scored(code, reason, **details)
    valid = sum(1 for s in usable if s.value.valid)
    details["votes"] = {"valid": valid, "invalid": len(usable) - valid}
    score = decision.score
    reason: Optional[str] = None
    if score == 0.0:
        tie = " (a tie counts as invalid)" if valid * 2 == len(usable) else ""
        first = next(s for s in usable if not s.value.valid)
        why = shorten(first.value.reasoning)
        reason = f"judged invalid by {len(usable) - valid} of {len(usable)} samples{tie}: {why}"
    return InvocationScore(score=score, reason=reason, details=details)
