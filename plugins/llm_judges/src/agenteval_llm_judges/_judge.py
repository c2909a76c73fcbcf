"""What the five judge criteria share: asking for samples, reading them, summarising a case.

A *sample* is one judge answer to one question. It is usable when the call succeeded and
the answer could be read; otherwise it carries a reason code: the ``JudgeUnavailable``
code (``judge_error``, ``judge_timeout``...) or ``judge_unparseable``. ADK marks an
invocation NOT_EVALUATED as soon as any sample failed; here the usable samples vote and the
invocation is NOT_EVALUATED only when none is usable.
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Optional, TypeVar

from agenteval import (
    EvaluationContext,
    Evaluator,
    InvocationScore,
    JudgeOptions,
    JudgeRequest,
    JudgeResponse,
    Score,
    explain_scores,
)
from agenteval.errors import JudgeUnavailable

from ._parsing import Unparseable, parse_answer
from ._render import template_sha256
from ._voting import JudgeSampling

__all__ = [
    "JudgeCriterion",
    "Sample",
    "ask",
    "failure",
    "gather",
    "not_scored",
    "shorten",
    "summarise",
]

T = TypeVar("T")

UNPARSEABLE = "judge_unparseable"
#: The reason codes of a call the run's judge budget refused: ``judge_budget`` and an
#: older engine's ``judge_budget_exhausted``.
BUDGET = ("judge_budget", "judge_budget_exhausted")
_EXCERPT = 200


def shorten(text: str, limit: int = 300) -> str:
    """``text`` on one line, cut to ``limit`` characters (with an ellipsis when cut)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 1)] + "…"


@dataclass(frozen=True)
class Sample:
    """One judge answer: the parsed ``value``, or a failure ``code`` and ``message``."""

    value: Any = None
    code: Optional[str] = None
    message: Optional[str] = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.code is None


def _read(response: JudgeResponse, read: Callable[[dict[str, Any]], Any]) -> Sample:
    try:
        value = parse_answer(response.text, read)
    except Unparseable as exc:
        excerpt = shorten(response.text, _EXCERPT) or "(empty)"
        return Sample(code=UNPARSEABLE, message=f"{exc} (answer: {excerpt!r})", cached=response.cached)
    return Sample(value=value, cached=response.cached)


async def ask(
    judge: Any,
    request: JudgeRequest,
    options: JudgeOptions,
    read: Callable[[dict[str, Any]], Any],
    *,
    single: bool = False,
    sampling: Optional[JudgeSampling] = None,
    votes: Optional[Callable[[Any], Sequence[bool]]] = None,
    items: int = 1,
) -> list[Sample]:
    """Answers to ``request``, each parsed with ``read``, in sample order; failures are
    kept in place as failed samples, never raised.

    One answer with ``single``; all ``options.num_samples`` at once without ``sampling``;
    with ``sampling`` (and ``votes``, which gives a usable answer's vote on each of the
    ``items`` questions it answers: one, or one per rubric), batches of sample indices
    0, 1, 2... until ``sampling.next_batch`` says every item is decided."""
    if single:
        try:
            outcomes: list[Any] = [await judge.generate(request, options)]
        except JudgeUnavailable as exc:
            outcomes = [exc]
        return [_sample(outcome, read) for outcome in outcomes]
    if sampling is None or votes is None:
        return _within_budget([_sample(outcome, read) for outcome in await judge.samples(request, options)])
    samples: list[Sample] = []
    while not any(s.code in BUDGET for s in samples):
        tallies: list[list[bool]] = [[] for _ in range(items)]
        for sample in samples:
            if sample.ok:
                for tally, vote in zip(tallies, votes(sample.value), strict=True):
                    tally.append(vote)
        size = sampling.next_batch(tallies, len(samples), options.num_samples)
        if size <= 0:
            return samples
        start = len(samples)
        outcomes = await asyncio.gather(
            *(judge.generate(request, options, index) for index in range(start, start + size)),
            return_exceptions=True,
        )
        for outcome in outcomes:
            if isinstance(outcome, BaseException) and not isinstance(outcome, JudgeUnavailable):
                raise outcome
            samples.append(_sample(outcome, read))
    return _within_budget(samples)


def _within_budget(samples: list[Sample]) -> list[Sample]:
    """A question the run's judge budget cut short is not evaluated: its votes so far are
    not the majority it asked for, so only the refused samples are kept (the question is
    NOT_EVALUATED ``judge_budget``, which the engine makes INCONCLUSIVE; never judged on part
    of its votes)."""
    refused = [s for s in samples if s.code in BUDGET]
    return refused if refused else samples


def _sample(outcome: Any, read: Callable[[dict[str, Any]], Any]) -> Sample:
    if isinstance(outcome, JudgeUnavailable):
        return Sample(code=outcome.code, message=str(outcome))
    return _read(outcome, read)


def failure(samples: Sequence[Sample]) -> tuple[str, str]:
    """The reason code and reason for a question none of whose samples was usable:
    the most frequent failure code (the first one seen on a tie) and its first message."""
    failed = [s for s in samples if not s.ok]
    if not failed:
        return UNPARSEABLE, "the judge gave no answer"
    code = Counter(s.code for s in failed).most_common(1)[0][0]
    message = next(s.message for s in failed if s.code == code)
    count = f"{len(failed)} of {len(samples)} samples failed" if len(samples) > 1 else "the judge call failed"
    if code == UNPARSEABLE:
        count = (
            f"{len(failed)} of {len(samples)} answers could not be read"
            if len(samples) > 1
            else ("the judge's answer could not be read")
        )
    return str(code), f"{count}; {code}: {message}"


def sample_counts(samples: Sequence[Sample]) -> dict[str, Any]:
    """``samples_used``, ``samples_failed`` and the failure codes, for ``details``."""
    failed = [s for s in samples if not s.ok]
    out: dict[str, Any] = {"samples_used": len(samples) - len(failed), "samples_failed": len(failed)}
    if failed:
        out["sample_failures"] = dict(Counter(str(s.code) for s in failed))
    return out


def not_scored(code: str, reason: str, **details: Any) -> InvocationScore:
    """A NOT_EVALUATED invocation."""
    return InvocationScore(score=None, reason=reason, reason_code=code, details=details)


async def gather(items: Sequence[Awaitable[T]]) -> list[T]:
    """``asyncio.gather`` of ``items`` (the engine's judge service bounds concurrency)."""
    return list(await asyncio.gather(*items))


def summarise(
    per_invocation: Sequence[InvocationScore],
    threshold: Optional[float],
    *,
    value: Optional[float] = None,
    use_value: bool = False,
    details: dict[str, Any],
) -> Score:
    """The case's ``Score``: the mean of the scored invocations (or ``value`` when
    ``use_value``), a reason listing invocations below ``threshold``; NOT_EVALUATED
    when nothing was scored, with the invocations' common reason code (else
    ``no_scored_invocations``) and the first invocation's reason."""
    items = list(per_invocation)
    scored = [s.score for s in items if s.score is not None]
    if not use_value:
        value = math.fsum(scored) / len(scored) if scored else None
    skipped = [(i, s) for i, s in enumerate(items) if s.score is None]
    if value is None:
        if not items:
            return Score.not_evaluated(
                "the case has no invocations to score", "no_invocations", details=details
            )
        codes = {s.reason_code for _, s in skipped}
        code = codes.pop() if len(codes) == 1 and None not in codes else "no_scored_invocations"
        index, first = skipped[0]
        where = f"invocation #{index + 1}: " if len(items) > 1 else ""
        reason = f"no invocation could be scored; {where}{first.reason or code}"
        return Score(value=None, reason=reason, reason_code=code, per_invocation=items, details=details)
    return Score(value=value, reason=explain_scores(items, threshold), per_invocation=items, details=details)


class JudgeCriterion(Evaluator):
    """Base of the judge criteria: the prompt identity and the request they send.

    Subclasses set ``PROMPT_VERSION`` and ``TEMPLATES`` (the instruction texts, with
    placeholders) and a ``Params`` holding ``judge_model_options``.
    """

    PROMPT_VERSION: ClassVar[str]
    TEMPLATES: ClassVar[tuple[str, ...]]
    #: The run's ``--judge-sampling`` (from ``ctx.judge``), which overrides ``judge_sampling``.
    _run_sampling: Optional[str] = None

    @property
    def options(self) -> JudgeOptions:
        return self.params.judge_model_options  # type: ignore[attr-defined]

    @property
    def sampling(self) -> JudgeSampling:
        """How many samples a question takes (``judge_sampling``; curtailed majority by default)."""
        own = getattr(self.params, "judge_sampling", None) or JudgeSampling()
        return own.overridden(self._run_sampling)

    def adopt_run(self, ctx: EvaluationContext) -> None:
        """Take the run's settings from its judge (``--judge-sampling``): the same for every
        case of a run, so setting it on the shared evaluator is safe."""
        self._run_sampling = getattr(ctx.judge, "sampling", None)

    @property
    def samples_per_question(self) -> int:
        """The most judge calls one question may take (for ``planned_judge_calls``)."""
        return self.sampling.budget(self.options.num_samples)

    @classmethod
    def prompt_identity(cls) -> dict[str, str]:
        """``{"prompt_version", "prompt_sha256"}``, recorded in every ``Score.details``."""
        return {"prompt_version": cls.PROMPT_VERSION, "prompt_sha256": template_sha256(*cls.TEMPLATES)}

    def request(self, system: str, prompt: str, schema: dict[str, Any]) -> JudgeRequest:
        """A request carrying the structured-output schema and the configured settings."""
        options = self.options
        return JudgeRequest(
            prompt=prompt,
            system_instruction=system,
            response_schema=schema,
            temperature=options.temperature,
            config=dict(options.judge_model_config or {}),
        )

    def without_judge(self, ctx: EvaluationContext) -> Optional[Score]:
        """NOT_EVALUATED (``no_judge``) when the engine gave no judge; ``None`` otherwise."""
        self.adopt_run(ctx)
        if ctx.judge is not None:
            return None
        return Score.not_evaluated(
            "no judge model is available to this evaluation (ctx.judge is None); run it through "
            "agenteval.evaluate or the CLI, which provide one",
            "no_judge",
            details=self.prompt_identity(),
        )
