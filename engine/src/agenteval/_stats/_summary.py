"""The spread of a criterion's run scores over an eval set, split into within-case (run to
run) and between-case parts (the case is the unit: runs are never pooled as independent
units, which under-covers badly when cases differ in difficulty).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

__all__ = ["VarianceComponents", "mean_of", "variance_components"]


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
        ss = math.fsum(math.fsum(_square(v - mean_of(r)) for v in r) for r in repeated)
        within_var = ss / sum(len(r) - 1 for r in repeated)
    if len(cases) < 2:
        sd = math.sqrt(within_var) if within_var is not None else None
        return VarianceComponents(sd, None, None, None, flaky)
    means = [mean_of(r) for r in cases]
    grand = mean_of(means)
    var_means = math.fsum(_square(m - grand) for m in means) / (len(means) - 1)
    m_bar = math.fsum(len(r) for r in cases) / len(cases)
    if within_var is None:
        return VarianceComponents(None, math.sqrt(var_means), None, None, flaky)
    between_var = max(0.0, var_means - within_var / m_bar)
    total = between_var + within_var
    icc = between_var / total if total > 0 else 0.0
    return VarianceComponents(
        math.sqrt(within_var), math.sqrt(between_var), icc, 1.0 + (m_bar - 1.0) * icc, flaky
    )


def mean_of(values: Sequence[float]) -> float:
    """The mean of ``values`` (finite, not empty): ``fsum / len``, or, where the sum passes
    the float range (an unbounded criterion's scores near 1e308), the sum of each divided
    first (``fsum`` raises ``OverflowError`` there)."""
    try:
        return math.fsum(values) / len(values)
    except OverflowError:
        return math.fsum(value / len(values) for value in values)


def _square(value: float) -> float:
    """``value`` squared; ``inf`` past the float range (``** 2`` raises ``OverflowError``
    there: an unbounded criterion's scores, e.g. a token count, can be that large)."""
    return value * value
