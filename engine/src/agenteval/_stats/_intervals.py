"""Confidence intervals for a mean over independent units (runs of a case, cases of a set).

Which method, as ``bounded_interval`` picks it:

* every value at ``lo`` or ``hi`` (0/1 units): **Clopper–Pearson**, exact, its one-sided
  error at most (1 - level)/2 at every n;
* fewer than 20 values, or all values equal: the **betting** interval (Waudby-Smith and
  Ramdas 2024, hedged capital), valid for any distribution on [lo, hi] at every n;
* otherwise **BCa** bootstrap, seeded.

numpy and scipy are imported inside the functions that need them.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Callable, Sequence
from statistics import NormalDist
from typing import Any, Optional, TypeVar

from ._beta import betaincinv
from ._interval import Interval

__all__ = [
    "BCA_MIN_N",
    "DEFAULT_RESAMPLES",
    "bca_interval",
    "betting_excludes",
    "betting_interval",
    "bounded_interval",
    "clopper_pearson",
    "manski_interval",
]

#: From this many values on (and unless all are equal) bounded scores use BCa.
BCA_MIN_N = 20
DEFAULT_RESAMPLES = 9999
#: At most this many cells of a betting matrix in memory at once.
_BATCH_CELLS = 2_000_000
#: At most this many resampled values (and their indices) in memory at once: 4 MB. The
#: indices drawn a few rows at a time are the ones drawn all at once (the generator's
#: stream does not depend on how its draws are split by rows), and so is the interval.
_RESAMPLE_CELLS = 250_000
#: Resampled values drawn per interval at most: with many values, fewer resamples (never
#: below ``MIN_RESAMPLES``, Efron's advice for BCa) keep an interval over 1,000 cases at
#: about 30 ms; the count used is recorded in the interval.
_WORK = 2_000_000
MIN_RESAMPLES = 1999
_GRID = 501


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")


def _check_values(values: Sequence[float], lo: float, hi: float) -> list[float]:
    if not hi > lo:
        raise ValueError(f"the range [lo, hi] must have hi > lo, got [{lo!r}, {hi!r}]")
    out = [float(v) for v in values]
    for v in out:
        if not lo <= v <= hi:
            raise ValueError(f"value {v!r} is outside [{lo!r}, {hi!r}]")
    return out


@functools.lru_cache(maxsize=1024)
def clopper_pearson(successes: int, n: int, level: float = 0.95) -> Interval:
    """The exact (Clopper–Pearson) interval for a rate from ``successes`` of ``n``.

    ``low`` is 0 when ``successes == 0`` and ``high`` is 1 when ``successes == n``; with all
    successes ``low = ((1 - level) / 2) ** (1 / n)``. ``n == 0`` gives [0, 1] (``no-data``).
    Each distinct (successes, n, level) is computed once (an eval set's pass rate and the
    interval of its pass/fail scores ask for the same one).
    """
    _check_level(level)
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got {successes!r} of {n!r}")
    if n == 0:
        return Interval(0.0, 1.0, None, "no-data", level, 0)
    tail = (1.0 - level) / 2.0
    low = 0.0 if successes == 0 else float(betaincinv(successes, n - successes + 1, tail))
    high = 1.0 if successes == n else float(betaincinv(successes + 1, n - successes, 1.0 - tail))
    return Interval(low, high, successes / n, "clopper-pearson", level, n)


def betting_interval(
    values: Sequence[float], lo: float = 0.0, hi: float = 1.0, level: float = 0.95, grid: int = _GRID
) -> Interval:
    """The betting (hedged-capital) interval for the mean of values in [lo, hi].

    For each candidate mean m on a ``grid``-point lattice of [lo, hi], a gambler bets for
    and against ``mean > m`` with predictable plug-in bets sized for n values; m is
    rejected once half the capital of either side, summed, reaches ``1 / (1 - level)`` at
    any step (Ville's inequality makes this valid for any distribution at any n). The
    interval spans the kept candidates, widened by one grid step on each side (never past
    [lo, hi]); it never has zero width, so agreeing runs do not fake certainty.
    Empty ``values`` give [lo, hi] (``no-data``).
    """
    _check_level(level)
    xs = _check_values(values, lo, hi)
    if not xs:
        return Interval(lo, hi, None, "no-data", level, 0)
    return _betting(tuple(xs), lo, hi, level, grid)


#: Results over at most this many values are remembered (a case's runs: the same few score
#: lists recur across thousands of cases); longer ones (an eval set's cases) are not kept.
REMEMBERED_VALUES = 64

_F = TypeVar("_F", bound=Callable[..., Any])


def betting_excludes(
    values: Sequence[float], threshold: float, lo: float = 0.0, hi: float = 1.0, level: float = 0.95
) -> bool:
    """Whether ``betting_interval(values, lo, hi, level)`` excludes ``threshold`` (its low
    above it or its high below it), the same answer, found from the candidates that decide it.

    The interval's low is set by the first kept candidate of the lattice and its high by the
    last; both move one way with that candidate's index, and each candidate is kept or
    rejected on its own. So only the candidates on the threshold's side of the mean are
    followed (and, when all of them are rejected, the one nearest the mean, to tell a kept
    candidate from none); the rest of the lattice is needed only when that one is rejected
    too. Used for the settle hint, which asks this of several lengths of repeated values."""
    _check_level(level)
    xs = _check_values(values, lo, hi)
    if not xs:
        return False
    import numpy as np

    span = hi - lo
    x = (np.asarray(xs, dtype=float) - lo) / span
    lam = _bets(x, 1.0 - level)
    grid = _GRID
    candidates = np.linspace(0.0, 1.0, grid)
    mean = float(x.mean())
    step = 1.0 / (grid - 1)

    def kept(indices: Any) -> Any:
        return indices[_kept_candidates(x, lam, candidates[indices], 1.0 / (1.0 - level))]

    def low_of(index: int) -> float:
        return float(lo + max(0.0, min(float(index - 1) * step, mean)) * span)

    def high_of(index: int) -> float:
        return float(lo + min(1.0, max(float(index + 1) * step, mean)) * span)

    def none_kept(after: Any) -> bool:
        """Whether no candidate at all is kept, knowing none is among ``after``'s complement."""
        nearest = np.array([int(round(mean / step))])
        if kept(nearest).size:
            return False
        return kept(np.setdiff1d(after, nearest)).size == 0

    everything = np.arange(grid)
    if lo + mean * span > threshold:  # the low can be above: the first kept candidate decides
        first = bisect.bisect_right(range(grid), threshold, key=low_of)  # low_of(first) > threshold
        if kept(everything[:first]).size:
            return False
        if first < grid and not none_kept(everything[first:]):
            return True
        return float(lo + max(0.0, min(mean - step, mean)) * span) > threshold  # none kept
    if lo + mean * span < threshold:  # the high can be below: the last kept candidate decides
        last = bisect.bisect_left(range(grid), threshold, key=high_of) - 1  # high_of(last) < threshold
        if kept(everything[last + 1 :]).size:
            return False
        if last >= 0 and not none_kept(everything[: last + 1]):
            return True
        return float(lo + min(1.0, max(mean + step, mean)) * span) < threshold  # none kept
    return False


def _bets(x: Any, alpha: float) -> Any:
    """The predictable plug-in bet sizes of ``betting_interval`` for observations ``x`` in
    [0, 1]: running estimates before each observation, sized for ``x.size`` values."""
    import numpy as np

    n = x.size
    counts = np.arange(1, n + 1)
    mu_hat = (0.5 + np.cumsum(x)) / (counts + 1)
    sq = np.cumsum((x - mu_hat) ** 2)
    sigma2 = (0.25 + sq) / (counts + 1)
    sigma2_prev = np.concatenate(([0.25], sigma2[:-1]))
    return np.sqrt(2.0 * math.log(2.0 / alpha) / (n * sigma2_prev))


def remembered_when_short(function: _F) -> _F:
    """``function`` (whose first argument is a tuple of values) computed once per distinct
    input of at most ``REMEMBERED_VALUES`` values (4,096 kept); a longer input is computed
    afresh and never kept. The result keeps ``lru_cache``'s ``cache_info`` / ``cache_clear``
    and ``__wrapped__`` (the function itself)."""
    remembered = functools.lru_cache(maxsize=4096)(function)

    @functools.wraps(function)
    def call(values: tuple[float, ...], *args: Any) -> Any:
        return (function if len(values) > REMEMBERED_VALUES else remembered)(values, *args)

    call.cache_info = remembered.cache_info  # type: ignore[attr-defined]
    call.cache_clear = remembered.cache_clear  # type: ignore[attr-defined]
    return call  # type: ignore[return-value]


@remembered_when_short
def _betting(xs: tuple[float, ...], lo: float, hi: float, level: float, grid: int) -> Interval:
    """``betting_interval`` of checked values, once per distinct input (see
    ``REMEMBERED_VALUES``)."""
    import numpy as np

    span = hi - lo
    x = (np.asarray(xs, dtype=float) - lo) / span
    n = x.size
    alpha = 1.0 - level
    lam = _bets(x, alpha)  # running estimates before each observation: the bets are predictable
    candidates = np.linspace(0.0, 1.0, grid)
    kept = _kept_candidates(x, lam, candidates, 1.0 / alpha)
    mean = float(x.mean())
    step = 1.0 / (grid - 1)
    if kept.size == 0:  # only possible with a coarse grid: keep the lattice cell of the mean
        low, high = mean - step, mean + step
    else:
        low, high = float(kept[0] - 1) * step, float(kept[-1] + 1) * step
    low, high = max(0.0, min(low, mean)), min(1.0, max(high, mean))
    return Interval(float(lo + low * span), float(lo + high * span), lo + mean * span, "betting", level, n)


#: Observations a candidate is first followed over in ``_kept_candidates`` (doubled each round).
_FIRST_STEPS = 256


def _kept_candidates(x: Any, lam: Any, candidates: Any, threshold: float, first: int = _FIRST_STEPS) -> Any:
    """The indices of the ``candidates`` no bettor rejects: a candidate m is rejected once the
    capital ``0.5 * exp(sum log1p(lam_up (x - m))) + 0.5 * exp(sum log1p(-lam_down (x - m)))``
    reaches ``threshold`` (or is NaN) after any observation.

    The observations are followed in rounds of doubling length (``first`` steps first); a
    candidate rejected in one round is dropped from the next, so a far candidate costs the
    steps that reject it, not all n (with many equal values, a run compared with itself,
    nearly every candidate falls within a few thousand steps). Each kept log-capital is
    carried into the next round as the first term of its running sum, so every sum is the
    same sequence of additions as one cumulative sum over all n and each decision is the
    one the whole matrix gives."""
    import numpy as np

    n = x.size
    alive = np.arange(candidates.size)
    carry_up = np.zeros(candidates.size)
    carry_down = np.zeros(candidates.size)
    start, width = 0, first
    while start < n and alive.size:
        stop = min(n, start + max(1, min(width, _BATCH_CELLS // alive.size)))
        m = candidates[alive, None]
        with np.errstate(divide="ignore"):
            lam_up = np.minimum(lam[None, start:stop], 0.5 / m)
            lam_down = np.minimum(lam[None, start:stop], 0.5 / (1.0 - m))
        diff = x[None, start:stop] - m
        log_up = np.cumsum(np.hstack((carry_up[:, None], np.log1p(lam_up * diff))), axis=1)
        log_down = np.cumsum(np.hstack((carry_down[:, None], np.log1p(-lam_down * diff))), axis=1)
        with np.errstate(over="ignore"):  # an overflowing capital is an infinite one: rejected
            capital = 0.5 * np.exp(log_up[:, 1:]) + 0.5 * np.exp(log_down[:, 1:])
        going = capital.max(axis=1) < threshold  # NaN: rejected
        alive, carry_up, carry_down = alive[going], log_up[going, -1], log_down[going, -1]
        start, width = stop, width * 2
    return alive


def bca_interval(
    values: Sequence[float],
    lo: float = 0.0,
    hi: float = 1.0,
    level: float = 0.95,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
) -> Interval:
    """The BCa bootstrap interval for the mean (Efron's bias-corrected and accelerated
    percentile interval, as ``scipy.stats.bootstrap(method="BCa")`` computes it), resampled
    with ``numpy.random.default_rng(seed)`` in batches (memory bounded whatever the number
    of values), clipped to [lo, hi]. numpy only: scipy's import (0.8 s) is not paid for it.
    ``resamples`` is lowered for many values so that at most about 2 million resampled values
    are drawn (never below ``MIN_RESAMPLES``); the interval records the count used.
    Needs at least 2 values that are not all equal (``ValueError`` otherwise: use
    ``bounded_interval``, which sends those to the betting interval)."""
    _check_level(level)
    xs = _check_values(values, lo, hi)
    if len(xs) < 2 or len(set(xs)) == 1:
        raise ValueError("BCa needs at least two values that are not all equal")
    import numpy as np

    data = np.asarray(xs, dtype=float)
    n = len(data)
    mean = float(data.mean())
    resamples = min(resamples, max(MIN_RESAMPLES, _WORK // n))
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    batch = max(1, min(resamples, _RESAMPLE_CELLS // n))
    for start in range(0, resamples, batch):
        stop = min(start + batch, resamples)
        means[start:stop] = data[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    # Bias correction: where the observed mean falls among the resampled ones (ties half).
    share = ((means < mean).sum() + (means <= mean).sum()) / (2 * resamples)
    # Acceleration: the skewness of the jackknife means.
    jack = (data.sum() - data) / (n - 1)
    spread = jack.mean() - jack
    scale = 6 * float((spread**2).sum()) ** 1.5  # 0.0 for no spread, or one too small to cube
    accel = float((spread**3).sum()) / scale if scale > 0 else 0.0
    normal = NormalDist()
    if not 0 < share < 1:
        raise ValueError("BCa gave no finite interval for these values")
    z0 = normal.inv_cdf(share)
    tail = (1 - level) / 2
    bounds = []
    for z in (normal.inv_cdf(tail), normal.inv_cdf(1 - tail)):
        shifted = z0 + (z0 + z) / (1 - accel * (z0 + z))
        bounds.append(normal.cdf(shifted))
    low, high = (float(v) for v in np.percentile(means, [100 * bounds[0], 100 * bounds[1]]))
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError("BCa gave no finite interval for these values")
    low, high = max(lo, min(low, mean)), min(hi, max(high, mean))
    return Interval(low, high, mean, "bca", level, len(xs), seed=seed, resamples=resamples)


def _binary(xs: Sequence[float], lo: float, hi: float) -> bool:
    return all(v == lo or v == hi for v in xs)


def bounded_interval(
    values: Sequence[float],
    lo: float = 0.0,
    hi: float = 1.0,
    level: float = 0.95,
    seed: int = 0,
    *,
    resamples: int = DEFAULT_RESAMPLES,
) -> Interval:
    """The interval for the mean of ``values`` in [lo, hi], by the module's rule:
    Clopper–Pearson when every value is ``lo`` or ``hi``; betting when fewer than 20
    values or all equal; BCa (seeded with ``seed``) otherwise, falling back to betting if
    the bootstrap degenerates. Empty ``values`` give [lo, hi] (``no-data``)."""
    xs = _check_values(values, lo, hi)
    _check_level(level)
    if not xs:
        return Interval(lo, hi, None, "no-data", level, 0)
    if _binary(xs, lo, hi):
        cp = clopper_pearson(sum(1 for v in xs if v == hi), len(xs), level)
        span = hi - lo
        return Interval(
            lo + cp.low * span, lo + cp.high * span, math.fsum(xs) / len(xs), cp.method, level, len(xs)
        )
    if len(xs) < BCA_MIN_N or len(set(xs)) == 1:
        return betting_interval(xs, lo, hi, level)
    try:
        return bca_interval(xs, lo, hi, level, seed, resamples)
    except ValueError:
        return betting_interval(xs, lo, hi, level)


def manski_interval(
    values: Sequence[Optional[float]],
    lo: float = 0.0,
    hi: float = 1.0,
    level: float = 0.95,
    seed: int = 0,
    *,
    resamples: int = DEFAULT_RESAMPLES,
) -> Interval:
    """The interval for the mean when some values are missing (``None``): Manski bounds.

    ``low`` comes from the interval with every missing value set to ``lo``, ``high`` from
    the one with every missing value set to ``hi`` (each by ``bounded_interval``); the
    result also contains the interval of the scored values alone, so it only ever widens.
    ``estimate`` is the mean of the scored values (ADK's score; ``None`` if none).
    ``method`` names the method of the scored values' interval. Without missing values
    this is ``bounded_interval``.
    """
    scored = [float(v) for v in values if v is not None]
    missing = len(values) - len(scored)
    kept = bounded_interval(scored, lo, hi, level, seed, resamples=resamples)
    if missing == 0:
        return kept
    low_side = bounded_interval(scored + [lo] * missing, lo, hi, level, seed, resamples=resamples)
    high_side = bounded_interval(scored + [hi] * missing, lo, hi, level, seed, resamples=resamples)
    low = min(low_side.low, kept.low)
    high = max(high_side.high, kept.high)
    return Interval(
        low,
        high,
        kept.estimate,
        kept.method if scored else low_side.method,
        level,
        len(scored),
        seed=kept.seed,
        resamples=kept.resamples,
        n_missing=missing,
        missing="bound",
    )
