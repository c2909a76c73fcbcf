"""The verdict rules, written once: a score against its threshold, several runs of a case
combined, a case's status from its criteria, and a run's summary accumulated case by case.

Every rule works from a ``CriterionEntry`` (what the run folder's manifest records about a
criterion), so a report re-rendered from a run folder gives the same verdicts as the run.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Optional

from .results import (
    CaseResult,
    CriterionResult,
    CriterionSummary,
    JudgeActivity,
    PluginInfo,
    RunSummary,
    Status,
    worst_status,
)

if TYPE_CHECKING:  # the run-folder schema imports the verdict rules, not the reverse
    from .runs._records import CriterionEntry

__all__ = [
    "SummaryBuilder",
    "case_status",
    "combine_runs",
    "not_evaluated",
    "plugin_of",
    "status_for",
    "sum_activity",
]


def plugin_of(criterion: CriterionEntry) -> PluginInfo:
    return PluginInfo(
        distribution=criterion.distribution, version=criterion.version, entry_point=criterion.entry_point
    )


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
    if results and all(r.status is Status.INFORMATIONAL for r in results):
        return Status.INFORMATIONAL
    return worst_status([r.status for r in results if r.status is not Status.INFORMATIONAL])


def _pooled_scores(runs: Sequence[CriterionResult]) -> list[float]:
    """The scores a multi-run verdict averages: every per-invocation score of every run
    (ADK's rule) when each run reports them, else each run's case score."""
    if all(r.per_invocation for r in runs):
        return [p.score for r in runs for p in r.per_invocation if p.score is not None]
    return [r.score for r in runs if r.score is not None]


def sum_activity(activities: Iterable[Optional[JudgeActivity]]) -> Optional[JudgeActivity]:
    """Judge activities added up; ``None`` when there are none."""
    present = [a for a in activities if a is not None]
    if not present:
        return None
    failures: dict[str, int] = {}
    for activity in present:
        for code, count in activity.failures.items():
            failures[code] = failures.get(code, 0) + count
    return JudgeActivity(
        calls=sum(a.calls for a in present),
        cache_hits=sum(a.cache_hits for a in present),
        retries=sum(a.retries for a in present),
        failures=dict(sorted(failures.items())),
        input_tokens=sum(a.input_tokens for a in present),
        output_tokens=sum(a.output_tokens for a in present),
    )


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
        details["spread"] = {
            "min": min(present),
            "max": max(present),
            "stdev": statistics.pstdev(present) if len(present) > 1 else 0.0,
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


_STATUSES = tuple(Status)


def _count(statuses: Iterable[Status]) -> dict[Status, int]:
    counts = dict.fromkeys(_STATUSES, 0)
    for status in statuses:
        counts[status] += 1
    return counts


class SummaryBuilder:
    """A run's ``RunSummary`` accumulated one case at a time (memory does not grow with
    the number of cases)."""

    def __init__(self) -> None:
        self._cases: dict[Status, int] = _count(())
        self._results: dict[Status, int] = _count(())
        self._criteria: dict[tuple[str, Optional[float], str], dict] = {}
        self._not_evaluated: dict[str, int] = {}
        self._invocations: dict[str, int] = {}

    def add(self, case: CaseResult) -> None:
        self._cases[case.status] += 1
        for result in case.criteria:
            self._results[result.status] += 1
            key = (result.criterion, result.threshold, str(result.plugin))
            group = self._criteria.get(key)
            if group is None:
                group = self._criteria[key] = {"plugin": result.plugin, "scores": [], "counts": _count(())}
            group["counts"][result.status] += 1
            if result.score is not None:
                group["scores"].append(result.score)
            if result.status is Status.NOT_EVALUATED:
                code = result.reason_code or "not_evaluated"
                self._not_evaluated[code] = self._not_evaluated.get(code, 0) + 1
            for run in result.runs or [result]:
                for item in run.per_invocation:
                    if item.status is Status.NOT_EVALUATED:
                        code = item.reason_code or "not_evaluated"
                        self._invocations[code] = self._invocations.get(code, 0) + 1

    def build(
        self,
        judge_by_criterion: Optional[dict[str, JudgeActivity]] = None,
        judge: Optional[JudgeActivity] = None,
        user_simulator: Optional[JudgeActivity] = None,
    ) -> RunSummary:
        total = sum(self._cases.values())
        criteria = [
            CriterionSummary(
                criterion=name,
                threshold=threshold,
                plugin=group["plugin"],
                mean_score=math.fsum(group["scores"]) / len(group["scores"]) if group["scores"] else None,
                counts=group["counts"],
                judge=(judge_by_criterion or {}).get(name),
            )
            for (name, threshold, _), group in self._criteria.items()
        ]
        worst = [s for s, n in self._cases.items() if n]
        return RunSummary(
            status=worst_status(worst) if total else Status.NOT_EVALUATED,
            cases=dict(self._cases),
            criterion_results=dict(self._results),
            criteria=criteria,
            not_evaluated_reasons=dict(sorted(self._not_evaluated.items())),
            invocations_not_evaluated=dict(sorted(self._invocations.items())),
            judge=judge,
            user_simulator=user_simulator,
        )
