"""The verdict rules, written once: a score against its threshold, several runs of a case
combined, a case's status from its criteria, and a run's summary accumulated case by case.

Every rule works from a ``CriterionEntry`` (what the run folder's manifest records about a
criterion), so a report re-rendered from a run folder gives the same verdicts as the run.
"""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Optional, Union, overload

from ._results import (
    AgentRunRecord,
    BudgetInfo,
    CaseResult,
    CriterionResult,
    CriterionSummary,
    EvalSetSummary,
    IntervalInfo,
    JudgeActivity,
    JudgeAgreementInfo,
    JudgeCostInfo,
    ModelUsage,
    PluginInfo,
    RunSummary,
    SetCriterionSummary,
    Status,
    VerdictInfo,
    worst_status,
)
from .errors import JUDGE_BUDGET

if TYPE_CHECKING:  # the run-folder schema imports the verdict rules, not the reverse
    from ._stats import Interval, SetVerdict
    from .runs._records import CriterionEntry, EvalSetEntry

__all__ = [
    "CALIBRATION_BASIS",
    "JUDGE_BUDGET_BASIS",
    "SummaryBuilder",
    "budget_gated",
    "calibration_gated",
    "case_criteria",
    "over_runs",
    "point_verdict",
    "same_outputs",
    "verdict_hints",
    "case_status",
    "combine_runs",
    "not_evaluated",
    "judge_cost",
    "plugin_of",
    "set_criterion_summary",
    "status_for",
    "sum_activity",
]


def plugin_of(criterion: CriterionEntry) -> PluginInfo:
    return _plugin_info(criterion.distribution, criterion.version, criterion.entry_point)


@functools.lru_cache(maxsize=256)
def _plugin_info(distribution: str, version: str, entry_point: str) -> PluginInfo:
    # One frozen object per plugin, shared by its results (not one per case and criterion).
    return PluginInfo(distribution=distribution, version=version, entry_point=entry_point)


def status_for(score: Optional[float], criterion: CriterionEntry) -> Status:
    """INFORMATIONAL for a measurement; NOT_EVALUATED without a score; else PASSED when
    the score reaches the threshold (inclusive) in the criterion's direction."""
    if criterion.informational:
        return Status.INFORMATIONAL
    if score is None:
        return Status.NOT_EVALUATED
    assert criterion.threshold is not None
    if criterion.higher_is_better:
        return Status.PASSED if score >= criterion.threshold else Status.FAILED
    return Status.PASSED if score <= criterion.threshold else Status.FAILED


def base_fields(criterion: CriterionEntry) -> dict:
    return {"criterion": criterion.name, "threshold": criterion.threshold, "plugin": plugin_of(criterion)}


def not_evaluated(criterion: CriterionEntry, reason: str, code: str) -> CriterionResult:
    """A NOT_EVALUATED result with its reason and reason code."""
    return CriterionResult(
        **base_fields(criterion), score=None, status=Status.NOT_EVALUATED, reason=reason, reason_code=code
    )


def case_status(results: Sequence[CriterionResult]) -> Status:
    """The worst status among a case's gating criteria; INFORMATIONAL when all inform."""
    gating = [r.status for r in results if r.status is not Status.INFORMATIONAL]
    if not gating and results:
        return Status.INFORMATIONAL
    return worst_status(gating)


def _pooled_scores(runs: Sequence[CriterionResult]) -> list[float]:
    """The scores a multi-run verdict averages: every per-invocation score of every run
    (ADK's rule) when each run reports them, else each run's case score."""
    if all(r.per_invocation for r in runs):
        return [p.score for r in runs for p in r.per_invocation if p.score is not None]
    return [r.score for r in runs if r.score is not None]


class _ActivitySum:
    """Judge activities added up as they come, a few integers each (no record per add)."""

    def __init__(self) -> None:
        self.present = False
        self.counts = [0, 0, 0, 0, 0]  # calls, cache hits, retries, input tokens, output tokens
        self.failures: dict[str, int] = {}
        self.models: dict[str, list[int]] = {}  # judge model -> [calls, input, output tokens]

    def add(self, activity: Optional[JudgeActivity], times: int = 1) -> None:
        if activity is None:
            return
        self.present = True
        for i, value in enumerate(
            (
                activity.calls,
                activity.cache_hits,
                activity.retries,
                activity.input_tokens,
                activity.output_tokens,
            )
        ):
            self.counts[i] += value * times
        for code, count in activity.failures.items():
            self.failures[code] = self.failures.get(code, 0) + count * times
        for name, usage in activity.models.items():
            counts = self.models.setdefault(name, [0, 0, 0])
            counts[0] += usage.calls * times
            counts[1] += usage.input_tokens * times
            counts[2] += usage.output_tokens * times

    def merge(self, other: _ActivitySum) -> None:
        """Add ``other``'s sums to these."""
        self.present = self.present or other.present
        self.counts = [mine + theirs for mine, theirs in zip(self.counts, other.counts, strict=True)]
        for code, count in other.failures.items():
            self.failures[code] = self.failures.get(code, 0) + count
        for name, usage in other.models.items():
            counts = self.models.setdefault(name, [0, 0, 0])
            for i in range(3):
                counts[i] += usage[i]

    def state(self) -> Optional[list]:
        """The sums as plain JSON data (``restored``); ``None`` when nothing was added."""
        return [self.counts, self.failures, self.models] if self.present else None

    @classmethod
    def restored(cls, state: Optional[list]) -> _ActivitySum:
        found = cls()
        if state is not None:
            counts, failures, models = state
            found.present = True
            found.counts = [int(n) for n in counts]
            if len(found.counts) != 5:
                raise ValueError("not a judge activity")
            found.failures = {str(k): int(v) for k, v in failures.items()}
            found.models = {str(k): [int(n) for n in v] for k, v in models.items()}
        return found

    def total(self) -> Optional[JudgeActivity]:
        if not self.present:
            return None
        calls, cache_hits, retries, inputs, outputs = self.counts
        return JudgeActivity(
            calls=calls,
            cache_hits=cache_hits,
            retries=retries,
            failures=dict(sorted(self.failures.items())),
            input_tokens=inputs,
            output_tokens=outputs,
            models={
                name: ModelUsage(calls=n, input_tokens=i, output_tokens=o)
                for name, (n, i, o) in sorted(self.models.items())
            },
        )


def sum_activity(activities: Iterable[Optional[JudgeActivity]]) -> Optional[JudgeActivity]:
    """Judge activities added up; ``None`` when there are none."""
    total = _ActivitySum()
    for activity in activities:
        total.add(activity)
    return total.total()


def judge_cost(
    activity: Optional[JudgeActivity], prices: Mapping[str, Mapping[str, float]]
) -> Optional[JudgeCostInfo]:
    """What ``activity``'s calls cost at ``prices`` (judge model -> ``input_per_mtok`` and
    ``output_per_mtok``, per million tokens as reported): ``None`` without prices or
    activity. A model with calls and no price is listed in ``unpriced``, never costed 0."""
    if not prices or activity is None:
        return None
    by_model: dict[str, float] = {}
    unpriced = []
    for name, usage in activity.models.items():
        price = prices.get(name)
        if price is None:
            unpriced.append(name)
            continue
        by_model[name] = (
            usage.input_tokens * price["input_per_mtok"] + usage.output_tokens * price["output_per_mtok"]
        ) / 1_000_000
    return JudgeCostInfo(total=math.fsum(by_model.values()), by_model=by_model, unpriced=unpriced)


#: the correctly rounded square root of a fraction that ``statistics.pstdev`` ends with
#: (Python 3.11 and later; absent before, whose ``pstdev`` rounds otherwise)
_SQRT_OF_FRACTION = getattr(statistics, "_float_sqrt_of_frac", None)


def pstdev(values: Sequence[float]) -> float:
    """``statistics.pstdev(values)``, the same float, its exact arithmetic done in integers
    (a float is an integer over a power of two) rather than in fractions: a sixth of the
    time, for the spread of every combined criterion of every case a reader renders. Input
    other than finite floats, and Python 3.10, go to ``statistics.pstdev`` itself."""
    finite = all(type(value) is float and math.isfinite(value) for value in values)
    if _SQRT_OF_FRACTION is None or not values or not finite:
        return statistics.pstdev(values)
    ratios = [value.as_integer_ratio() for value in values]
    scale = max(denominator for _, denominator in ratios)  # powers of two: their lcm
    units = [numerator * (scale // denominator) for numerator, denominator in ratios]
    count, total = len(units), sum(units)
    # the population variance, exactly: (n * sum(x^2) - sum(x)^2) / n^2, as pstdev has it
    numerator, denominator = count * sum(unit * unit for unit in units) - total * total, (count * scale) ** 2
    common = math.gcd(numerator, denominator)  # in lowest terms, as a ``Fraction`` has it
    return float(_SQRT_OF_FRACTION(numerator // common, denominator // common))


def combine_runs(criterion: CriterionEntry, runs: Sequence[CriterionResult]) -> CriterionResult:
    """One criterion's verdict over several runs of the agent on one case.

    The score is the mean of every run's per-invocation scores (ADK's ``num_runs`` rule;
    each run's case score when a criterion gives no per-invocation scores), compared
    with the threshold. A run that ERRORED or was NOT_EVALUATED is never averaged away:
    the combined result takes that status and names the run. ``details["spread"]`` has
    the per-run scores' min, max and population standard deviation.
    """
    scores = _pooled_scores(runs)
    mean = math.fsum(scores) / len(scores) if scores else None
    run_scores = [r.score for r in runs]
    present = [s for s in run_scores if s is not None]
    details: dict = {"run_scores": run_scores}
    if present:
        low, high = min(present), max(present)
        details["spread"] = {
            "min": low,
            "max": high,
            # equal scores: 0.0, what ``pstdev``'s exact arithmetic (in fractions) gives them
            "stdev": pstdev(present) if low != high else 0.0,
        }
    common = {
        **base_fields(criterion),
        "score": mean,
        "details": details,
        "runs": list(runs),
        "judge": sum_activity(r.judge for r in runs),
        "duration_seconds": sum(r.duration_seconds for r in runs),
    }
    for status in (Status.ERRORED, Status.NOT_EVALUATED):
        broken = [(i, r) for i, r in enumerate(runs, start=1) if r.status is status]
        if broken and not criterion.informational:
            _, first = broken[0]
            which = ", ".join(str(i) for i, _ in broken)
            why = first.reason or first.reason_code or "no reason given"
            reason = f"run(s) {which} of {len(runs)} {status.value.lower().replace('_', ' ')}: {why}"
            return CriterionResult(
                **common, status=status, reason=reason, reason_code=first.reason_code, error=first.error
            )
    status = status_for(mean, criterion)
    if mean is None:
        reason = "no run produced a score"
    else:
        shown = ", ".join("-" if s is None else f"{s:.3g}" for s in run_scores)
        reason = f"mean {mean:.4g} over {len(runs)} runs (per run: {shown})"
    return CriterionResult(
        **common,
        status=status,
        reason=reason,
        reason_code="not_evaluated" if status is Status.NOT_EVALUATED else None,
    )


#: The tri-state verdict of a single run: the point verdict (shared, immutable records).
_POINT = {
    Status.PASSED: VerdictInfo(verdict="PASS", basis="single-run", reason="one run: the point verdict"),
    Status.FAILED: VerdictInfo(verdict="FAIL", basis="single-run", reason="one run: the point verdict"),
    Status.NOT_EVALUATED: VerdictInfo(verdict="NOT_EVALUATED", basis="single-run", reason="no score"),
    Status.ERRORED: VerdictInfo(verdict="NOT_EVALUATED", basis="single-run", reason="the criterion errored"),
}


def point_verdict(status: Status) -> Optional[VerdictInfo]:
    """The tri-state verdict of one run: PASS / FAIL as the point status (``None`` for an
    informational result)."""
    return _POINT.get(status)


def same_outputs(actuals: Sequence[Optional[AgentRunRecord]]) -> bool:
    """Whether two runs or more gave identical outputs: every run recorded, with the same
    final texts and tool calls (names and arguments) turn by turn. Ids and timestamps
    differ between runs and do not count."""
    if len(actuals) < 2 or any(a is None or a.error_code is not None or not a.invocations for a in actuals):
        return False

    def content(actual: AgentRunRecord) -> list:
        return [
            (turn.final_text(), [(call.name, call.args) for call in turn.tool_calls()])
            for turn in actual.invocations
        ]

    recorded = [a for a in actuals if a is not None]  # every one, as checked above
    first = content(recorded[0])
    return all(content(a) == first for a in recorded[1:])


def over_runs(
    criterion: CriterionEntry,
    combined: CriterionResult,
    *,
    level: float,
    seed: int,
    identical_outputs: Union[bool, Callable[[], bool]] = False,
    hints: Optional[Mapping[str, str]] = None,
) -> Optional[VerdictInfo]:
    """The tri-state verdict of a criterion over a case's runs: an interval over the run
    scores (``agenteval._stats.case_verdict``; a run with no score widens it by Manski
    bounds); runs with ``identical_outputs`` and identical scores are one observation
    (basis ``identical-runs``). ``None`` for an informational criterion or an unbounded
    or one-point score range (``min_score == max_score``: no interval to draw).
    ``hints``: the hints (``verdict_hints``) the run gave these very runs' verdicts, by
    criterion: an INCONCLUSIVE verdict takes its hint from there instead of searching for
    how many runs would settle it (the costly part of a verdict)."""
    if criterion.informational or combined.status is Status.INFORMATIONAL:
        return None
    if combined.status is Status.ERRORED:
        return VerdictInfo(verdict="NOT_EVALUATED", basis="runs", reason=combined.reason or "a run errored")
    low, high = criterion.min_score, criterion.max_score
    if low is None or high is None or high <= low or criterion.threshold is None:
        return None
    from ._stats import case_verdict

    found = case_verdict(
        [r.score for r in combined.runs],
        criterion.threshold,
        lo=low,
        hi=high,
        higher_is_better=criterion.higher_is_better,
        level=level,
        seed=seed,
        unit="run",
        identical=identical_outputs,
        hint=hints is None,
    )
    hint = found.hint
    if hint is None and hints is not None and found.verdict.value == "INCONCLUSIVE":
        # no entry: the verdict was gated when the run gave it (its hint dropped)
        hint = hints.get(criterion.name)
    return VerdictInfo(
        verdict=found.verdict.value,
        basis=found.basis.value,
        reason=found.reason,
        interval=_interval_info(found.interval) if found.interval is not None else None,
        hint=hint,
    )


def verdict_hints(case: CaseResult) -> dict[str, str]:
    """The hints of ``case``'s INCONCLUSIVE verdicts over its runs (basis ``runs``: "about N
    runs would settle it"), by criterion: what ``over_runs`` takes back instead of
    searching again."""
    return {
        result.criterion: verdict.hint
        for result in case.criteria
        if (verdict := result.verdict) is not None
        and verdict.verdict == "INCONCLUSIVE"
        and verdict.basis == "runs"
        and verdict.hint is not None
    }


def case_criteria(
    criteria: Sequence[CriterionEntry],
    per_run: Sequence[Sequence[CriterionResult]],
    *,
    confidence: Optional[float],
    seed_parts: tuple,
    identical_outputs: Union[bool, Callable[[], bool]] = False,
    hints: Optional[Mapping[str, str]] = None,
) -> list[CriterionResult]:
    """A case's criterion results from each run's results (run order): one run as it is,
    several combined (``combine_runs``), each with its tri-state verdict unless
    ``confidence`` is ``None``. ``seed_parts`` (run id, eval set index, case id) seed the
    resampling, so that re-rendering a run gives the same intervals; ``identical_outputs``
    (``same_outputs`` of the runs; a callable is asked only where a verdict depends on it)
    lets identical runs stand as one observation; ``hints``
    (``verdict_hints`` of the case the run gave for these runs) spare the hint searches."""
    if len(per_run) == 1:
        results = list(per_run[0])
        if confidence is None:
            return results
        found = [
            r if r.verdict is not None else r.model_copy(update={"verdict": point_verdict(r.status)})
            for r in results
        ]
    else:
        results = [combine_runs(entry, [run[i] for run in per_run]) for i, entry in enumerate(criteria)]
        if confidence is None:
            return results
        from ._stats import derive_seed

        found = [
            r.model_copy(
                update={
                    "verdict": over_runs(
                        entry,
                        r,
                        level=confidence,
                        seed=derive_seed(*seed_parts, entry.name),
                        identical_outputs=identical_outputs,
                        hints=hints,
                    )
                }
            )
            for entry, r in zip(criteria, results, strict=True)
        ]
    return [calibration_gated(entry, budget_gated(r)) for entry, r in zip(criteria, found, strict=True)]


#: The basis of a verdict the calibration gate made INCONCLUSIVE.
CALIBRATION_BASIS = "calibration"


def calibration_gated(criterion: CriterionEntry, result: CriterionResult) -> CriterionResult:
    """``result`` with its tri-state verdict made INCONCLUSIVE (basis ``calibration``) when
    the run gates its judge criterion on a calibration card (``criterion.calibration``) and
    the card is missing, stale or below the κ floor, or was made with another judge prompt
    than the result's (``details["prompt_sha256"]``). NOT_EVALUATED stays: more is wrong
    than calibration. The reason names the problem and the verdict it replaced."""
    gate = criterion.calibration
    verdict = result.verdict
    if (
        gate is None
        or verdict is None
        or verdict.basis == CALIBRATION_BASIS  # gated already (a one-run record is gated when scored)
        or verdict.basis == JUDGE_BUDGET_BASIS  # not judged: nothing to calibrate
        or verdict.verdict not in ("PASS", "FAIL", "INCONCLUSIVE")
    ):
        return result
    problem = gate.problem
    if problem is None:
        made_with = next((r.details for r in (result, *result.runs) if "prompt_sha256" in r.details), None)
        if made_with is None or made_with.get("prompt_sha256") == gate.prompt_sha256:
            return result
        problem = (
            f"the calibration card (run {gate.card_run_id}) is stale: the judge prompt changed "
            "(prompt_sha256); label its verdicts and run `agenteval calibrate RUN --labels FILE` again"
        )
    replaced = verdict.verdict if verdict.verdict != "INCONCLUSIVE" else f"INCONCLUSIVE ({verdict.reason})"
    gated = VerdictInfo(
        verdict="INCONCLUSIVE",
        basis=CALIBRATION_BASIS,
        reason=f"the judge is not calibrated: {problem} (without the gate: {replaced})",
        interval=verdict.interval,
    )
    return result.model_copy(update={"verdict": gated})


#: The basis of a verdict left INCONCLUSIVE because the run's judge budget was spent.
JUDGE_BUDGET_BASIS = JUDGE_BUDGET


#: Bases of INCONCLUSIVE verdicts that more runs of the agent do not settle.
def budget_gated(result: CriterionResult) -> CriterionResult:
    """``result`` with its tri-state verdict INCONCLUSIVE (basis ``judge_budget``) when the
    run's judge budget was spent before it was judged (reason code ``judge_budget``; its
    point status stays NOT_EVALUATED: there is no score). A missing judgement is not
    evidence against the agent, so it never FAILs a case or a set; it is not a verdict
    either way, so it never PASSes one. Several runs keep a PASS or FAIL their judged runs
    settle whatever the unjudged ones would have scored (Manski bounds); anything else
    becomes INCONCLUSIVE. A result with no verdict (``--no-stats``, informational) stays."""
    verdict = result.verdict
    if (
        result.reason_code != JUDGE_BUDGET
        or verdict is None
        or verdict.verdict in ("PASS", "FAIL")
        or verdict.basis == JUDGE_BUDGET_BASIS
    ):
        return result
    gated = VerdictInfo(
        verdict="INCONCLUSIVE",
        basis=JUDGE_BUDGET_BASIS,
        reason=f"not judged: {result.reason or 'the judge budget was spent'}; a larger judge "
        "budget (--max-judge-tokens, --judge-budget) settles it, more runs do not",
        interval=verdict.interval,
    )
    return result.model_copy(update={"verdict": gated})


_STATUSES = tuple(Status)
_NOT_EVALUATED = Status.NOT_EVALUATED
#: plugins a summary keeps with their names: a run shares one object per criterion
_PLUGINS_KEPT = 64


def _count(statuses: Iterable[Status]) -> dict[Status, int]:
    counts = dict.fromkeys(_STATUSES, 0)
    for status in statuses:
        counts[status] += 1
    return counts


class _Part:
    """What one eval set's cases add to a run's summary (``SummaryBuilder``; ``entry`` is
    ``None`` for the cases added without their eval set)."""

    __slots__ = (
        "entry",
        "added",
        "cases",
        "results",
        "criteria",
        "not_evaluated",
        "invocations",
        "unjudged",
        "units",
        "statistics",
        "released",
    )

    def __init__(self, entry: Optional[EvalSetEntry]) -> None:
        self.entry = entry
        self.added = 0
        self.cases: dict[Status, int] = _count(())
        self.results: dict[Status, int] = _count(())
        self.criteria: dict[tuple[str, Optional[float], str], dict] = {}
        self.not_evaluated: dict[str, int] = {}
        self.invocations: dict[str, int] = {}
        self.unjudged = 0
        #: criterion -> each case's unit (``_set_unit``), for the eval set's statistics
        self.units: dict[str, list[tuple]] = {}
        #: the eval set's statistics once made (``None`` again when a case is added after)
        self.statistics: Optional[EvalSetSummary] = None
        #: every case of the set added: its statistics made, its ``units`` let go
        self.released = False


class SummaryBuilder:
    """A run's ``RunSummary`` accumulated one case at a time.

    Memory grows by a few numbers per case and criterion (the case scores the per-eval-set
    statistics need), never by a case's results. ``confidence`` (``None``: no statistics,
    as ``--no-stats``) and ``run_id`` (which seeds the resampling) make the per-eval-set
    statistics; cases are ordered by id before they are computed, so a run and every
    re-reading of its folder give the same numbers whatever order the cases finished in.
    ``set_verdict`` is the eval sets' verdict rule (``agenteval._stats.SET_VERDICT_RULES``).

    Each eval set is counted on its own and the sets are summed in index order when the
    summary is built, so what a finished eval set adds can be saved (``set_state``) and
    given to another builder instead of its cases (``restore_set``): the summary is the
    same, byte for byte (counts are integers; a mean is an exact ``math.fsum``).
    Once every case of an eval set is added, its statistics are made and the case units
    they came from let go; a case added to it after that is a ``ValueError``.
    """

    def __init__(
        self, confidence: Optional[float] = None, run_id: str = "", set_verdict: str = "holm"
    ) -> None:
        self.confidence = confidence
        self.run_id = run_id
        self.set_verdict = set_verdict
        self._parts: dict[Optional[int], _Part] = {}
        #: plugins met (by identity, kept alive here) with their names (``str``), a few
        self._plugins: dict[int, tuple[PluginInfo, str]] = {}

    def add(self, case: CaseResult, eval_set: Optional[EvalSetEntry] = None) -> None:
        """Count ``case``; with its ``eval_set`` (and a confidence), also keep what the
        eval set's statistics need."""
        self.add_copies(case, eval_set, (case.eval_id,))

    def _part(self, eval_set: Optional[EvalSetEntry]) -> _Part:
        index = eval_set.index if eval_set is not None else None
        part = self._parts.get(index)
        if part is None:
            part = self._parts[index] = _Part(eval_set)
        return part

    def add_copies(self, case: CaseResult, eval_set: Optional[EvalSetEntry], case_ids: Sequence[str]) -> None:
        """Count, for each id of ``case_ids``, a case equal to ``case`` but for its id (as
        ``add`` would one by one: the cases an interruption left unstarted, in one step)."""
        times = len(case_ids)
        part = self._part(eval_set)
        if part.released and times:
            raise ValueError(f"case {case.eval_id!r} added to an eval set whose every case was added already")
        part.added += times
        if not part.released:  # (no copy at all adds nothing to a set's statistics)
            part.statistics = None
        part.cases[case.status] += times
        criteria, not_evaluated, invocations = part.criteria, part.not_evaluated, part.invocations
        results, plugins = part.results, self._plugins
        for result in case.criteria:
            status = result.status
            results[status] += times
            plugin = result.plugin
            named = plugins.get(id(plugin))
            key = (result.criterion, result.threshold, named[1] if named is not None else self._named(plugin))
            group = criteria.get(key)
            if group is None:
                group = criteria[key] = _group(plugin)
            group["counts"][status] += times
            if result.judge is not None:
                group["judge"].add(result.judge, times)
            verdict = result.verdict
            if verdict is not None and verdict.basis == JUDGE_BUDGET_BASIS:
                part.unjudged += times
            if result.score is not None:
                if times == 1:
                    group["scores"].append(result.score)
                else:
                    group["scores"].extend([result.score] * times)
            if status is _NOT_EVALUATED:
                code = result.reason_code or "not_evaluated"
                not_evaluated[code] = not_evaluated.get(code, 0) + times
            _count_invocations(result, group, invocations, times)
        if eval_set is not None and self.confidence is not None and not part.released:
            _keep_units(part, case, case_ids)
            if part.added == len(eval_set.case_ids):
                # every case in: the set's statistics now, and its units let go (a few
                # numbers per case: tens of megabytes at 100k cases)
                self._statistics(part)
                part.units = {}
                part.released = True

    def _named(self, plugin: PluginInfo) -> str:
        """``str(plugin)``, kept with the plugin (by identity: kept alive, its id is never
        another's) for the next result that shares it."""
        if len(self._plugins) >= _PLUGINS_KEPT:  # one object per result (records read back)
            self._plugins.clear()
        name = str(plugin)
        self._plugins[id(plugin)] = (plugin, name)
        return name

    def set_complete(self, index: int) -> bool:
        """Whether every case of eval set ``index`` has been added (once each)."""
        part = self._parts.get(index)
        return part is not None and part.entry is not None and part.added == len(part.entry.case_ids)

    def set_state(self, index: int) -> dict:
        """What eval set ``index``'s cases add to the summary, statistics included, as plain
        JSON data for ``restore_set`` (a few numbers per case and criterion)."""
        part = self._parts[index]
        statistics = self._statistics(part) if self.confidence is not None else None
        return {
            "cases": {status.value: n for status, n in part.cases.items() if n},
            "results": {status.value: n for status, n in part.results.items() if n},
            "criteria": [
                {
                    "criterion": name,
                    "plugin": group["plugin"].model_dump(mode="json"),
                    "threshold": threshold,
                    "scores": group["scores"],
                    "counts": {status.value: n for status, n in group["counts"].items() if n},
                    "judge": group["judge"].state(),
                    "votes": group.get("votes"),
                    "calls": [group.get("calls_used", 0), group.get("calls_saved", 0)],
                }
                for (name, threshold, _), group in part.criteria.items()
            ],
            "not_evaluated": part.not_evaluated,
            "invocations": part.invocations,
            "unjudged": part.unjudged,
            "statistics": statistics.model_dump(mode="json") if statistics is not None else None,
        }

    def restore_set(self, eval_set: EvalSetEntry, state: Mapping) -> None:
        """Count eval set ``eval_set`` as ``state`` (``set_state`` of a builder with the same
        confidence, run id and verdict rule) says, in place of its cases. ``ValueError``
        (nothing counted) when ``state`` is not such a state."""
        try:
            part = _Part(eval_set)
            part.added = len(eval_set.case_ids)
            for counts, saved in ((part.cases, state["cases"]), (part.results, state["results"])):
                for status, n in saved.items():
                    counts[Status(status)] += int(n)
            for saved in state["criteria"]:
                plugin = PluginInfo.model_validate(saved["plugin"])
                group = _group(plugin)
                group["scores"] = [float(v) for v in saved["scores"]]
                for status, n in saved["counts"].items():
                    group["counts"][Status(status)] += int(n)
                group["judge"] = _ActivitySum.restored(saved["judge"])
                if saved["votes"] is not None:
                    group["votes"] = [(int(yes), int(no)) for yes, no in saved["votes"]]
                    group["calls_used"], group["calls_saved"] = (int(n) for n in saved["calls"])
                part.criteria[(str(saved["criterion"]), saved["threshold"], str(plugin))] = group
            part.not_evaluated = {str(k): int(v) for k, v in state["not_evaluated"].items()}
            part.invocations = {str(k): int(v) for k, v in state["invocations"].items()}
            part.unjudged = int(state["unjudged"])
            statistics = state["statistics"]
            if (statistics is None) != (self.confidence is None):
                raise ValueError("made with another confidence")
            if statistics is not None:
                part.statistics = EvalSetSummary.model_validate(statistics)
                part.released = True
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a saved eval set: {exc!r}") from exc
        self._parts[eval_set.index] = part

    def build(
        self,
        judge_by_criterion: Optional[dict[str, JudgeActivity]] = None,
        judge: Optional[JudgeActivity] = None,
        user_simulator: Optional[JudgeActivity] = None,
        prices: Optional[Mapping[str, Mapping[str, float]]] = None,
        budget: Optional[BudgetInfo] = None,
    ) -> RunSummary:
        """The summary. Each criterion's judge activity is the sum of its results' (every
        case and run counted, resumed ones too); ``judge_by_criterion`` stands in only for a
        criterion whose results carry none (an older engine's records), and ``judge`` (the
        run's total) only when no result carries any. The run's ``judge`` is the criteria's
        sum plus ``user_simulator``. ``prices`` (``statistics.judge_prices``) give each
        criterion's and the run's ``judge_cost``; ``budget`` (the run's limits and their use)
        gets the count of results its refusals left INCONCLUSIVE."""
        whole = _Part(None)
        for _, part in sorted(self._parts.items(), key=lambda item: -1 if item[0] is None else item[0]):
            _merge(whole, part)
        total = sum(whole.cases.values())
        prices = prices or {}
        criteria = []
        for (name, threshold, _), group in whole.criteria.items():
            activity = group["judge"].total() or (judge_by_criterion or {}).get(name)
            criteria.append(
                CriterionSummary(
                    criterion=name,
                    threshold=threshold,
                    plugin=group["plugin"],
                    mean_score=math.fsum(group["scores"]) / len(group["scores"]) if group["scores"] else None,
                    counts=group["counts"],
                    judge=activity,
                    judge_cost=judge_cost(activity, prices),
                    agreement=_agreement(group) if "votes" in group else None,
                )
            )
        if any(c.judge is not None for c in criteria):
            judge = sum_activity([*(c.judge for c in criteria), user_simulator])
        if budget is not None:
            budget = budget.model_copy(update={"inconclusive": whole.unjudged})
        worst = [s for s, n in whole.cases.items() if n]
        return RunSummary(
            status=worst_status(worst) if total else Status.NOT_EVALUATED,
            cases=dict(whole.cases),
            criterion_results=dict(whole.results),
            criteria=criteria,
            not_evaluated_reasons=dict(sorted(whole.not_evaluated.items())),
            invocations_not_evaluated=dict(sorted(whole.invocations.items())),
            judge=judge,
            user_simulator=user_simulator,
            eval_sets=self._set_summaries(),
            budget=budget,
            judge_cost=judge_cost(judge, prices),
        )

    def _set_summaries(self) -> list[EvalSetSummary]:
        if self.confidence is None:
            return []
        return [
            self._statistics(self._parts[index]) for index in sorted(i for i in self._parts if i is not None)
        ]

    def _statistics(self, part: _Part) -> EvalSetSummary:
        """An eval set's statistics (made once; again only after another case is added)."""
        entry = part.entry
        assert entry is not None and self.confidence is not None
        if part.statistics is None:
            summaries = [
                set_criterion_summary(
                    criterion,
                    part.units[criterion.name],
                    level=self.confidence,
                    run_id=self.run_id,
                    index=entry.index,
                    rule=self.set_verdict,
                )
                for criterion in entry.criteria
                if criterion.name in part.units
            ]
            part.statistics = EvalSetSummary(
                index=entry.index, eval_set_id=entry.eval_set_id, criteria=summaries
            )
        return part.statistics


def _count_invocations(result: CriterionResult, group: dict, invocations: dict[str, int], times: int) -> None:
    """Count ``result``'s invocations left NOT_EVALUATED (by reason code) and keep its
    judges' votes, ``times`` over."""
    for run in result.runs or (result,):
        for item in run.per_invocation:
            if item.status is _NOT_EVALUATED:
                code = item.reason_code or "not_evaluated"
                invocations[code] = invocations.get(code, 0) + times
            if "calls_used" in item.details:
                for _ in range(times):
                    _add_votes(group, item.details)


def _keep_units(part: _Part, case: CaseResult, case_ids: Sequence[str]) -> None:
    """Keep what each of ``case_ids`` (copies of ``case``) adds to its set's statistics."""
    units = part.units
    for result in case.criteria:
        found = units.get(result.criterion)
        if found is None:
            found = units[result.criterion] = []
        if len(case_ids) == 1:
            found.append(_set_unit(case_ids[0], result))
            continue
        _, *unit = _set_unit(case.eval_id, result)
        found.extend((i, *unit) for i in case_ids)


def _group(plugin: PluginInfo) -> dict:
    """A criterion's running figures in a summary (scores, status counts, judge activity;
    ``_add_votes`` adds the judges' votes)."""
    return {"plugin": plugin, "scores": [], "counts": _count(()), "judge": _ActivitySum()}


def _merge(whole: _Part, part: _Part) -> None:
    """Add ``part``'s counts to ``whole`` (its criteria after those ``whole`` has)."""
    whole.added += part.added
    for status, n in part.cases.items():
        whole.cases[status] += n
    for status, n in part.results.items():
        whole.results[status] += n
    for key, group in part.criteria.items():
        into = whole.criteria.get(key)
        if into is None:
            into = whole.criteria[key] = _group(group["plugin"])
        into["scores"].extend(group["scores"])
        for status, n in group["counts"].items():
            into["counts"][status] += n
        into["judge"].merge(group["judge"])
        if "votes" in group:
            into.setdefault("votes", []).extend(group["votes"])
            into["calls_used"] = into.get("calls_used", 0) + group.get("calls_used", 0)
            into["calls_saved"] = into.get("calls_saved", 0) + group.get("calls_saved", 0)
    for mine, theirs in ((whole.not_evaluated, part.not_evaluated), (whole.invocations, part.invocations)):
        for code, n in theirs.items():
            mine[code] = mine.get(code, 0) + n
    whole.unjudged += part.unjudged


def _add_votes(group: dict, details: dict) -> None:
    """Keep one judged invocation's calls and votes (``details`` as the judge criteria
    record them: ``calls_used``, ``calls_saved``, ``votes`` with two counts)."""
    group.setdefault("votes", [])
    group["calls_used"] = group.get("calls_used", 0) + int(details.get("calls_used") or 0)
    group["calls_saved"] = group.get("calls_saved", 0) + int(details.get("calls_saved") or 0)
    votes = details.get("votes")
    if isinstance(votes, dict) and len(votes) <= 2 and all(isinstance(v, int) for v in votes.values()):
        counts = list(votes.values()) + [0] * (2 - len(votes))
        group["votes"].append((counts[0], counts[1]))


def _agreement(group: dict) -> JudgeAgreementInfo:
    from ._stats import judge_agreement

    pairs = group["votes"]
    found = judge_agreement([[True] * yes + [False] * no for yes, no in pairs])
    return JudgeAgreementInfo(
        invocations=len(pairs),
        calls_used=group.get("calls_used", 0),
        calls_saved=group.get("calls_saved", 0),
        voted=found.n_items,
        unanimity=found.unanimity,
        fragile=found.fragile,
        krippendorff_alpha=found.krippendorff_alpha,
    )


#: A case's point status as a tri-state verdict, when the result carries none.
_POINT_VERDICT = {Status.PASSED: "PASS", Status.FAILED: "FAIL"}


def _set_unit(case_id: str, result: CriterionResult) -> tuple:
    """What one case contributes to its set's statistics: (case id, run scores, tri-state
    verdict, whether the point verdict passed, the verdict's basis)."""
    runs = tuple(r.score for r in result.runs) if result.runs else (result.score,)
    verdict: str
    if result.verdict is not None:
        verdict, basis = result.verdict.verdict, result.verdict.basis
    else:
        verdict, basis = _POINT_VERDICT.get(result.status, "NOT_EVALUATED"), "single-run"
    return (case_id, runs, verdict, result.status is Status.PASSED, basis)


def _interval_info(interval: Interval) -> IntervalInfo:
    return IntervalInfo(
        low=interval.low,
        high=interval.high,
        method=interval.method,
        level=interval.level,
        n=interval.n,
        seed=interval.seed,
        estimate=interval.estimate,
        n_missing=interval.n_missing,
    )


def set_criterion_summary(
    criterion: CriterionEntry,
    units: Sequence[tuple],
    *,
    level: float,
    run_id: str,
    index: int,
    rule: str = "holm",
) -> SetCriterionSummary:
    """One criterion's statistics over an eval set's cases (``units`` from ``_set_unit``,
    in any order: they are sorted by case id first). The mean's interval needs a bounded
    score range; the pass rate and the verdict need a threshold; the verdict follows
    ``rule`` (``agenteval._stats.set_verdict``)."""
    from ._stats import (
        Verdict,
        clopper_pearson,
        derive_seed,
        manski_interval,
        mean_of,
        variance_components,
    )

    ordered = sorted(units, key=lambda unit: unit[0])
    scored = [[float(v) for v in unit[1] if v is not None] for unit in ordered]
    counts = {v.value: 0 for v in Verdict}
    for unit in ordered:
        counts[unit[2]] = counts.get(unit[2], 0) + 1
    variance = variance_components(scored)
    gating = not criterion.informational and criterion.threshold is not None
    low, high = criterion.min_score, criterion.max_score
    mean = None
    case_scores = [mean_of(r) if r else None for r in scored]
    if (
        low is not None
        and high is not None
        and high > low
        and all(low <= v <= high for v in case_scores if v is not None)
    ):
        seed = derive_seed(run_id, index, criterion.name)
        mean = _interval_info(manski_interval(case_scores, low, high, level, seed))
    pass_rate = found = None
    if gating:
        passed = sum(1 for unit in ordered if unit[3])
        pass_rate = _interval_info(clopper_pearson(passed, len(ordered), level))
        found = _set_verdict(criterion, ordered, level=level, rule=rule, run_id=run_id, index=index)
    else:
        counts = {}
    return SetCriterionSummary(
        criterion=criterion.name,
        threshold=criterion.threshold,
        n_cases=len(ordered),
        verdict=found.verdict.value if found is not None else None,
        verdict_rule=found.rule if found is not None else None,
        verdict_reason=found.reason if found is not None else None,
        guarantee=found.guarantee if found is not None else None,
        verdict_counts=counts,
        mean=mean,
        pass_rate=pass_rate,
        within_case_sd=variance.within_case_sd,
        between_case_sd=variance.between_case_sd,
        icc=variance.icc,
        design_effect=variance.design_effect,
        flaky_cases=variance.flaky_cases,
    )


class _CaseSeeds(Sequence[int]):
    """Each case's seed (``derive_seed(run_id, index, case_id, criterion)``), derived when
    asked for: Holm re-tests only the cases that FAIL on their runs, so a set of 100k cases
    (an interrupted run's unstarted ones too) hashes a few ids, not all of them."""

    def __init__(self, run_id: str, index: int, case_ids: Sequence[str], criterion: str) -> None:
        self._parts = (run_id, index, criterion)
        self._case_ids = case_ids

    def __len__(self) -> int:
        return len(self._case_ids)

    @overload
    def __getitem__(self, item: int) -> int: ...
    @overload
    def __getitem__(self, item: slice) -> Sequence[int]: ...
    def __getitem__(self, item: Union[int, slice]) -> Union[int, Sequence[int]]:
        from ._stats import derive_seed

        run_id, index, criterion = self._parts
        if isinstance(item, slice):
            return [derive_seed(run_id, index, case_id, criterion) for case_id in self._case_ids[item]]
        return derive_seed(run_id, index, self._case_ids[item], criterion)


def _set_verdict(
    criterion: CriterionEntry, ordered: Sequence[tuple], *, level: float, rule: str, run_id: str, index: int
) -> SetVerdict:
    """The set's verdict (``agenteval._stats.set_verdict``) from its cases' units; a
    criterion with no bounded range keeps the per-case rule (no interval to correct)."""
    from ._stats import SetVerdict, Verdict, derive_seed, set_verdict

    low, high = criterion.min_score, criterion.max_score
    bounded = low is not None and high is not None and high > low
    gated = [unit[0] for unit in ordered if unit[4] == CALIBRATION_BASIS]
    if gated and rule == "mean":  # the mean reads the scores, not the gated verdicts
        return SetVerdict(
            Verdict.INCONCLUSIVE,
            rule,
            f"the judge is not calibrated for {len(gated)} of {len(ordered)} cases (see their verdicts)",
            "none: the judge's verdicts are not calibrated against human labels",
        )
    return set_verdict(
        [unit[1] for unit in ordered],
        [(unit[2], unit[4]) for unit in ordered],
        criterion.threshold,  # type: ignore[arg-type]  # called only for a gating criterion: it has one
        lo=low if bounded and low is not None else 0.0,
        hi=high if bounded and high is not None else 1.0,
        higher_is_better=criterion.higher_is_better,
        level=level,
        rule=rule if bounded else "any-case",
        seeds=_CaseSeeds(run_id, index, [unit[0] for unit in ordered], criterion.name),
        mean_seed=derive_seed(run_id, index, criterion.name),
        case_ids=[unit[0] for unit in ordered],
    )
