"""Paired comparison of two eval runs: A the baseline, B the candidate.

The caller pairs cases on (eval_set_id, eval_id) and gives, per criterion, the case scores
of A and B in the same order (a case's score is the mean of its runs: the case is the unit,
so repeated runs and turns never count as independent). Per criterion: Δ = mean(B) -
mean(A) with an interval (``bounded_interval`` on the differences: betting below 20 pairs,
BCa from 20), a one-sided sign-flip test in each direction, each at α/2 (twice the smaller
one-sided p is the reported two-sided p: McNemar's exact test on 0/1 scores), Holm across
criteria, the minimum detectable effect at 80% power, and the status.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from statistics import NormalDist
from typing import Optional

from ._interval import Interval
from ._intervals import DEFAULT_RESAMPLES, bounded_interval
from ._multiplicity import benjamini_hochberg, holm
from ._permutation import sign_flip_test, two_sample_test

__all__ = [
    "CaseChange",
    "ChangeStatus",
    "Comparison",
    "CriterionComparison",
    "compare_case_runs",
    "compare_runs",
    "flag_min_runs",
    "minimum_detectable_effect",
    "smallest_case_p",
]


class ChangeStatus(str, Enum):
    REGRESSED = "REGRESSED"
    IMPROVED = "IMPROVED"
    NO_DETECTABLE_CHANGE = "NO DETECTABLE CHANGE"


@dataclass(frozen=True)
class CriterionComparison:
    """One criterion's comparison.

    ``delta`` is mean(B) - mean(A) in score units (negative is worse when higher is
    better); ``interval`` its confidence interval. ``p_worse`` / ``p_better`` are the
    one-sided sign-flip p-values of "B is worse / better by more than ``margin``";
    ``p_value`` = min(1, 2 * min of them) (two-sided), ``p_holm`` its Holm adjustment
    across the compared criteria (the p that decides ``status``). ``discordant`` is
    (improved, regressed) when every score is 0 or 1. ``mde`` is the smallest |Δ| this
    many pairs would detect with 80% power (``None`` under 2 pairs). ``non_inferior``
    is set when a non-inferiority margin M was asked: the interval's worse end is within M.
    """

    criterion: str
    n_pairs: int
    mean_a: Optional[float]
    mean_b: Optional[float]
    delta: float
    interval: Interval
    p_worse: float
    p_better: float
    p_value: float
    p_holm: float
    mde: Optional[float]
    status: ChangeStatus
    higher_is_better: bool = True
    margin: float = 0.0
    test_method: str = "exact"
    seed: int = 0
    resamples: Optional[int] = None
    discordant: Optional[tuple[int, int]] = None
    non_inferiority_margin: Optional[float] = None
    non_inferior: Optional[bool] = None

    @property
    def regressed(self) -> bool:
        return self.status is ChangeStatus.REGRESSED


@dataclass(frozen=True)
class Comparison:
    """Every criterion's comparison; ``exit_code``: 1 if any REGRESSED, else 3 if a
    non-inferiority margin was asked and some criterion did not show it, else 0."""

    criteria: tuple[CriterionComparison, ...]
    alpha: float
    level: float

    @property
    def regressed(self) -> tuple[CriterionComparison, ...]:
        return tuple(c for c in self.criteria if c.status is ChangeStatus.REGRESSED)

    @property
    def exit_code(self) -> int:
        if self.regressed:
            return 1
        if any(c.non_inferior is False for c in self.criteria):
            return 3
        return 0


def minimum_detectable_effect(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> Optional[float]:
    """(z_{1-α/2} + z_{power}) · sd / √n, the smallest mean difference a two-sided test at
    α detects with probability ``power``; ``None`` when n < 2."""
    if n < 2:
        return None
    normal = NormalDist()
    return (normal.inv_cdf(1.0 - alpha / 2.0) + normal.inv_cdf(power)) * sd / math.sqrt(n)


def _check_pairs(
    a: Sequence[float], b: Sequence[float], lo: float, hi: float
) -> tuple[list[float], list[float]]:
    if len(a) != len(b):
        raise ValueError(f"paired scores need equal lengths, got {len(a)} and {len(b)}")
    xa, xb = [float(v) for v in a], [float(v) for v in b]
    for v in xa + xb:
        if not lo <= v <= hi:
            raise ValueError(f"score {v!r} is outside [{lo!r}, {hi!r}]")
    return xa, xb


def _one(
    criterion: str,
    a: Sequence[float],
    b: Sequence[float],
    lo: float,
    hi: float,
    higher_is_better: bool,
    alpha: float,
    margin: float,
    non_inferiority_margin: Optional[float],
    seed: int,
    resamples: int,
) -> dict:
    xa, xb = _check_pairs(a, b, lo, hi)
    n = len(xa)
    d = [y - x for x, y in zip(xa, xb, strict=True)]
    sign = 1.0 if higher_is_better else -1.0
    oriented = [sign * v for v in d]  # positive is better
    span = hi - lo
    worse = sign_flip_test([v + margin for v in oriented], "less", seed=seed, resamples=resamples)
    better = sign_flip_test([v - margin for v in oriented], "greater", seed=seed, resamples=resamples)
    p_value = min(1.0, 2.0 * min(worse.p_value, better.p_value))
    level = 1.0 - alpha
    if n:
        interval = bounded_interval(d, -span, span, level, seed, resamples=resamples)
    else:
        interval = Interval(-span, span, None, "no-data", level, 0)
    delta = math.fsum(d) / n if n else 0.0
    sd = math.sqrt(math.fsum((v - delta) ** 2 for v in d) / (n - 1)) if n > 1 else 0.0
    binary = n > 0 and all(v in (lo, hi) for v in xa + xb)
    discordant = None
    if binary:
        discordant = (sum(1 for v in oriented if v > 0), sum(1 for v in oriented if v < 0))
    non_inferior = None
    if non_inferiority_margin is not None:
        worst_end = interval.low if higher_is_better else -interval.high
        non_inferior = n > 0 and worst_end >= -non_inferiority_margin
    method = "monte-carlo" if "monte-carlo" in (worse.method, better.method) else "exact"
    return {
        "criterion": criterion,
        "n_pairs": n,
        "mean_a": math.fsum(xa) / n if n else None,
        "mean_b": math.fsum(xb) / n if n else None,
        "delta": delta,
        "interval": interval,
        "p_worse": worse.p_value,
        "p_better": better.p_value,
        "p_value": p_value,
        "mde": minimum_detectable_effect(sd, n, alpha),
        "higher_is_better": higher_is_better,
        "margin": margin,
        "test_method": method,
        "seed": seed,
        "resamples": resamples if method == "monte-carlo" else None,
        "discordant": discordant,
        "non_inferiority_margin": non_inferiority_margin,
        "non_inferior": non_inferior,
    }


def compare_runs(
    scores: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    *,
    lo: float = 0.0,
    hi: float = 1.0,
    higher_is_better: Optional[Mapping[str, bool]] = None,
    alpha: float = 0.05,
    margin: float = 0.0,
    non_inferiority_margin: Optional[float] = None,
    seeds: Optional[Mapping[str, int]] = None,
    resamples: int = DEFAULT_RESAMPLES,
    bounds: Optional[Mapping[str, tuple[float, float]]] = None,
) -> Comparison:
    """Compare every criterion of ``scores`` (criterion -> (A's case scores, B's), paired
    by position), then adjust the two-sided p-values with Holm across criteria: a
    criterion is REGRESSED (IMPROVED) when its Holm p is below ``alpha`` and B is worse
    (better). Scores lie in [lo, hi], or in a criterion's own range from ``bounds``
    (criterion -> (lo, hi)). ``seeds`` per criterion (see ``derive_seed``; 0 when absent)
    make the Monte Carlo and bootstrap parts reproducible. Criteria keep the input order."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if margin < 0:
        raise ValueError(f"margin must be >= 0, got {margin!r}")
    directions = higher_is_better or {}
    seed_of = seeds or {}
    ranges = bounds or {}
    parts = [
        _one(
            name,
            a,
            b,
            *ranges.get(name, (lo, hi)),
            directions.get(name, True),
            alpha,
            margin,
            non_inferiority_margin,
            seed_of.get(name, 0),
            resamples,
        )
        for name, (a, b) in scores.items()
    ]
    adjusted = holm([p["p_value"] for p in parts])
    out = []
    for part, p_holm in zip(parts, adjusted, strict=True):
        status = ChangeStatus.NO_DETECTABLE_CHANGE
        if p_holm < alpha:
            status = ChangeStatus.REGRESSED if part["p_worse"] < part["p_better"] else ChangeStatus.IMPROVED
        out.append(CriterionComparison(p_holm=p_holm, status=status, **part))
    return Comparison(tuple(out), alpha, 1.0 - alpha)


def smallest_case_p(runs_a: int, runs_b: int) -> float:
    """The smallest p the two-sided permutation test of one case can give with these runs
    per side: the most extreme of the C(n_a + n_b, n_a) relabellings, counted twice when
    the sides are the same size (its mirror is as extreme). 2 and 2 runs: 0.333; 3 and 3:
    0.100; 4 and 4: 0.029."""
    if runs_a < 1 or runs_b < 1:
        return 1.0
    return min(1.0, (2.0 if runs_a == runs_b else 1.0) / math.comb(runs_a + runs_b, runs_a))


def flag_min_runs(fdr: float = 0.10) -> int:
    """The fewest runs per side (the same on both) with which a case can be flagged at all:
    the smallest n whose ``smallest_case_p(n, n)`` is below ``fdr`` (4 at 0.10)."""
    n = 1
    while smallest_case_p(n, n) >= fdr:
        n += 1
    return n


@dataclass(frozen=True)
class CaseChange:
    """One case's change between two runs with repeated runs on both sides:
    ``delta`` = mean(B runs) - mean(A runs), the two-sided permutation ``p_value``, its
    Benjamini–Hochberg ``q_value`` over the cases tested, and ``flagged`` when q < the
    FDR level. A case is tested only when a flag is attainable: its smallest possible p
    (``smallest_case_p``) is below the FDR level, which needs 4 runs a side at 0.10
    (``flag_min_runs``); other cases are not tested (p and q ``None``) and do not count
    in the correction."""

    index: int
    mean_a: float
    mean_b: float
    delta: float
    p_value: Optional[float]
    q_value: Optional[float]
    flagged: bool


def compare_case_runs(
    runs_a: Sequence[Sequence[float]],
    runs_b: Sequence[Sequence[float]],
    *,
    fdr: float = 0.10,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
) -> tuple[CaseChange, ...]:
    """Per-case changes (paired cases, in order) with BH flags at ``fdr``. Each case whose
    runs make a flag attainable is tested with its own seed derived from ``seed`` and its
    index. A case with no run on a side raises ``ValueError``."""
    if len(runs_a) != len(runs_b):
        raise ValueError(f"paired cases need equal lengths, got {len(runs_a)} and {len(runs_b)}")
    tested: list[tuple[int, float]] = []
    rows = []
    for index, (ra, rb) in enumerate(zip(runs_a, runs_b, strict=True)):
        if not ra or not rb:
            raise ValueError(f"case {index} has no scored run on one side")
        mean_a, mean_b = math.fsum(ra) / len(ra), math.fsum(rb) / len(rb)
        p = None
        if smallest_case_p(len(ra), len(rb)) < fdr:
            p = two_sample_test(ra, rb, seed=seed + index, resamples=resamples).p_value
            tested.append((index, p))
        rows.append((index, mean_a, mean_b, p))
    q_of = dict(zip([i for i, _ in tested], benjamini_hochberg([p for _, p in tested]), strict=True))
    return tuple(
        CaseChange(i, ma, mb, mb - ma, p, q_of.get(i), q_of.get(i, 1.0) < fdr) for i, ma, mb, p in rows
    )
