"""Tri-state verdicts: PASS / FAIL / INCONCLUSIVE from an interval and a threshold.

Per criterion × case the unit is the run; per criterion × eval set it is the case. With
interval [L, U] (higher is better): PASS iff L >= threshold (ADK's inclusive comparison),
FAIL iff U < threshold, else INCONCLUSIVE; lower-is-better mirrors it (PASS iff
U <= threshold, FAIL iff L > threshold). Special cases, by ``basis``:

* ``single-run``: one run gives no measure of variability; the point verdict stands;
* ``zero-failure``: a threshold at the score's best value (ADK's 1.0) is met only by
  perfect runs, so any imperfect run is a certain FAIL, and all-perfect runs PASS as
  pass^k (every one of the k runs passed) with the pass rate's lower bound
  ((1 - level) / 2) ** (1 / k);
* ``identical-runs``: the runs gave identical outputs (a deterministic or cached agent)
  and identical scores, and the interval cannot decide: the k runs are one observation
  repeated, so the point verdict stands, stated with the lower bound on how often the
  agent gives that output, ((1 - level) / 2) ** (1 / k);
* ``judge-sequential``: one run judged in sequential mode; bounds from settled votes;
* ``runs`` / ``cases``: the interval decides.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from statistics import NormalDist
from typing import Any, Optional, Union

from ._interval import Interval, _percent
from ._intervals import (
    BCA_MIN_N,
    betting_excludes,
    betting_interval,
    clopper_pearson,
    manski_interval,
    remembered_when_short,
)

__all__ = [
    "Basis",
    "Verdict",
    "VerdictResult",
    "case_verdict",
    "combine_verdicts",
]

#: The largest number of runs a hint proposes; beyond it the hint says "more than".
_HINT_CAP = 1000


class Verdict(str, Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    INCONCLUSIVE = "INCONCLUSIVE"
    NOT_EVALUATED = "NOT_EVALUATED"


class Basis(str, Enum):
    RUNS = "runs"
    CASES = "cases"
    SINGLE_RUN = "single-run"
    ZERO_FAILURE = "zero-failure"
    IDENTICAL_RUNS = "identical-runs"
    JUDGE_SEQUENTIAL = "judge-sequential"


@dataclass(frozen=True)
class VerdictResult:
    """One tri-state verdict.

    ``score`` is the point value (mean of the scored units, ADK's score); ``interval`` is
    ``None`` for ``single-run`` and ``zero-failure`` FAILs, and the Clopper–Pearson
    interval of the pass rate for a zero-failure PASS and an ``identical-runs`` verdict;
    ``reason`` says why in one sentence, an INCONCLUSIVE one in words ("5 runs cannot yet
    tell the mean from the threshold 0.80: the 95% interval [0.27, 1.00] contains it");
    ``hint`` says how many units would settle an INCONCLUSIVE verdict (``units_to_settle``,
    ``None`` when no number of units can, e.g. a mean exactly at the threshold);
    ``failure_rate_bound`` is set for a zero-failure PASS and an ``identical-runs`` PASS
    (the upper bound on the share of runs that would miss the threshold).
    """

    verdict: Verdict
    basis: Basis
    threshold: float
    score: Optional[float]
    interval: Optional[Interval]
    reason: str
    higher_is_better: bool = True
    n: int = 0
    n_missing: int = 0
    hint: Optional[str] = None
    units_to_settle: Optional[int] = None
    failure_rate_bound: Optional[float] = None

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.PASS


def _f(value: float) -> str:
    return f"{value:.2f}"


def _decide(interval: Interval, threshold: float, higher_is_better: bool) -> Verdict:
    if higher_is_better:
        if interval.low >= threshold:
            return Verdict.PASS
        return Verdict.FAIL if interval.high < threshold else Verdict.INCONCLUSIVE
    if interval.high <= threshold:
        return Verdict.PASS
    return Verdict.FAIL if interval.low > threshold else Verdict.INCONCLUSIVE


def _point(score: float, threshold: float, higher_is_better: bool) -> bool:
    return score >= threshold if higher_is_better else score <= threshold


def _interval_reason(
    verdict: Verdict, interval: Interval, threshold: float, higher_is_better: bool, unit: str = "run"
) -> str:
    where = interval.text()
    if verdict is Verdict.INCONCLUSIVE:
        count = interval.n + interval.n_missing
        return (
            f"{where} contains the threshold {_f(threshold)}, so {count} {unit}s cannot yet tell "
            "whether the mean is above or below it"
        )
    above = (verdict is Verdict.PASS) == higher_is_better
    side = "at or above" if above else "below"
    if not higher_is_better:
        side = "above" if above else "at or below"
    missing = f" ({interval.n_missing} missing counted as best and worst)" if interval.n_missing else ""
    return f"{where} is {side} the threshold {_f(threshold)}{missing}"


def _units_to_settle(
    values: Sequence[float], threshold: float, lo: float, hi: float, level: float
) -> Optional[int]:
    """How many units, at this mean and spread, would give an interval that excludes the
    threshold; ``None`` when the mean is at the threshold or more than the cap is needed
    (computed once per distinct input: many cases share their run scores)."""
    return _settle(tuple(values), threshold, lo, hi, level)


@remembered_when_short
def _settle(values: tuple[float, ...], threshold: float, lo: float, hi: float, level: float) -> Optional[int]:
    n = len(values)
    mean = math.fsum(values) / n
    gap = abs(mean - threshold)
    if gap == 0.0:
        return None
    span = hi - lo
    if all(v in (lo, hi) for v in values):
        import numpy as np
        from scipy.special import betaincinv

        rate = (mean - lo) / span
        t = (threshold - lo) / span
        sizes = np.arange(n + 1, _HINT_CAP + 1)
        k = np.round(rate * sizes)
        tail = (1.0 - level) / 2.0
        with np.errstate(invalid="ignore"):
            low = np.where(k > 0, betaincinv(np.maximum(k, 1), sizes - k + 1, tail), 0.0)
            high = np.where(k < sizes, betaincinv(k + 1, np.maximum(sizes - k, 1), 1.0 - tail), 1.0)
        settled = (low >= t) | (high < t) if rate > t else (high < t)
        hits = np.nonzero(settled)[0]
        return int(sizes[hits[0]]) if hits.size else None

    # Bounded scores: the betting interval on the observed values repeated, below 20
    # units; a normal approximation of BCa from 20 on.
    def settles(size: int) -> bool:
        return betting_excludes([values[i % n] for i in range(size)], threshold, lo, hi, level)

    if n + 1 < BCA_MIN_N and settles(BCA_MIN_N - 1):  # bisect for the first size that settles
        unsettled, settling = n, BCA_MIN_N - 1
        while settling - unsettled > 1:
            middle = (unsettled + settling) // 2
            unsettled, settling = (unsettled, middle) if settles(middle) else (middle, settling)
        return settling
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / max(n - 1, 1))
    if sd == 0.0:  # all equal: betting at every n
        size = BCA_MIN_N
        while size <= _HINT_CAP:
            interval = betting_interval([values[0]] * size, lo, hi, level)
            if interval.low > threshold or interval.high < threshold:
                return size
            size *= 2
        return None
    z = NormalDist().inv_cdf(1.0 - (1.0 - level) / 2.0)
    size = max(BCA_MIN_N, n + 1, math.ceil((z * sd / gap) ** 2))
    return size if size <= _HINT_CAP else None


def _hint(units: Optional[int], unit: str, mean: float, threshold: float) -> str:
    if units is None:
        if mean == threshold:
            return f"the mean equals the threshold: more {unit}s cannot settle it"
        return f"more than {_HINT_CAP} {unit}s would be needed at this mean and spread"
    return f"at this mean and spread about {units} {unit}s in all would settle it"


def case_verdict(
    scores: Sequence[Optional[float]],
    threshold: float,
    *,
    lo: float = 0.0,
    hi: float = 1.0,
    higher_is_better: bool = True,
    level: float = 0.95,
    seed: int = 0,
    missing: str = "bound",
    unit: str = "run",
    hint: bool = True,
    identical: Union[bool, Callable[[], bool]] = False,
) -> VerdictResult:
    """The tri-state verdict of one criterion from its unit scores in [lo, hi].

    ``scores`` are the run scores of a case (``unit="run"``, basis ``runs``) or the case
    scores of an eval set (``unit="case"``, basis ``cases``); ``None`` is a missing
    (NOT_EVALUATED) unit. ``missing="bound"`` widens the interval by Manski bounds;
    ``"exclude"`` drops missing units (ADK's behaviour). No scored unit gives
    NOT_EVALUATED; one unit in all gives the point verdict (``single-run``); a threshold
    at the best value follows the zero-failure rule; a threshold at the worst value
    always passes. ``identical=True`` says the units are copies of one observation (the
    runs gave identical outputs): when their scores are identical too and the interval
    cannot decide, the point verdict stands (basis ``identical-runs``); a callable is asked
    only then (finding it out may mean reading the runs' outputs). ``seed`` drives the
    BCa resamples (see ``derive_seed``). ``hint=False`` skips the search for how many units
    would settle an INCONCLUSIVE verdict (it costs a few interval computations).
    """
    if missing not in ("bound", "exclude"):
        raise ValueError(f"missing must be 'bound' or 'exclude', got {missing!r}")
    scored = [float(s) for s in scores if s is not None]
    n_missing = len(scores) - len(scored)
    basis = Basis.RUNS if unit == "run" else Basis.CASES
    common: dict[str, Any] = {"threshold": threshold, "higher_is_better": higher_is_better, "n": len(scored)}
    if missing == "exclude":
        n_missing = 0
    common["n_missing"] = n_missing
    if not scored:
        return VerdictResult(
            Verdict.NOT_EVALUATED, basis, score=None, interval=None, reason=f"no {unit} was scored", **common
        )
    score = math.fsum(scored) / len(scored)
    if len(scored) + n_missing == 1:
        ok = _point(score, threshold, higher_is_better)
        return VerdictResult(
            Verdict.PASS if ok else Verdict.FAIL,
            Basis.SINGLE_RUN,
            score=score,
            interval=None,
            reason=(
                f"one {unit}: score {_f(score)} {'meets' if ok else 'misses'} the threshold {_f(threshold)} "
                f"(no interval from a single {unit})"
            ),
            **common,
        )
    best, worst = (hi, lo) if higher_is_better else (lo, hi)
    if threshold == worst or (threshold < lo if higher_is_better else threshold > hi):
        return VerdictResult(
            Verdict.PASS,
            basis,
            score=score,
            interval=None,
            reason=f"every score meets a threshold at the worst value {_f(threshold)}",
            **common,
        )
    if threshold == best:
        return _zero_failure(scored, n_missing, score, best, level, unit, common)
    values: list[Optional[float]] = list(scored) + [None] * n_missing
    interval = manski_interval(values, lo, hi, level, seed)
    verdict = _decide(interval, threshold, higher_is_better)
    if (
        verdict is Verdict.INCONCLUSIVE
        and not n_missing
        and len(set(scored)) == 1
        and (identical() if callable(identical) else identical)
    ):
        return _identical(scored, score, threshold, higher_is_better, level, unit, common)
    reason = _interval_reason(verdict, interval, threshold, higher_is_better, unit)
    advice = units = None
    if verdict is Verdict.INCONCLUSIVE and n_missing:
        advice = f"{n_missing} missing {unit}(s) keep it open: score them first"
    elif verdict is Verdict.INCONCLUSIVE and hint:
        units = _units_to_settle(scored, threshold, lo, hi, level)
        advice = _hint(units, unit, score, threshold)
    return VerdictResult(
        verdict,
        basis,
        score=score,
        interval=interval,
        reason=reason,
        hint=advice,
        units_to_settle=units,
        **common,
    )


def _zero_failure(
    scored: list[float], n_missing: int, score: float, best: float, level: float, unit: str, common: dict
) -> VerdictResult:
    imperfect = [i for i, s in enumerate(scored) if s != best]
    if imperfect:
        first = imperfect[0]
        return VerdictResult(
            Verdict.FAIL,
            Basis.ZERO_FAILURE,
            score=score,
            interval=None,
            reason=(
                f"{len(imperfect)} of {len(scored)} {unit}s scored below {_f(best)} (first: {unit} "
                f"{first + 1}, {_f(scored[first])}); a threshold at the best value fails on any "
                f"imperfect {unit}"
            ),
            **common,
        )
    n = len(scored)
    rate = clopper_pearson(n, n, level)
    if n_missing:
        return VerdictResult(
            Verdict.INCONCLUSIVE,
            Basis.ZERO_FAILURE,
            score=score,
            interval=None,
            reason=f"all {n} scored {unit}s are perfect, but {n_missing} missing one(s) could fail",
            hint=f"{n_missing} missing {unit}(s) keep it open: score them first",
            **common,
        )
    return VerdictResult(
        Verdict.PASS,
        Basis.ZERO_FAILURE,
        score=score,
        interval=Interval(rate.low, 1.0, 1.0, rate.method, level, n),
        reason=(
            f"all {n} {unit}s are perfect, as a threshold at the best value {_f(best)} asks "
            f"(pass^{n}); {_rate_bound(rate.low, level, unit, 'pass')}"
        ),
        failure_rate_bound=1.0 - rate.low,
        **common,
    )


def _rate_bound(low: float, level: float, unit: str, verb: str) -> str:
    return f"at least {low:.1%} of {unit}s would {verb} ({_percent(level)} lower bound)"


def _identical(
    scored: list[float],
    score: float,
    threshold: float,
    higher_is_better: bool,
    level: float,
    unit: str,
    common: dict,
) -> VerdictResult:
    """k identical runs with identical outputs: one observation repeated. The point verdict
    stands; what the k runs do show is how often the agent gives that output: at least
    ((1 - level) / 2) ** (1 / k) of runs (Clopper–Pearson for k of k)."""
    n = len(scored)
    ok = _point(scored[0], threshold, higher_is_better)  # every run's score, not a rounded mean
    rate = clopper_pearson(n, n, level)
    interval = (
        Interval(rate.low, 1.0, 1.0, rate.method, level, n)
        if ok
        else Interval(0.0, 1.0 - rate.low, 0.0, rate.method, level, n)
    )
    return VerdictResult(
        Verdict.PASS if ok else Verdict.FAIL,
        Basis.IDENTICAL_RUNS,
        score=score,
        interval=interval,
        reason=(
            f"all {n} {unit}s gave the same output and score {_f(scored[0])}, which "
            f"{'meets' if ok else 'misses'} the threshold {_f(threshold)}: one observation "
            f"repeated, so the point verdict stands; {_rate_bound(rate.low, level, unit, 'give it')}"
        ),
        failure_rate_bound=1.0 - rate.low if ok else None,
        **common,
    )


def combine_verdicts(verdicts: Sequence[Verdict]) -> Verdict:
    """A case's verdict over its gating criteria, or a set's over its cases: FAIL if any
    FAILs or is NOT_EVALUATED, else INCONCLUSIVE if any is, else PASS (PASS when empty)."""
    if any(v in (Verdict.FAIL, Verdict.NOT_EVALUATED) for v in verdicts):
        return Verdict.FAIL
    if any(v is Verdict.INCONCLUSIVE for v in verdicts):
        return Verdict.INCONCLUSIVE
    return Verdict.PASS
