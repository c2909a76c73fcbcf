"""Permutation tests: the paired sign-flip test and the two-sample test of a case's runs."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

__all__ = ["EXACT_LIMIT", "PermutationTest", "sign_flip_test", "two_sample_test"]

#: Enumerate all 2**m sign patterns up to this many non-zero differences.
EXACT_LIMIT = 20
_CHUNK = 1 << 15


@dataclass(frozen=True)
class PermutationTest:
    """A permutation p-value: ``method`` is ``exact`` (every arrangement enumerated) or
    ``monte-carlo`` (``resamples`` random ones drawn with ``seed``, p = (b + 1) / (m + 1));
    ``n_informative`` counts the differences that can move (non-zero ones, or all runs)."""

    p_value: float
    alternative: str
    method: str
    n_informative: int
    seed: Optional[int] = None
    resamples: Optional[int] = None


def _tolerance(values: Sequence[float]) -> float:
    return 1e-9 * max(1.0, max((abs(v) for v in values), default=1.0)) * max(1, len(values))


def sign_flip_test(
    differences: Sequence[float],
    alternative: str = "less",
    *,
    seed: int = 0,
    resamples: int = 9999,
    exact_limit: int = EXACT_LIMIT,
) -> PermutationTest:
    """The one-sided sign-flip permutation test of the mean of paired ``differences``.

    Under H0 (the two sides are exchangeable within each pair) every difference is as
    likely positive as negative. ``alternative="less"``: p = P(sum of flipped <= observed
    sum); ``"greater"`` mirrors it. Zero differences are dropped (flipping leaves them
    unchanged); with none left p = 1. With at most ``exact_limit`` non-zero differences
    all 2**m patterns are enumerated (exact; on differences in {-1, 0, 1} this is the
    one-sided exact McNemar test), otherwise ``resamples`` random patterns are drawn.
    """
    if alternative not in ("less", "greater"):
        raise ValueError(f"alternative must be 'less' or 'greater', got {alternative!r}")
    d = [float(x) for x in differences if x != 0]
    m = len(d)
    if m == 0:
        return PermutationTest(1.0, alternative, "exact", 0)
    import numpy as np

    values = np.asarray(d if alternative == "less" else [-x for x in d])
    observed = float(values.sum())
    tol = _tolerance(d)
    magnitudes = np.abs(values)
    if m <= exact_limit:
        hits = 0
        bits = np.arange(m)
        for start in range(0, 1 << m, _CHUNK):
            patterns = np.arange(start, min(start + _CHUNK, 1 << m))
            signs = ((patterns[:, None] >> bits) & 1) * 2 - 1
            hits += int(np.count_nonzero(signs @ magnitudes <= observed + tol))
        return PermutationTest(hits / float(1 << m), alternative, "exact", m)
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, resamples, _CHUNK):
        size = min(_CHUNK, resamples - start)
        signs = rng.integers(0, 2, size=(size, m)) * 2 - 1
        hits += int(np.count_nonzero(signs @ magnitudes <= observed + tol))
    return PermutationTest((hits + 1) / (resamples + 1), alternative, "monte-carlo", m, seed, resamples)


def two_sample_test(
    a: Sequence[float],
    b: Sequence[float],
    *,
    seed: int = 0,
    resamples: int = 9999,
    exact_limit: int = 20000,
) -> PermutationTest:
    """The two-sided permutation test of mean(b) - mean(a) for two independent samples
    (one case's runs in two eval runs): p = P(|difference of a relabelling| >= observed).
    Exact over all C(n_a + n_b, n_a) relabellings up to ``exact_limit``, else Monte Carlo.
    Either side empty gives p = 1."""
    xa, xb = [float(x) for x in a], [float(x) for x in b]
    if not xa or not xb:
        return PermutationTest(1.0, "two-sided", "exact", 0)
    import itertools

    import numpy as np

    pooled = np.asarray(xa + xb)
    na, n = len(xa), len(xa) + len(xb)
    total = float(pooled.sum())

    def gaps(sum_a: np.ndarray) -> np.ndarray:
        return np.abs((total - sum_a) / (n - na) - sum_a / na)

    observed = float(gaps(np.asarray([sum(xa)]))[0])
    tol = _tolerance(list(pooled))
    if math.comb(n, na) <= exact_limit:
        index = np.asarray(list(itertools.combinations(range(n), na)))
        sums = pooled[index].sum(axis=1)
        p = float(np.count_nonzero(gaps(sums) >= observed - tol)) / len(index)
        return PermutationTest(p, "two-sided", "exact", n)
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((resamples, n)), axis=1)[:, :na]
    hits = int(np.count_nonzero(gaps(pooled[order].sum(axis=1)) >= observed - tol))
    return PermutationTest((hits + 1) / (resamples + 1), "two-sided", "monte-carlo", n, seed, resamples)
