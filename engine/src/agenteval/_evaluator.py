"""The plugin contract: ``Evaluator``, its ``Params``, ``EvaluationContext`` and ``Score``.

A criterion is one ``Evaluator`` subclass registered under the ``agenteval.criteria``
entry-point group. The smallest useful plugin::

    from agenteval import Evaluator, EvaluatorInfo, InvocationScore, Score

    class ShortAnswer(Evaluator):
        info = EvaluatorInfo(description="1.0 when the final response has <= 50 words.")

        def evaluate(self, ctx):
            scores = [
                InvocationScore(score=float(len(inv.final_text().split()) <= 50))
                for inv in ctx.actual
            ]
            return Score.mean_of(scores)

The engine, not the plugin, compares scores with thresholds, catches exceptions (an
exception becomes an ERRORED result) and aggregates cases. This contract only grows:
new optional fields may appear in minor releases; nothing is removed or renamed.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Sequence
from typing import Any, ClassVar, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from .models import EvalCase, Invocation, InvocationInput

__all__ = [
    "EvaluationContext",
    "Evaluator",
    "EvaluatorInfo",
    "InvocationScore",
    "Params",
    "Score",
    "explain_scores",
]


class Params(BaseModel):
    """Base for an evaluator's parameters: unknown keys are errors; both snake_case and
    camelCase keys are accepted (as in ADK's criterion objects)."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        alias_generator=to_camel,
        populate_by_name=True,
        loc_by_alias=False,
    )


# ``Evaluator``'s body has a class attribute named ``Params``; its annotations name the model
# through this alias (type checkers read ``Params`` there as the attribute).
_ParamsModel = Params


class EvaluatorInfo(BaseModel):
    """What an evaluator declares about itself (shown by ``agenteval criteria``).

    Attributes:
        description: one line, shown in listings.
        min_score / max_score: the score range (``None`` = unbounded).
        higher_is_better: the direction of the threshold comparison
            (``score >= threshold`` when True, ``score <= threshold`` otherwise).
        default_threshold: used when the user gives none.
        requires_expected: needs the expected invocations (a reference conversation);
            the engine reports NOT_EVALUATED for cases without one, without calling it.
        requires_rubrics: needs rubrics.
        requires_judge: calls a judge model.
        informational: a measurement, never pass/fail; a threshold is an error.
        shows_trajectory: its scores are about the agent's tool calls, so reports show the
            expected and actual tool calls as its evidence (and, when its per-invocation
            ``details["alignment"]`` holds trajectory rows, that aligned trajectory) instead
            of the final responses.
        reads: the parts of each actual invocation its score depends on (``user_content``,
            ``final_response``, ``tool_calls``, ``tool_results``); ``None``, the default, is
            all of them, and ``frozenset()`` none (timings, token counts). When a recorded
            turn lacks one of them (a trace without message content), the engine reports
            NOT_EVALUATED with the finding's reason code instead of calling it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    description: str
    min_score: Optional[float] = 0.0
    max_score: Optional[float] = 1.0
    higher_is_better: bool = True
    default_threshold: Optional[float] = None
    requires_expected: bool = False
    requires_rubrics: bool = False
    requires_judge: bool = False
    informational: bool = False
    shows_trajectory: bool = False
    reads: Optional[frozenset[InvocationInput]] = None


class EvaluationContext(BaseModel):
    """Everything an evaluator sees for one eval case.

    Attributes:
        case: the eval case (its rubrics, session input, scenario...).
        actual: the agent's invocations to score, in order: every turn, or the turns after
            the case's ``context_turns``.
        expected: the case's expected invocations for the same turns (``None`` for scenario
            cases). When the evaluator declares ``requires_expected``, the engine guarantees
            it is set and as long as ``actual``.
        history: the turns before ``actual`` that are context only, not scored (the case's
            ``context_turns``: an Agent Platform dataset's ``conversation_history``); empty
            when every turn is scored. Judges may show it as the conversation so far.
        threshold: the threshold the engine will apply (``None`` for informational ones).
        judge: for criteria with ``requires_judge``, an ``agenteval._judging.JudgeClient``
            bound to this criterion (run-wide concurrency, retries, timeout, cache).
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    case: EvalCase
    actual: Sequence[Invocation]
    expected: Optional[Sequence[Invocation]] = None
    threshold: Optional[float] = None
    judge: Optional[Any] = None
    history: Sequence[Invocation] = ()

    def pairs(self) -> list[tuple[Invocation, Invocation]]:
        """``(actual, expected)`` pairs; ``ValueError`` if there is no expected data."""
        if self.expected is None:
            raise ValueError("this case has no expected invocations")
        return list(zip(self.actual, self.expected, strict=True))


def _finite_or_none(value: Optional[float]) -> Optional[float]:
    if value is not None and not math.isfinite(value):
        raise ValueError(f"a score must be a finite number, got {value!r}")
    return value


class InvocationScore(BaseModel):
    """The score of one invocation. ``score=None`` means it could not be evaluated:
    ``reason`` says why and ``reason_code`` is a stable code (e.g. ``judge_unparseable``)."""

    model_config = ConfigDict(frozen=True)

    score: Optional[float]
    reason: Optional[str] = None
    reason_code: Optional[str] = None
    details: dict[str, Any] = Field(default_factory=dict)

    @field_validator("score")
    @classmethod
    def _finite(cls, value: Optional[float]) -> Optional[float]:
        return _finite_or_none(value)


class Score(BaseModel):
    """What ``Evaluator.evaluate`` returns for one case.

    Attributes:
        value: the case's score, finite; ``None`` means NOT_EVALUATED.
        reason: a short human explanation (why it failed, or why it was not evaluated).
        reason_code: a stable machine code for ``value=None`` (e.g. ``no_invocations``).
        per_invocation: one entry per actual invocation (may be empty for whole-case
            measures).
        details: any JSON-serialisable extra data shown in detailed results.
    """

    model_config = ConfigDict(frozen=True)

    value: Optional[float]
    reason: Optional[str] = None
    reason_code: Optional[str] = None
    per_invocation: list[InvocationScore] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)

    @field_validator("value")
    @classmethod
    def _finite(cls, value: Optional[float]) -> Optional[float]:
        return _finite_or_none(value)

    @classmethod
    def not_evaluated(cls, reason: str, code: str = "not_evaluated", **kwargs: Any) -> Score:
        """A NOT_EVALUATED result with its reason (never averaged into anything)."""
        return cls(value=None, reason=reason, reason_code=code, **kwargs)

    @classmethod
    def mean_of(cls, per_invocation: Sequence[InvocationScore], **kwargs: Any) -> Score:
        """The arithmetic mean of the evaluated invocations' scores (ADK's aggregation).

        Invocations scored ``None`` are left out of the mean; with no scored invocation
        at all the result is NOT_EVALUATED (code ``no_invocations`` when the list is
        empty, ``no_scored_invocations`` otherwise). ``kwargs`` (``reason``,
        ``details``...) are kept in every case; a given ``reason`` replaces the default
        NOT_EVALUATED explanation.
        """
        scored = [s.score for s in per_invocation if s.score is not None]
        if scored:
            return cls(value=math.fsum(scored) / len(scored), per_invocation=list(per_invocation), **kwargs)
        if per_invocation:
            reason, code = "no invocation could be scored", "no_scored_invocations"
        else:
            reason, code = "the case has no invocations to score", "no_invocations"
        fields = {"reason": reason, "reason_code": code, **kwargs}
        return cls(value=None, per_invocation=list(per_invocation), **fields)


_MAX_LISTED = 5


def explain_scores(per_invocation: Sequence[InvocationScore], threshold: Optional[float]) -> Optional[str]:
    """A case-level ``reason`` from per-invocation scores, for evaluators to return.

    Names the invocations that scored below ``threshold`` (at most five, with their
    scores) and quotes the first one's reason, then the invocations that could not be
    evaluated with their reason codes. ``None`` when there is neither.
    """
    items = list(per_invocation)
    parts = []
    low = [
        (i, s)
        for i, s in enumerate(items)
        if threshold is not None and s.score is not None and s.score < threshold
    ]
    if low:
        listed = ", ".join(f"#{i + 1} ({s.score:.3g})" for i, s in low[:_MAX_LISTED])
        if len(low) > _MAX_LISTED:
            listed += f", ... {len(low) - _MAX_LISTED} more"
        text = f"{len(low)} of {len(items)} invocations scored below {threshold:g}: {listed}"
        first_index, first = low[0]
        if first.reason:
            flat = " ".join(first.reason.split())
            text += f". #{first_index + 1}: {flat if len(flat) <= 400 else flat[:399] + '…'}"
        parts.append(text)
    skipped = [(i, s) for i, s in enumerate(items) if s.score is None]
    if skipped:
        listed = ", ".join(f"#{i + 1} ({s.reason_code})" for i, s in skipped[:_MAX_LISTED])
        parts.append(f"{len(skipped)} of {len(items)} invocations not evaluated: {listed}")
    return "; ".join(parts) or None


class Evaluator(ABC):
    """Base class of every criterion's code.

    Subclasses set ``info`` and, when they take parameters, a nested ``Params``
    (a subclass of :class:`Params`). The engine creates one instance per run with the
    validated parameters, available as ``self.params``.

    ``evaluate`` may be ``def`` or ``async def``. Raising is allowed: the engine turns
    an exception into an ERRORED result and the run goes on.
    """

    Params: ClassVar[type[Params]] = Params
    info: ClassVar[EvaluatorInfo]

    def __init__(self, params: Optional[_ParamsModel] = None) -> None:
        self.params = params if params is not None else type(self).Params()

    @abstractmethod
    def evaluate(self, ctx: EvaluationContext) -> Union[Score, Awaitable[Score]]:
        """Score one case."""

    def check_ready(self) -> None:  # noqa: B027 - an optional hook, a no-op by default
        """Preflight before any case runs (credentials, project...). Raise to stop."""

    def prepare(self) -> None:  # noqa: B027 - an optional hook, a no-op by default
        """Costly one-time setup (heavy imports, loading a model), run once per run before
        the first ``evaluate``, in a worker thread. With ``--agent`` it runs while the
        agent does, so its cost is hidden behind the agent's turns. Raising makes this
        criterion's results ERRORED (``prepare_error``); other criteria are unaffected.
        Must be safe to call more than once (e.g. by ``agenteval.testing``)."""

    def judge_models(self) -> list[str]:
        """The judge models this evaluator will call (checked before any work).

        By default, ``params.judge_model_options.judge_model`` when the params have it.
        """
        options = getattr(self.params, "judge_model_options", None)
        model = getattr(options, "judge_model", None)
        return [model] if isinstance(model, str) else []

    def planned_judge_calls(self, ctx: EvaluationContext) -> int:
        """How many judge calls ``evaluate`` would make for ``ctx`` (for ``--dry-run``);
        an upper bound is fine. 0 for criteria that call no judge."""
        return 0

    async def aclose(self) -> None:  # noqa: B027 - an optional hook, a no-op by default
        """Release resources at the end of a run."""
