"""Result records, produced by the engine only (plugins return ``Score``).

    RunResult
    ├── summary: RunSummary            counts by status, per criterion
    ├── warnings: [str]                ignored config keys and similar
    └── eval_sets: [EvalSetResult]
        └── cases: [CaseResult]         status = worst criterion status
            ├── criteria: [CriterionResult]
            │   ├── per_invocation: [InvocationResult]
            │   └── runs: [CriterionResult]  each run's own result (--num-runs N > 1)
            └── agent_runs: [AgentRunRecord] what the agent did, per run (--agent only)

Statuses: PASSED, FAILED, NOT_EVALUATED (could not be scored, with a reason code),
ERRORED (the evaluator raised; ``error`` holds the exception), INFORMATIONAL (a
measurement with no threshold). The JSON form of ``RunResult`` is the documented
``--format json`` document (``docs/json-format.md``).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator, model_validator

from .errors import LEGACY_REASON_CODES
from .models import Invocation, MissingInput

__all__ = [
    "AgentRunRecord",
    "BudgetInfo",
    "CaseResult",
    "CriterionResult",
    "CriterionSummary",
    "ErrorInfo",
    "EvalSetResult",
    "EvalSetSummary",
    "IntervalInfo",
    "InvocationResult",
    "JudgeActivity",
    "JudgeAgreementInfo",
    "PluginInfo",
    "RunResult",
    "RunSummary",
    "SetCriterionSummary",
    "Status",
    "VerdictInfo",
]

FORMAT_VERSION = 1


class Status(str, enum.Enum):
    """The outcome of a criterion, a case or a run."""

    PASSED = "PASSED"
    FAILED = "FAILED"
    NOT_EVALUATED = "NOT_EVALUATED"
    ERRORED = "ERRORED"
    INFORMATIONAL = "INFORMATIONAL"

    @property
    def ok(self) -> bool:
        """PASSED and INFORMATIONAL are fine; anything else makes the run exit 1."""
        return self in (Status.PASSED, Status.INFORMATIONAL)


# Worst first: a case takes the status of its worst criterion.
_SEVERITY = [Status.FAILED, Status.ERRORED, Status.NOT_EVALUATED, Status.PASSED, Status.INFORMATIONAL]


#: Each status's rank in ``_SEVERITY`` (0: the most severe).
_RANK = {status: rank for rank, status in enumerate(_SEVERITY)}


def worst_status(statuses: Sequence[Status]) -> Status:
    """The most severe status; ``NOT_EVALUATED`` for an empty list."""
    if not statuses:
        return Status.NOT_EVALUATED
    return statuses[0] if len(statuses) == 1 else min(statuses, key=_RANK.__getitem__)


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _current_code(code: Optional[str]) -> Optional[str]:
    """A reason code as this engine names it: an older engine's (``LEGACY_REASON_CODES``,
    e.g. ``judge_budget_exhausted``) read as the code it became (``judge_budget``)."""
    return LEGACY_REASON_CODES.get(code, code) if code is not None else None


def _current_codes(counts: dict[str, int]) -> dict[str, int]:
    """Counts by reason code with older engines' codes merged into the current ones."""
    if not any(code in LEGACY_REASON_CODES for code in counts):
        return counts
    merged: dict[str, int] = {}
    for code, count in counts.items():
        key = LEGACY_REASON_CODES.get(code, code)
        merged[key] = merged.get(key, 0) + count
    return dict(sorted(merged.items()))


class PluginInfo(_Record):
    """Which plugin produced a score: distribution, its version, and the entry point."""

    # ``id`` is computed; reading a result document back must accept it.
    model_config = ConfigDict(frozen=True, extra="ignore")

    distribution: str
    version: str
    entry_point: str

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented spelling; mypy won't type it
    @property
    def id(self) -> str:
        """``distribution@version``."""
        return f"{self.distribution}@{self.version}"

    def __str__(self) -> str:
        return self.id


class ErrorInfo(_Record):
    """An exception raised by an evaluator."""

    type: str
    message: str
    traceback: str


class ModelUsage(_Record):
    """One judge model's calls (answered, not from the cache) and the tokens they used, as
    the provider reported them."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


class JudgeActivity(_Record):
    """What judge calls cost: calls made, answers served by the cache, retries,
    failures by reason code, and tokens (as reported by the provider), in total and by
    judge model (``models``, the name as the criterion gave it)."""

    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    failures: dict[str, int] = Field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    models: dict[str, ModelUsage] = Field(default_factory=dict)

    _codes = field_validator("failures")(_current_codes)


class JudgeCostInfo(_Record):
    """What the judge calls cost at the prices the config gives (``statistics.judge_prices``,
    per million tokens, in the config's own currency): ``total`` over the priced models,
    ``by_model``, and ``unpriced``: the models that made calls but have no price (their
    tokens are not in ``total``)."""

    total: float
    by_model: dict[str, float] = Field(default_factory=dict)
    unpriced: list[str] = Field(default_factory=list)


class InvocationResult(_Record):
    """One invocation's score under one criterion."""

    index: int
    invocation_id: str
    score: Optional[float]
    status: Status
    reason: Optional[str] = None
    reason_code: Optional[str] = None
    details: dict[str, Any] = Field(default_factory=dict)

    _code = field_validator("reason_code")(_current_code)


class IntervalInfo(_Record):
    """A confidence interval and how it was made (``docs/statistics.md``)."""

    low: float
    high: float
    method: str
    level: float
    n: int
    seed: Optional[int] = None
    #: The point value the interval is about (a mean, a rate); ``None`` when not given.
    estimate: Optional[float] = None
    #: Units with no score, which widened the interval (Manski bounds).
    n_missing: int = 0


class VerdictInfo(_Record):
    """The tri-state verdict beside ADK's point status: ``PASS`` / ``FAIL`` when the
    interval lies on one side of the threshold, ``INCONCLUSIVE`` when it contains it,
    ``NOT_EVALUATED`` without scores. ``basis``: ``single-run`` (one run: the point verdict),
    ``runs`` (the interval over the case's runs), ``zero-failure`` (a threshold at the best
    score), ``calibration`` (the calibration gate made it INCONCLUSIVE), ``judge_budget`` (the
    run's judge budget was spent before the result was judged: INCONCLUSIVE, never a FAIL).
    ``hint`` says how many runs would settle an INCONCLUSIVE verdict."""

    verdict: Literal["PASS", "FAIL", "INCONCLUSIVE", "NOT_EVALUATED"]
    basis: str
    reason: str
    interval: Optional[IntervalInfo] = None
    hint: Optional[str] = None


class CriterionResult(_Record):
    """One criterion's outcome for one case."""

    criterion: str
    threshold: Optional[float]
    score: Optional[float]
    status: Status
    reason: Optional[str] = None
    reason_code: Optional[str] = None
    per_invocation: list[InvocationResult] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)
    plugin: PluginInfo
    duration_seconds: float = 0.0
    error: Optional[ErrorInfo] = None
    judge: Optional[JudgeActivity] = None
    #: With several runs of the agent (``--num-runs N``), each run's own result, in run
    #: order; ``score`` is then their mean and ``details["spread"]`` their min, max and
    #: standard deviation. Empty for a single run.
    runs: list[CriterionResult] = Field(default_factory=list)
    #: The tri-state verdict (``None`` for an informational criterion or with ``--no-stats``).
    verdict: Optional[VerdictInfo] = None

    _code = field_validator("reason_code")(_current_code)


class AgentRunRecord(_Record):
    """One run of the agent under test on one case: the invocations it produced, or why
    there are none (``error``, with ``error_code`` such as ``agent_timeout``)."""

    run: int
    invocations: list[Invocation] = Field(default_factory=list)
    error_code: Optional[str] = None
    error: Optional[ErrorInfo] = None
    #: For a conversation scenario played by a user simulator: how it ended (``status``),
    #: the simulator's prompt version and model, and each simulated message's details.
    simulation: Optional[dict[str, Any]] = None
    #: What the agent printed during the case (stdout and stderr; credentials scrubbed).
    output: str = ""
    #: What a timed-out agent call left running (threads or processes), by name.
    left_behind: list[str] = Field(default_factory=list)
    #: Per turn index, what the recording of that turn lacks (``Invocation.missing_inputs``,
    #: e.g. a trace without content): kept so that re-scoring this run (``--actual RUN``)
    #: is NOT_EVALUATED where this one was, never a silent score.
    missing_inputs: dict[int, list[MissingInput]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _keep_missing_inputs(self) -> AgentRunRecord:
        """Taken from the turns when the record is made; given back to them when it is read."""
        if self.missing_inputs:
            for index, missing in self.missing_inputs.items():
                if 0 <= index < len(self.invocations):
                    self.invocations[index].mark_missing(tuple(missing))
            return self
        found = {i: list(t.missing_inputs()) for i, t in enumerate(self.invocations) if t.missing_inputs()}
        if found:
            object.__setattr__(self, "missing_inputs", found)  # the record is frozen once made
        return self


class CaseResult(_Record):
    """One eval case's outcome: the worst of its criteria's statuses."""

    eval_id: str
    status: Status
    criteria: list[CriterionResult]
    #: When the engine ran the agent (``--agent``): what it did in each run.
    agent_runs: list[AgentRunRecord] = Field(default_factory=list)
    #: Every judge call of the case's criteria, over all its runs (the sum of the criteria's
    #: ``judge``); ``None`` when no criterion called a judge.
    judge: Optional[JudgeActivity] = None


class EvalSetResult(_Record):
    """The cases of one eval set (one file)."""

    eval_set_id: str
    source: Optional[str] = None
    cases: list[CaseResult]


class JudgeAgreementInfo(_Record):
    """How a judge criterion's samples agreed over the run (``docs/statistics.md``):
    ``invocations`` judged; ``calls_used`` and ``calls_saved`` (against asking every
    sample, as ADK's full majority does); over the invocations with two usable votes or
    more, ``unanimity`` (share with every vote alike), ``fragile`` (majorities decided by
    one vote) and Krippendorff's ``krippendorff_alpha`` (nominal; ``None`` when not
    defined, e.g. every vote alike)."""

    invocations: int = 0
    calls_used: int = 0
    calls_saved: int = 0
    voted: int = 0
    unanimity: Optional[float] = None
    fragile: int = 0
    krippendorff_alpha: Optional[float] = None


class CriterionSummary(_Record):
    """One criterion across all cases of a run."""

    criterion: str
    threshold: Optional[float]
    plugin: PluginInfo
    mean_score: Optional[float]
    counts: dict[Status, int]
    #: Every judge call of the criterion over the run's cases and runs: the sum of its
    #: results' ``judge`` (so a resumed or multi-run run counts every call it recorded).
    judge: Optional[JudgeActivity] = None
    #: What those calls cost at the config's prices (``None`` without prices).
    judge_cost: Optional[JudgeCostInfo] = None
    #: For a judge criterion that records its votes: how its samples agreed.
    agreement: Optional[JudgeAgreementInfo] = None


class SetCriterionSummary(_Record):
    """One criterion over the cases of one eval set; the unit is the case
    (``docs/statistics.md``). ``None`` fields could not be computed (no threshold, an
    unbounded score range, ``--no-stats``).

    * ``verdict``: the set's tri-state verdict under ``verdict_rule`` (``holm``: FAIL if a
      case FAILs at Holm's levels over the set's cases or is NOT_EVALUATED, PASS if every
      case PASSes, else INCONCLUSIVE; ``any-case``: no correction; ``mean``: the verdict of
      the mean over cases); ``None`` for an informational criterion; ``verdict_reason``
      says why, ``guarantee`` the error it controls (``agenteval._stats.set_verdict``);
    * ``verdict_counts``: cases per tri-state verdict;
    * ``mean``: the mean of the case scores (each case the mean of its runs) with its
      interval over cases (betting below 20 cases, BCa from 20, Clopper–Pearson for 0/1
      scores, Manski-widened for cases with no score);
    * ``pass_rate``: the share of cases whose point (ADK) verdict passed, Clopper–Pearson;
    * the spread split: ``within_case_sd`` (run-to-run flakiness), ``between_case_sd``,
      ``icc``, ``design_effect``, and ``flaky_cases`` (cases whose runs scored differently).
    """

    criterion: str
    threshold: Optional[float]
    n_cases: int
    verdict: Optional[str] = None
    verdict_rule: Optional[str] = None
    verdict_reason: Optional[str] = None
    guarantee: Optional[str] = None
    verdict_counts: dict[str, int] = Field(default_factory=dict)
    mean: Optional[IntervalInfo] = None
    pass_rate: Optional[IntervalInfo] = None
    within_case_sd: Optional[float] = None
    between_case_sd: Optional[float] = None
    icc: Optional[float] = None
    design_effect: Optional[float] = None
    flaky_cases: int = 0


class EvalSetSummary(_Record):
    """The statistics of one eval set of the run, per criterion (``index``: its place in
    the run, as in the run folder's manifest)."""

    index: int
    eval_set_id: str
    criteria: list[SetCriterionSummary] = Field(default_factory=list)


class BudgetInfo(_Record):
    """What the run's limits allowed and what was used: judge calls against
    ``--judge-budget`` and judge tokens (input + output, as the providers report them)
    against ``--max-judge-tokens``. ``*_refused``: calls turned away once that budget was
    spent. ``inconclusive``: the criterion results (case x criterion) they left unjudged,
    each INCONCLUSIVE with the reason code ``judge_budget`` (point status NOT_EVALUATED:
    no score). The token budget is soft: calls already out when it is reached finish, so
    ``judge_tokens_used`` may pass it."""

    judge_calls_limit: Optional[int] = None
    judge_calls_used: int = 0
    judge_calls_refused: int = 0
    judge_tokens_limit: Optional[int] = None
    judge_tokens_used: int = 0
    judge_tokens_refused: int = 0
    inconclusive: int = 0


class RunSummary(_Record):
    """Counts of a run: cases and criterion results by status."""

    status: Status
    cases: dict[Status, int]
    criterion_results: dict[Status, int]
    criteria: list[CriterionSummary]
    not_evaluated_reasons: dict[str, int] = Field(default_factory=dict)
    invocations_not_evaluated: dict[str, int] = Field(default_factory=dict)
    #: Every judge-model call of the run (criteria and user simulator), summed.
    judge: Optional[JudgeActivity] = None
    #: The user simulator's share of ``judge`` (``--agent`` runs with conversation scenarios).
    user_simulator: Optional[JudgeActivity] = None
    #: Per eval set, per criterion: intervals over cases and the set's tri-state verdict
    #: (empty with ``--no-stats``).
    eval_sets: list[EvalSetSummary] = Field(default_factory=list)
    #: The run's budgets and their use (``None`` when the run had none).
    budget: Optional[BudgetInfo] = None
    #: What the judge calls cost at the config's prices (``None`` without prices).
    judge_cost: Optional[JudgeCostInfo] = None

    _codes = field_validator("not_evaluated_reasons", "invocations_not_evaluated")(_current_codes)

    def inconclusive(self) -> int:
        """How many criterion results of the eval sets' statistics are INCONCLUSIVE (their
        interval contains the threshold): what ``--fail-on-inconclusive`` exits 3 on."""
        return sum(
            criterion.verdict_counts.get("INCONCLUSIVE", 0)
            for eval_set in self.eval_sets
            for criterion in eval_set.criteria
        )


class RunResult(_Record):
    """Everything a run produced. ``model_dump(mode="json")`` is the JSON document."""

    format_version: int = FORMAT_VERSION
    engine_version: str
    summary: RunSummary
    eval_sets: list[EvalSetResult]
    warnings: list[str] = Field(default_factory=list)
    interrupted: bool = False
    #: The run folder's id when the run was recorded (``docs/run-folder.md``), else ``None``.
    run_id: Optional[str] = None

    @property
    def passed(self) -> bool:
        """True when every case is PASSED or INFORMATIONAL."""
        return self.summary.status.ok

    def cases(self) -> list[CaseResult]:
        """Every case result of every eval set."""
        return [case for eval_set in self.eval_sets for case in eval_set.cases]
