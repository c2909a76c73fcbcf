"""What the two rubric criteria share: rubric merging, the answer format, voting, scoring.

Scoring (ADK's): a verdict of ``yes`` or ``not_applicable`` scores 1, ``no`` scores 0. One
sample's score is the mean over the rubrics. Per rubric, the usable samples vote (a tie is
``no``); the invocation score is the mean of the rubrics' voted scores, and the case score
is the mean of **all rubric scores pooled over the evaluated invocations** (an invocation
with more rubrics weighs more), not the mean of the invocation scores.

A usable answer gives exactly one verdict for every rubric of its invocation (matched by
``rubric_id``; unknown ids are ignored); an answer missing a rubric, or giving one rubric
two different verdicts, is unparseable. So every rubric of an evaluated invocation has a
verdict: none is dropped silently.

With ``judge_sampling: {"pivotal": true}`` (``--judge-sampling pivotal``) the invocations are
judged in turn, each weighing its number of rubrics, and once the case's point verdict is
decided the rest get one sample each (``_pivotal``).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Optional

from agenteval import EvaluationContext, InvocationScore, JudgeOptions, Score
from agenteval import Params as ParamsBase
from agenteval.models import Invocation, Rubric
from pydantic import Field

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
from ._parsing import Unparseable, entries, label, require, text_field
from ._pivotal import Judged, score_pivotal, single_sample
from ._render import encode, nonce_for, render
from ._rubrics import RubricSet, merge_rubrics, rubric_text
from ._voting import JudgeSampling, mean

__all__ = ["RUBRIC_VERDICTS", "RubricCriterion", "RubricVerdict", "rubric_reader", "rubric_schema"]

RUBRIC_VERDICTS = {
    "yes": "yes",
    "true": "yes",
    "no": "no",
    "false": "no",
    "not_applicable": "not_applicable",
    "notapplicable": "not_applicable",
    "n_a": "not_applicable",
    "na": "not_applicable",
    "n.a": "not_applicable",
}
_SCORES = {"yes": 1.0, "not_applicable": 1.0, "no": 0.0}


@dataclass(frozen=True)
class RubricVerdict:
    """One sample's verdict on one rubric."""

    verdict: str  # "yes", "no" or "not_applicable"
    rationale: str

    @property
    def score(self) -> float:
        return _SCORES[self.verdict]


def _norm_id(value: Any) -> str:
    text = unicodedata.normalize("NFKC", str(value)).strip().strip("\"'`*[]<>").strip()
    if text.lower().startswith("id:"):
        text = text[3:].strip()
    return text.casefold()


def rubric_reader(ids: Sequence[str]) -> Callable[[dict[str, Any]], dict[str, RubricVerdict]]:
    """A reader for ``{"rubrics": [{"rubric_id", "rationale", "verdict"}]}`` answers that
    must cover exactly the rubrics ``ids`` (ids matched exactly, else after trimming and
    case folding; unknown ids ignored)."""
    exact = set(ids)
    folded: dict[str, Optional[str]] = {}
    for rid in ids:
        key = _norm_id(rid)
        folded[key] = None if key in folded else rid  # ambiguous after folding: exact only

    def match(value: Any) -> Optional[str]:
        if isinstance(value, str) and value in exact:
            return value
        return folded.get(_norm_id(value))

    def read(obj: dict[str, Any]) -> dict[str, RubricVerdict]:
        found: dict[str, RubricVerdict] = {}
        for index, entry in entries(require(obj, "rubrics"), "rubrics", "rubric_id", "rationale", "verdict"):
            verdict = label(entry["verdict"], RUBRIC_VERDICTS, f"rubrics[{index}].verdict")
            rid = match(entry["rubric_id"])
            if rid is None:
                continue
            if rid in found and found[rid].verdict != verdict:
                raise Unparseable(f"rubric {rid!r} has two different verdicts")
            found.setdefault(rid, RubricVerdict(verdict, text_field(entry, "rationale")))
        missing = [rid for rid in ids if rid not in found]
        if missing:
            raise Unparseable(f"no verdict for rubric(s) {', '.join(map(repr, missing))}")
        return found

    return read


def rubric_schema(ids: Sequence[str]) -> dict[str, Any]:
    """The answer's JSON schema, with the rubric ids as an enum."""
    return {
        "type": "object",
        "properties": {
            "rubrics": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "rubric_id": {"type": "string", "enum": list(ids)},
                        "rationale": {"type": "string"},
                        "verdict": {"type": "string", "enum": ["yes", "no", "not_applicable"]},
                    },
                    "required": ["rubric_id", "rationale", "verdict"],
                },
            }
        },
        "required": ["rubrics"],
    }


def properties_block(rubrics: Sequence[Rubric]) -> str:
    """The rubrics as a JSON list of ``{rubric_id, property}`` (tag-like ``<`` escaped)."""
    return encode([{"rubric_id": r.rubric_id, "property": rubric_text(r)} for r in rubrics], indent=2)


class RubricParams(ParamsBase):
    """ADK's ``RubricsBasedCriterion`` keys."""

    judge_model_options: JudgeOptions = Field(
        default_factory=JudgeOptions, description="Judge model, samples and call settings."
    )
    rubrics: list[Rubric] = Field(
        default_factory=list,
        description="Rubrics checked on every invocation, whatever their type.",
    )
    judge_sampling: JudgeSampling = Field(
        default_factory=JudgeSampling,
        description="When to stop sampling (per rubric): curtailed majority (default), all, or sequential.",
    )


class RubricCriterion(JudgeCriterion):
    """Base of the rubric criteria; subclasses set ``TAG`` and ``build_prompt``."""

    TAG: ClassVar[str]

    def build_prompt(
        self, got: Invocation, want: Optional[Invocation], rubrics: Sequence[Rubric]
    ) -> tuple[str, str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def prompt_for(
        self, ctx: EvaluationContext, got: Invocation, want: Optional[Invocation], rubrics: Sequence[Rubric]
    ) -> tuple[str, str]:
        """The prompts for ``got`` (a criterion that needs the whole case overrides this)."""
        return self.build_prompt(got, want, rubrics)

    def render_prompts(self, untrusted: dict[str, Any], rubrics: Sequence[Rubric]) -> tuple[str, str]:
        """The system instruction and the prompt (``TEMPLATES``) with ``untrusted`` in data
        blocks and the rubrics as the trusted properties."""
        system_template, prompt_template = self.TEMPLATES
        properties = properties_block(rubrics)
        nonce = nonce_for({**untrusted, "properties": properties}, self.PROMPT_VERSION)
        system = render(system_template, untrusted={}, nonce=nonce)
        prompt = render(prompt_template, untrusted=untrusted, trusted={"properties": properties}, nonce=nonce)
        return system, prompt

    def not_judged(self, ctx: EvaluationContext, index: int) -> Optional[InvocationScore]:
        """The NOT_EVALUATED score of an invocation this criterion does not judge, else
        ``None`` (every invocation is judged by default)."""
        return None

    # -- which rubrics apply ---------------------------------------------------------
    def rubric_sets(self, ctx: EvaluationContext) -> list[RubricSet]:
        """The rubrics of each actual invocation (criterion + case + expected invocation)."""
        expected = list(ctx.expected) if ctx.expected is not None else []
        aligned = len(expected) == len(ctx.actual)
        sets = []
        for index in range(len(ctx.actual)):
            want = expected[index] if aligned else None
            sets.append(
                merge_rubrics(
                    self.TAG,
                    self.params.rubrics,  # type: ignore[attr-defined]
                    ctx.case.rubrics,
                    want.rubrics if want is not None else None,
                )
            )
        return sets

    def _misaligned(self, ctx: EvaluationContext) -> Optional[str]:
        """A reason when expected invocations carry rubrics but cannot be paired."""
        if ctx.expected is None or len(ctx.expected) == len(ctx.actual):
            return None
        if not any(r.type == self.TAG for e in ctx.expected for r in e.rubrics or ()):
            return None
        return (
            f"the expected invocations carry {self.TAG} rubrics, but there are {len(ctx.expected)} of "
            f"them for {len(ctx.actual)} actual invocations, so they cannot be paired by position"
        )

    def planned_judge_calls(self, ctx: EvaluationContext) -> int:
        self.adopt_run(ctx)
        if self._misaligned(ctx):
            return 0
        sets = self.rubric_sets(ctx)
        judged = [s for i, s in enumerate(sets) if s.problem is None and self.not_judged(ctx, i) is None]
        return len(judged) * self.samples_per_question

    # -- evaluation --------------------------------------------------------------------
    async def evaluate(self, ctx: EvaluationContext) -> Score:
        blocked = self.without_judge(ctx)
        if blocked is not None:
            return blocked
        misaligned = self._misaligned(ctx)
        if misaligned:
            return Score.not_evaluated(
                misaligned, "invocation_count_mismatch", details=self.prompt_identity()
            )
        expected = list(ctx.expected) if ctx.expected is not None else []
        aligned = len(expected) == len(ctx.actual)
        sets = self.rubric_sets(ctx)
        skipped = [self.not_judged(ctx, i) for i in range(len(ctx.actual))]
        items = [
            skipped[i] or self._invocation(ctx, got, expected[i] if aligned else None, sets[i])
            for i, got in enumerate(ctx.actual)
        ]
        # The case score is the mean over every rubric verdict: an invocation weighs its rubrics.
        weights = [0 if skipped[i] else len(s.ids()) for i, s in enumerate(sets)]
        scores = await score_pivotal(items, ctx.threshold, enabled=self.sampling.pivotal, weights=weights)
        pooled: list[float] = []
        by_rubric: dict[str, list[float]] = {}
        for item in scores:
            if item.score is None:
                continue
            for entry in item.details.get("rubrics", []):
                pooled.append(entry["score"])
                by_rubric.setdefault(entry["rubric_id"], []).append(entry["score"])
        details: dict[str, Any] = {
            **self.prompt_identity(),
            "rubric_scores": [
                {"rubric_id": rid, "score": mean(values), "invocations": len(values)}
                for rid, values in by_rubric.items()
            ],
        }
        filtered = sorted({rid for s in sets for rid, _, _ in s.filtered_out})
        if filtered:
            details["rubrics_filtered_out"] = filtered
        return summarise(scores, ctx.threshold, value=mean(pooled), use_value=True, details=details)

    def _invocation(
        self, ctx: EvaluationContext, got: Invocation, want: Optional[Invocation], rubrics: RubricSet
    ) -> Judged:
        """The invocation's score when it cannot be judged, else how to judge it (in full,
        or with one sample when it is not pivotal)."""
        extra: dict[str, Any] = {}
        if rubrics.filtered_out:
            extra["rubrics_filtered_out"] = [rid for rid, _, _ in rubrics.filtered_out]
        if rubrics.problem is not None:
            return not_scored(rubrics.problem.code, rubrics.problem.reason, **extra)
        ids = rubrics.ids()
        system, prompt = self.prompt_for(ctx, got, want, rubrics.rubrics)
        request = self.request(system, prompt, rubric_schema(ids))
        sampling, num_samples = self.sampling, self.options.num_samples

        async def judged(full: bool) -> InvocationScore:
            if not full:
                samples = await ask(ctx.judge, request, self.options, rubric_reader(ids), single=True)
                return single_sample(
                    score_rubrics(ids, samples, extra, JudgeSampling(), 1), sampling, num_samples
                )
            samples = await ask(
                ctx.judge,
                request,
                self.options,
                rubric_reader(ids),
                sampling=sampling,
                votes=lambda verdicts: [verdicts[rid].score >= 0.5 for rid in ids],
                items=len(ids),
            )
            return score_rubrics(ids, samples, extra, sampling, num_samples)

        return judged


def _sample_detail(sample: Sample) -> dict[str, Any]:
    if not sample.ok:
        return {"error": sample.code, "message": sample.message}
    verdicts: dict[str, RubricVerdict] = sample.value
    return {
        "score": mean([v.score for v in verdicts.values()]),
        "verdicts": {rid: v.verdict for rid, v in verdicts.items()},
    }


def score_rubrics(
    ids: Sequence[str],
    samples: Sequence[Sample],
    extra: dict[str, Any],
    sampling: Optional[JudgeSampling] = None,
    num_samples: Optional[int] = None,
) -> InvocationScore:
    """One invocation's score from its samples (see the module docstring); each rubric
    decided by ``sampling`` (ADK's majority by default)."""
    sampling = sampling or JudgeSampling()
    details: dict[str, Any] = {
        **extra,
        "samples": [_sample_detail(s) for s in samples],
        **sample_counts(samples),
    }
    usable: list[dict[str, RubricVerdict]] = [s.value for s in samples if s.ok]
    if not usable:
        code, reason = failure(samples)
        return not_scored(code, reason, **details)
    entries = []
    decisions = []
    for rid in ids:
        verdicts = [sample[rid] for sample in usable]
        decision = sampling.decide([v.score >= 0.5 for v in verdicts])
        decisions.append(decision)
        score = decision.score
        assert score is not None
        agreeing = [v for v in verdicts if v.score == score]
        verdict = Counter(v.verdict for v in agreeing).most_common(1)[0][0]
        entries.append(
            {
                "rubric_id": rid,
                "verdict": verdict,
                "score": score,
                "rationale": agreeing[0].rationale,
                "votes": dict(Counter(v.verdict for v in verdicts)),
            }
        )
    details["rubrics"] = entries
    details.update(sampling.details(len(samples), num_samples or len(samples), decisions))
    value = mean([e["score"] for e in entries])
    failed = [e for e in entries if e["score"] == 0.0]
    reason = None
    if failed:
        listed = "; ".join(f"{e['rubric_id']!r}: {shorten(e['rationale'], 200)}" for e in failed[:3])
        more = f"; ... {len(failed) - 3} more" if len(failed) > 3 else ""
        reason = f"{len(failed)} of {len(entries)} rubrics not met: {listed}{more}"
    return InvocationScore(score=value, reason=reason, details=details)
