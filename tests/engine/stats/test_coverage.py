"""Operating characteristics, seeded so they are deterministic: coverage of the intervals,
verdict error rates near the threshold, the type I error of compare, and a clustering guard.

The quick checks use exact pmf sums or a few hundred replicates; the 10,000-replicate
checks of §5.9 of the study are marked ``slow`` (CI runs them; ``-m 'not slow'`` skips).
Tolerance: 4 standard errors of the simulated rate.
"""

from __future__ import annotations

import math

import pytest
from agenteval._stats import (
    Verdict,
    bca_interval,
    betting_interval,
    bounded_interval,
    case_verdict,
    clopper_pearson,
    compare_runs,
)


def _one_criterion(a, b, *, higher_is_better=True, seed=0, **options):
    """``compare_runs`` over one criterion (Holm across one criterion changes nothing)."""
    comparison = compare_runs(
        {"c": (a, b)}, higher_is_better={"c": higher_is_better}, seeds={"c": seed}, **options
    )
    return comparison.criteria[0]


def _tolerance(rate: float, replicates: int) -> float:
    return 4 * math.sqrt(rate * (1 - rate) / replicates)


def _binomial_pmf(n: int, p: float) -> list[float]:
    return [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def test_clopper_pearson_covers_at_least_nominal_everywhere():
    """Exact: the coverage of CP is at least 95% at every n <= 100 on a p grid."""
    grid = [i / 40 for i in range(1, 40)]
    for n in [1, 2, 3, 5, 8, 10, 15, 20, 30, 50, 75, 100]:
        bounds = [clopper_pearson(k, n) for k in range(n + 1)]
        for p in grid:
            pmf = _binomial_pmf(n, p)
            coverage = sum(w for k, w in enumerate(pmf) if bounds[k].low <= p <= bounds[k].high)
            assert coverage >= 0.95 - 1e-12, (n, p, coverage)


@pytest.mark.parametrize("runs", [5, 20])
def test_binary_verdict_error_rates_stay_below_half_alpha(runs):
    """Exact: with 0/1 runs and the truth 0.05 from the threshold, P(wrong verdict) <= 2.5%."""
    threshold = 0.8
    verdicts = {k: case_verdict([1.0] * k + [0.0] * (runs - k), threshold).verdict for k in range(runs + 1)}
    below = _binomial_pmf(runs, threshold - 0.05)
    above = _binomial_pmf(runs, threshold + 0.05)
    assert sum(w for k, w in enumerate(below) if verdicts[k] is Verdict.PASS) <= 0.025
    assert sum(w for k, w in enumerate(above) if verdicts[k] is Verdict.FAIL) <= 0.025


def _rouge_like(rng, shape):
    import numpy as np

    exact = rng.random(shape) < 0.6
    return np.where(exact, 1.0, rng.uniform(0.4, 0.9, shape))


_MEANS = {"beta(4,1)": 0.8, "rouge-like": 0.6 + 0.4 * 0.65, "bernoulli(0.9)": 0.9, "two-point": 0.69}


def _draw(name, rng, shape):
    import numpy as np

    if name == "beta(4,1)":
        return rng.beta(4, 1, shape)
    if name == "rouge-like":
        return _rouge_like(rng, shape)
    if name == "bernoulli(0.9)":
        return (rng.random(shape) < 0.9).astype(float)
    return np.where(rng.random(shape) < 0.3, 0.2, 0.9)


def _betting_coverage(name: str, n: int, replicates: int, seed: int) -> float:
    import numpy as np

    rng = np.random.default_rng(seed)
    data = _draw(name, rng, (replicates, n))
    mean = _MEANS[name]
    hits = sum(betting_interval(row, grid=201).contains(mean) for row in data)
    return hits / replicates


@pytest.mark.parametrize("name", list(_MEANS))
def test_betting_coverage_quick(name):
    coverage = _betting_coverage(name, 5, 300, seed=1)
    assert coverage >= 0.95 - _tolerance(0.95, 300)


@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 5, 10, 30])
@pytest.mark.parametrize("name", list(_MEANS))
def test_betting_coverage_10000(name, n):
    coverage = _betting_coverage(name, n, 10_000, seed=n)
    assert coverage >= 0.941, (name, n, coverage)


def _bca_coverage(n: int, replicates: int, seed: int) -> float:
    import numpy as np

    rng = np.random.default_rng(seed)
    data = rng.beta(4, 1, (replicates, n))
    hits = sum(bca_interval(row, seed=seed + i, resamples=999).contains(0.8) for i, row in enumerate(data))
    return hits / replicates


@pytest.mark.slow
@pytest.mark.parametrize("n", [30, 50])
def test_bca_coverage_near_nominal(n):
    coverage = _bca_coverage(n, 2000, seed=n)
    assert 0.93 <= coverage <= 0.97, coverage


def _bounded_verdict_errors(runs: int, replicates: int, seed: int) -> tuple[float, float]:
    """Scores from Beta with mean threshold -/+ 0.05; the rates of false PASS and false FAIL."""
    import numpy as np

    rng = np.random.default_rng(seed)
    threshold, concentration = 0.7, 8.0
    rates = []
    for truth, wrong in [(threshold - 0.05, Verdict.PASS), (threshold + 0.05, Verdict.FAIL)]:
        data = rng.beta(truth * concentration, (1 - truth) * concentration, (replicates, runs))
        verdicts = [
            case_verdict(list(row), threshold, seed=seed + i, hint=False) for i, row in enumerate(data)
        ]
        wrongs = sum(v.verdict is wrong for v in verdicts)
        rates.append(wrongs / replicates)
    return rates[0], rates[1]


def test_bounded_verdict_error_rates_quick():
    false_pass, false_fail = _bounded_verdict_errors(5, 300, seed=3)
    assert false_pass <= 0.025 + _tolerance(0.025, 300)
    assert false_fail <= 0.025 + _tolerance(0.025, 300)


@pytest.mark.slow
@pytest.mark.parametrize("runs", [5, 20])
def test_bounded_verdict_error_rates_10000(runs):
    replicates = 10_000 if runs == 5 else 2_000  # BCa from 20 runs: 2,000 keeps CI's time sane
    false_pass, false_fail = _bounded_verdict_errors(runs, replicates, seed=runs)
    assert false_pass <= 0.025 + _tolerance(0.025, replicates)
    assert false_fail <= 0.025 + _tolerance(0.025, replicates)


def _cluster_coverage(cases: int, replicates: int, seed: int) -> tuple[float, float]:
    """θ_c ~ Beta with mean 0.8 and ICC 0.29; 3 runs × 4 turns of Bernoulli(θ_c) per case.
    Returns the coverage of a naive Wilson interval over every observation and of
    ``bounded_interval`` over case means."""
    import numpy as np
    from statsmodels.stats.proportion import proportion_confint

    rng = np.random.default_rng(seed)
    total = 1 / 0.29 - 1
    a, b = 0.8 * total, 0.2 * total
    naive = per_case = 0
    for i in range(replicates):
        theta = rng.beta(a, b, cases)
        obs = (rng.random((cases, 12)) < theta[:, None]).astype(float)
        low, high = proportion_confint(int(obs.sum()), obs.size, method="wilson")
        naive += low <= 0.8 <= high
        per_case += bounded_interval(list(obs.mean(axis=1)), seed=seed + i, resamples=999).contains(0.8)
    return naive / replicates, per_case / replicates


def test_clustering_guard_quick():
    naive, per_case = _cluster_coverage(50, 200, seed=11)
    assert naive < 0.85 and per_case >= 0.95 - _tolerance(0.95, 200)


@pytest.mark.slow
def test_clustering_guard_2000():
    naive, per_case = _cluster_coverage(50, 2000, seed=12)
    assert naive < 0.85 and per_case >= 0.93


def _compare_type_one(binary: bool, replicates: int, seed: int) -> float:
    """A and B exchangeable within each case: how often compare says REGRESSED or IMPROVED."""
    import numpy as np

    rng = np.random.default_rng(seed)
    rejected = 0
    for i in range(replicates):
        base = rng.beta(4, 1, 30)
        if binary:
            a, b = (rng.random(30) < base).astype(float), (rng.random(30) < base).astype(float)
        else:
            a, b = np.clip(base + rng.normal(0, 0.1, 30), 0, 1), np.clip(base + rng.normal(0, 0.1, 30), 0, 1)
        result = _one_criterion(list(a), list(b), seed=seed + i, resamples=999)
        rejected += result.p_holm < 0.05
    return rejected / replicates


@pytest.mark.parametrize("binary", [True, False])
def test_compare_type_one_error_quick(binary):
    assert _compare_type_one(binary, 150, seed=5) <= 0.05 + _tolerance(0.05, 150)


@pytest.mark.slow
@pytest.mark.parametrize("binary", [True, False])
def test_compare_type_one_error_2000(binary):
    assert _compare_type_one(binary, 2000, seed=6) <= 0.05 + _tolerance(0.05, 2000)
