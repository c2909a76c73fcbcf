"""Verdicts at small N (issue 25): identical runs are one observation, a threshold at the
top is pass^k with the pass rate's lower bound, an INCONCLUSIVE verdict says why in words,
and the error each basis promises holds in seeded simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from agenteval._stats import Basis, Verdict, case_verdict, clopper_pearson
from hypothesis import given, settings
from hypothesis import strategies as st

LEVEL = 0.95
TAIL = (1 - LEVEL) / 2


def _tolerance(rate: float, reps: int) -> float:
    return 4 * math.sqrt(rate * (1 - rate) / reps)


def test_identical_runs_of_a_deterministic_agent_are_decided_on_their_point_verdict():
    # the README's `--num-runs 5`: five runs of a deterministic agent, ROUGE 0.91 at 0.6
    found = case_verdict([0.9054] * 5, 0.6, identical=True)
    assert found.verdict is Verdict.PASS and found.basis is Basis.IDENTICAL_RUNS
    assert found.hint is None and found.units_to_settle is None
    assert found.reason == (
        "all 5 runs gave the same output and score 0.91, which meets the threshold 0.60: one observation "
        "repeated, so the point verdict stands; at least 47.8% of runs would give it (95% lower bound)"
    )
    assert found.interval.low == pytest.approx(TAIL ** (1 / 5)) and found.failure_rate_bound < 0.53
    missed = case_verdict([0.4] * 3, 0.6, identical=True)
    assert (
        missed.verdict is Verdict.FAIL and missed.basis is Basis.IDENTICAL_RUNS and "misses" in missed.reason
    )


def test_identical_scores_of_runs_that_differ_keep_the_interval():
    found = case_verdict([0.9054] * 5, 0.6)  # the outputs differed: a stochastic agent
    assert found.verdict is Verdict.INCONCLUSIVE and found.basis is Basis.RUNS
    assert "so 5 runs cannot yet tell whether the mean is above or below it" in found.reason
    assert found.units_to_settle == 17  # the betting interval's, for this very rule


def test_identical_runs_an_interval_settles_keep_the_interval_s_stronger_claim():
    found = case_verdict([0.9] * 30, 0.6, identical=True)
    assert found.verdict is Verdict.PASS and found.basis is Basis.RUNS


def test_identical_runs_with_a_missing_one_stay_open():
    found = case_verdict([1.0, 1.0, None], 0.6, identical=True)
    assert found.verdict is Verdict.INCONCLUSIVE and "missing" in found.hint


def test_a_threshold_at_the_top_is_pass_k_with_the_pass_rate_s_lower_bound():
    found = case_verdict([1.0] * 5, 1.0)
    assert found.verdict is Verdict.PASS and found.basis is Basis.ZERO_FAILURE
    assert (
        "(pass^5)" in found.reason and "at least 47.8% of runs would pass (95% lower bound)" in found.reason
    )
    assert found.hint is None  # nothing left to settle
    assert case_verdict([1.0, 1.0, 0.9], 1.0).verdict is Verdict.FAIL


@settings(deadline=None, max_examples=60)
@given(
    st.floats(0.0, 1.0, allow_nan=False),
    st.integers(2, 12),
    st.floats(0.05, 0.95, allow_nan=False),
)
def test_identical_runs_never_contradict_their_point_verdict(value, n, threshold):
    found = case_verdict([value] * n, threshold, identical=True, hint=False)
    assert found.verdict is (Verdict.PASS if value >= threshold else Verdict.FAIL)


# -- the promises, by seeded simulation --------------------------------------------------


@pytest.mark.parametrize("n", [5, 10])
@pytest.mark.parametrize("threshold", [0.6, 0.8])
def test_interval_verdicts_err_at_most_half_the_error_for_agents_whose_runs_differ(n, threshold):
    # 0/1 runs, exact: the probability of a wrong PASS at truth threshold - 0.05 and of a
    # wrong FAIL at the threshold, summed over every outcome
    def chance(p: float, verdict: Verdict) -> float:
        total = 0.0
        for k in range(n + 1):
            runs = [1.0] * k + [0.0] * (n - k)
            if case_verdict(runs, threshold, hint=False).verdict is verdict:
                total += math.comb(n, k) * p**k * (1 - p) ** (n - k)
        return total

    assert chance(threshold - 0.05, Verdict.PASS) <= TAIL
    assert chance(threshold, Verdict.FAIL) <= TAIL


def test_bounded_scores_interval_verdicts_err_at_most_half_the_error():
    # runs of a stochastic agent, Beta-distributed scores around the threshold, n = 5
    rng = np.random.default_rng(2025)
    reps, n, threshold = 400, 5, 0.6
    for mean, wrong in ((threshold - 0.05, Verdict.PASS), (threshold, Verdict.FAIL)):
        a = 4.0
        b = a * (1 - mean) / mean
        errors = sum(
            case_verdict(list(rng.beta(a, b, size=n)), threshold, hint=False).verdict is wrong
            for _ in range(reps)
        )
        assert errors / reps <= TAIL + _tolerance(TAIL, reps)


@pytest.mark.parametrize("k", [3, 5, 10])
def test_the_identical_runs_bound_on_how_often_the_output_comes_is_wrong_at_most_half_the_error(k):
    # an agent that gives its modal output with probability q just below the bound the
    # verdict states, and a different output otherwise: the bound is wrong whenever the
    # verdict is given, which must happen at most (1 - level) / 2 of the time
    bound = clopper_pearson(k, k, LEVEL).low
    q = bound - 1e-6
    rng = np.random.default_rng(k)
    reps = 4000
    stated = 0
    for _ in range(reps):
        modal = rng.random(k) < q
        identical = bool(modal.all())
        scores = [0.9 if m else float(rng.uniform(0.0, 1.0)) for m in modal]
        found = case_verdict(scores, 0.6, identical=identical, hint=False)
        stated += found.basis is Basis.IDENTICAL_RUNS
    assert stated / reps <= TAIL + _tolerance(TAIL, reps)


@pytest.mark.parametrize("k", [5, 17])
def test_the_zero_failure_pass_rate_bound_is_wrong_at_most_half_the_error(k):
    # exact: every run perfect with probability p^k; at p just below the stated bound
    bound = clopper_pearson(k, k, LEVEL).low
    p = bound - 1e-9
    assert case_verdict([1.0] * k, 1.0).interval.low == pytest.approx(bound)
    assert p**k <= TAIL
