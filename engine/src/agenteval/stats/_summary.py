"""Numbers per criterion × eval set: the case is the unit.

Each case's score is the mean of its scored runs (turns and runs are never pooled as
independent units: that under-covers badly when cases differ in difficulty); the set's
mean gets an interval over cases, its pass rate (share of cases whose point verdict
passed) a Clopper–Pearson interval, and the spread is split into within-case (run to run)
and between-case parts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

from ._interval import Interval
from ._intervals import DEFAULT_RESAMPLES, clopper_pearson, manski_interval
from ._verdict import Verdict, combine_verdicts

__all__ = ["SetStatistics", "VarianceComponents", "set_statistics", "variance_components"]


@dataclass(frozen=True)
class VarianceComponents:
    """One-way random-effects split of run scores by case: ``within_case_sd`` (agent
    flakiness, pooled over cases with 2+ runs), ``between_case_sd``, ``icc`` (share of
    the variance between cases, in [0, 1]), ``design_effect`` = 1 + (m̄ - 1)·ICC for m̄
    runs per case, and ``flaky_cases`` (cases whose runs do not all score the same).
    Fields are ``None`` when not estimable (fewer than 2 cases, or no case with 2 runs)."""

    within_case_sd: Optional[float]
    between_case_sd: Optional[float]
    icc: Optional[float]
    design_effect: Optional[float]
    flaky_cases: int


def variance_components(runs_by_case: Sequence[Sequence[float]]) -> VarianceComponents:
    """The split of ``runs_by_case`` (each case's scored run scores, none empty)."""
    cases = [[float(v) for v in runs] for runs in runs_by_case if runs]
    flaky = sum(1 for runs in cases if len(set(runs)) > 1)
    repeated = [runs for runs in cases if len(runs) >= 2]
    within_var = None
    if repeated:
        ss = math.fsum(math.fsum((v - math.fsum(r) / len(r)) ** 2 for v in r) for r in repeated)
        within_var = ss / sum(len(r) - 1 for r in repeated)
    if len(cases) < 2:
        sd = math.sqrt(within_var) if within_var is not None else None
        return VarianceComponents(sd, None, None, None, flaky)
    means = [math.fsum(r) / len(r) for r in cases]
    grand = math.fsum(means) / len(means)
    var_means = math.fsum((m - grand) ** 2 for m in means) / (len(means) - 1)
    m_bar = math.fsum(len(r) for r in cases) / len(cases)
    if within_var is None:
        return VarianceComponents(None, math.sqrt(var_means), None, None, flaky)
    between_var = max(0.0, var_means - within_var / m_bar)
    total = between_var + within_var
    icc = between_var / total if total > 0 else 0.0
    return VarianceComponents(
        math.sqrt(within_var), math.sqrt(between_var), icc, 1.0 + (m_bar - 1.0) * icc, flaky
    )


@dataclass(frozen=True)
class SetStatistics:
    """One criterion over an eval set: ``n_cases`` and the count per tri-state verdict,
    the ``mean`` of the case scores with its interval over cases (Manski-widened for cases
    with no scored run), the point ``pass_rate`` with a Clopper–Pearson interval, the
    variance split, and the set ``verdict`` (FAIL if any case FAILs or is NOT_EVALUATED,
    else INCONCLUSIVE if any is, else PASS)."""

    n_cases: int
    verdict_counts: dict[str, int]
    mean: Interval
    pass_rate: Interval
    variance: VarianceComponents
    verdict: Verdict


def set_statistics(
    runs_by_case: Sequence[Sequence[Optional[float]]],
    case_verdicts: Sequence[Verdict],
    point_passed: Sequence[bool],
    *,
    lo: float = 0.0,
    hi: float = 1.0,
    level: float = 0.95,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
) -> SetStatistics:
    """The set-level numbers from each case's run scores (``None`` = a run not scored),
    each case's tri-state verdict and whether its point (ADK) verdict passed, in the same
    case order."""
    if not len(runs_by_case) == len(case_verdicts) == len(point_passed):
        raise ValueError("runs_by_case, case_verdicts and point_passed need one entry per case")
    scored = [[float(v) for v in runs if v is not None] for runs in runs_by_case]
    case_scores = [math.fsum(r) / len(r) if r else None for r in scored]
    mean = manski_interval(case_scores, lo, hi, level, seed, resamples=resamples)
    counts = {v.value: 0 for v in Verdict}
    for verdict in case_verdicts:
        counts[Verdict(verdict).value] += 1
    return SetStatistics(
        n_cases=len(runs_by_case),
        verdict_counts=counts,
        mean=mean,
        pass_rate=clopper_pearson(sum(bool(p) for p in point_passed), len(point_passed), level),
        variance=variance_components(scored),
        verdict=combine_verdicts([Verdict(v) for v in case_verdicts]),
    )
