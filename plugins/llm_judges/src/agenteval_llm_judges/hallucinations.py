"""``hallucinations_v1``: a two-stage LLM judge (segment, then validate each sentence against
the agent's context), as ADK 2.13's HallucinationsV1Evaluator."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from agenteval import EvaluationContext, EvaluatorInfo, InvocationScore, JudgeOptions, Score
from agenteval import Params as ParamsBase
from agenteval.models import Invocation
from pydantic import Field

from ._context import HallucinationStep, hallucination_steps
from ._judge import JudgeCriterion, Sample, ask, failure, gather, not_scored, shorten, summarise
from ._parsing import Unparseable, entries, label, require, text_field
from ._prompts import hallucinations as prompts
from ._render import nonce_for, render
from ._voting import mean

__all__ = ["PROMPT_VERSION", "HallucinationsV1", "SentenceLabel", "read_labels", "read_sentences"]

PROMPT_VERSION = "hallucinations_v1/1"

_LABELS = {
    "supported": "supported",
    "unsupported": "unsupported",
    "not_supported": "unsupported",
    "contradictory": "contradictory",
    "contradicted": "contradictory",
    "disputed": "disputed",
    "not_applicable": "not_applicable",
    "notapplicable": "not_applicable",
    "n_a": "not_applicable",
    "na": "not_applicable",
    "n.a": "not_applicable",
}
_GOOD = {"supported", "not_applicable"}


def read_sentences(obj: dict[str, Any]) -> list[str]:
    """``{"sentences": [str, ...]}`` -> the non-empty sentences, in order."""
    keyed = require(obj, "sentences")
    items = keyed["sentences"]
    if not isinstance(items, list) or not all(isinstance(s, str) for s in items):
        raise Unparseable("'sentences' is not a list of strings")
    return [s.strip() for s in items if s.strip()]


@dataclass(frozen=True)
class SentenceLabel:
    """The validator's label for one sentence."""

    label: str
    rationale: str
    supporting_excerpt: str
    contradicting_excerpt: str

    @property
    def score(self) -> float:
        return 1.0 if self.label in _GOOD else 0.0


def read_labels(ids: list[str]) -> Callable[[dict[str, Any]], dict[str, SentenceLabel]]:
    """A reader for validator answers that must label exactly the sentences ``ids``."""

    def read(obj: dict[str, Any]) -> dict[str, SentenceLabel]:
        found: dict[str, SentenceLabel] = {}
        for index, entry in entries(require(obj, "sentences"), "sentences", "id", "label", "rationale"):
            value = label(entry["label"], _LABELS, f"sentences[{index}].label")
            sid = str(entry["id"]).strip().strip("\"'`").lower()
            if sid not in ids:
                continue
            if sid in found and found[sid].label != value:
                raise Unparseable(f"sentence {sid!r} has two different labels")
            found.setdefault(
                sid,
                SentenceLabel(
                    value,
                    text_field(entry, "rationale"),
                    text_field(entry, "supporting_excerpt"),
                    text_field(entry, "contradicting_excerpt"),
                ),
            )
        missing = [sid for sid in ids if sid not in found]
        if missing:
            raise Unparseable(f"no label for sentence(s) {', '.join(missing)}")
        return found

    return read


@dataclass
class _StepResult:
    step: HallucinationStep
    score: Optional[float] = None
    sentences: Optional[list[dict[str, Any]]] = None
    code: Optional[str] = None
    message: Optional[str] = None

    def detail(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.step.kind, "text": shorten(self.step.text, 300)}
        if self.step.author:
            out["author"] = self.step.author
        out["score"] = self.score
        if self.sentences is not None:
            out["sentences"] = self.sentences
        if self.code is not None:
            out["error"] = self.code
            out["message"] = self.message
        return out


class HallucinationsV1(JudgeCriterion):
    """An LLM judge checks each sentence of the agent's responses against its context.

    Score: in [0, 1], higher is better (1.0: every sentence is supported or makes no
    checkable claim). Stage 1 splits a response into sentences; stage 2 labels each one
    ``supported``, ``unsupported``, ``contradictory``, ``disputed`` or ``not_applicable``.
    A sentence scores 1 when supported or not_applicable, else 0; a step (one response
    text) scores the mean over its sentences; an invocation the mean over its steps (each
    step weighs the same); the case the mean over evaluated invocations.

    Steps: the final response, and with ``evaluate_intermediate_nl_responses`` every
    intermediate text (each judged against the events before it). Context: the user text,
    the agents' instructions and tool declarations (``app_details``), and the tool calls,
    tool outputs, messages and grounding metadata of the events, or of the legacy
    ``tool_uses`` / ``tool_responses`` (ADK ignores the legacy form). Two judge calls per
    step, one sample each (ADK ignores ``num_samples`` here too); all steps run at once.

    NOT_EVALUATED invocations: ``no_text_to_check`` (no response text), ``no_sentences``
    (the segmenter found no sentence), or the judge failure's code. ``details`` per
    invocation: ``steps`` with their ``sentences`` (label, rationale, excerpts).
    """

    PROMPT_VERSION = PROMPT_VERSION
    TEMPLATES = (
        prompts.SEGMENTER_SYSTEM,
        prompts.SEGMENTER_PROMPT,
        prompts.VALIDATOR_SYSTEM,
        prompts.VALIDATOR_PROMPT,
    )

    info = EvaluatorInfo(
        description="LLM judge: share of response sentences supported by the agent's context.",
        default_threshold=0.8,
        requires_judge=True,
    )

    class Params(ParamsBase):
        """ADK's ``HallucinationsCriterion`` keys."""

        judge_model_options: JudgeOptions = Field(
            default_factory=JudgeOptions,
            description="Judge model and call settings (num_samples is not used: one sample per stage).",
        )
        evaluate_intermediate_nl_responses: bool = Field(
            default=False, description="Also check the intermediate natural-language responses."
        )

    params: Params

    def _steps(self, ctx: EvaluationContext) -> list[list[HallucinationStep]]:
        expected = list(ctx.expected) if ctx.expected is not None else []
        aligned = len(expected) == len(ctx.actual)
        return [
            hallucination_steps(
                got,
                expected[i] if aligned else None,
                intermediate=self.params.evaluate_intermediate_nl_responses,
            )
            for i, got in enumerate(ctx.actual)
        ]

    def planned_judge_calls(self, ctx: EvaluationContext) -> int:
        return 2 * sum(len(steps) for steps in self._steps(ctx))

    async def evaluate(self, ctx: EvaluationContext) -> Score:
        blocked = self.without_judge(ctx)
        if blocked is not None:
            return blocked
        scores = await gather(
            [
                self._invocation(ctx, got, steps)
                for got, steps in zip(ctx.actual, self._steps(ctx), strict=True)
            ]
        )
        return summarise(scores, ctx.threshold, details=self.prompt_identity())

    # -- prompts -------------------------------------------------------------------------
    def segmenter_prompt(self, step: HallucinationStep) -> tuple[str, str]:
        untrusted = {"response": step.text}
        nonce = nonce_for(untrusted, PROMPT_VERSION + "/segmenter")
        return (
            render(prompts.SEGMENTER_SYSTEM, untrusted={}, nonce=nonce),
            render(prompts.SEGMENTER_PROMPT, untrusted=untrusted, nonce=nonce),
        )

    def validator_prompt(self, step: HallucinationStep, sentences: list[str]) -> tuple[str, str]:
        untrusted = {
            "context": step.context,
            "sentences": [{"id": f"s{i}", "sentence": s} for i, s in enumerate(sentences, start=1)],
        }
        nonce = nonce_for(untrusted, PROMPT_VERSION + "/validator")
        return (
            render(prompts.VALIDATOR_SYSTEM, untrusted={}, nonce=nonce),
            render(prompts.VALIDATOR_PROMPT, untrusted=untrusted, nonce=nonce),
        )

    # -- evaluation ------------------------------------------------------------------------
    async def _step(self, ctx: EvaluationContext, step: HallucinationStep) -> _StepResult:
        system, prompt = self.segmenter_prompt(step)
        request = self.request(system, prompt, prompts.SEGMENTER_SCHEMA)
        (segmented,) = await ask(ctx.judge, request, self.options, read_sentences, single=True)
        if not segmented.ok:
            code, reason = failure([segmented])
            return _StepResult(step, code=code, message=f"segmenting: {reason}")
        sentences: list[str] = segmented.value
        if not sentences:
            return _StepResult(
                step, sentences=[], code="no_sentences", message="the segmenter found no sentence"
            )
        ids = [f"s{i}" for i in range(1, len(sentences) + 1)]
        system, prompt = self.validator_prompt(step, sentences)
        request = self.request(system, prompt, prompts.validator_schema(ids))
        (validated,) = await ask(ctx.judge, request, self.options, read_labels(ids), single=True)
        if not validated.ok:
            code, reason = failure([validated])
            return _StepResult(step, code=code, message=f"validating: {reason}")
        return _labelled(step, sentences, ids, validated)

    async def _invocation(
        self, ctx: EvaluationContext, got: Invocation, steps: list[HallucinationStep]
    ) -> InvocationScore:
        if not steps:
            return not_scored("no_text_to_check", "the invocation has no response text to check")
        results = await gather([self._step(ctx, step) for step in steps])
        details: dict[str, Any] = {"steps": [r.detail() for r in results]}
        score = mean([r.score for r in results])
        if score is None:
            codes = Counter(r.code for r in results if r.code)
            code = codes.most_common(1)[0][0] if codes else "judge_unparseable"
            first = next(r for r in results if r.code == code)
            return not_scored(str(code), first.message or str(code), **details)
        bad = [
            (result, sentence)
            for result in results
            for sentence in result.sentences or ()
            if sentence["label"] not in _GOOD
        ]
        total = sum(len(r.sentences or ()) for r in results if r.score is not None)
        reason = None
        if bad:
            listed = "; ".join(
                f"{shorten(s['sentence'], 120)!r} ({s['label']}): {shorten(s['rationale'], 160)}"
                for _, s in bad[:3]
            )
            more = f"; ... {len(bad) - 3} more" if len(bad) > 3 else ""
            reason = f"{len(bad)} of {total} sentences not supported: {listed}{more}"
        skipped = [r for r in results if r.score is None]
        if skipped:
            details["steps_not_evaluated"] = len(skipped)
        return InvocationScore(score=score, reason=reason, details=details)


def _labelled(step: HallucinationStep, sentences: list[str], ids: list[str], sample: Sample) -> _StepResult:
    labels: dict[str, SentenceLabel] = sample.value
    entries = []
    for sid, sentence in zip(ids, sentences, strict=True):
        found = labels[sid]
        entries.append(
            {
                "sentence": sentence,
                "label": found.label,
                "score": found.score,
                "rationale": found.rationale,
                "supporting_excerpt": found.supporting_excerpt,
                "contradicting_excerpt": found.contradicting_excerpt,
            }
        )
    return _StepResult(step, score=mean([e["score"] for e in entries]), sentences=entries)
