"""A judge against human labels (``agenteval._stats.judge_calibration``): κ equal to
statsmodels', its interval's coverage by seeded simulation, CP intervals for accuracy,
sensitivity and specificity, Kendall's τ-b equal to scipy's, and hypothesis properties."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from agenteval._stats import clopper_pearson, judge_calibration
from hypothesis import given, settings
from hypothesis import strategies as st

_pairs = st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=40)


def _split(pairs):
    return [j for j, _ in pairs], [h for _, h in pairs]


@settings(max_examples=60, deadline=None)
@given(pairs=_pairs)
def test_kappa_equals_statsmodels_and_lies_in_its_interval(pairs):
    from statsmodels.stats.inter_rater import cohens_kappa

    judge, human = _split(pairs)
    found = judge_calibration(judge, human, seed=1)
    table = np.zeros((2, 2))
    for j, h in pairs:
        table[int(j), int(h)] += 1
    p_e = (table.sum(0) * table.sum(1)).sum() / len(pairs) ** 2
    if p_e == 1.0:
        assert found.kappa is None
    else:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # statsmodels' z test divides by 0 on tiny tables
            expected = cohens_kappa(table).kappa
        assert found.kappa == pytest.approx(expected, abs=1e-12)
        assert -1.0 <= found.kappa_interval.low <= found.kappa_interval.high <= 1.0
    assert found.n == len(pairs) and found.kappa_interval.seed == 1


@settings(max_examples=60, deadline=None)
@given(pairs=_pairs)
def test_accuracy_sensitivity_specificity_are_clopper_pearson_of_the_right_counts(pairs):
    judge, human = _split(pairs)
    found = judge_calibration(judge, human)
    agree = sum(j == h for j, h in pairs)
    assert found.accuracy == clopper_pearson(agree, len(pairs))
    human_pass = [j for j, h in pairs if h]
    human_fail = [j for j, h in pairs if not h]
    assert found.sensitivity == clopper_pearson(sum(human_pass), len(human_pass))
    assert found.specificity == clopper_pearson(len(human_fail) - sum(human_fail), len(human_fail))
    assert found.base_rate == sum(human) / len(pairs) and found.judge_rate == sum(judge) / len(pairs)


@settings(max_examples=40, deadline=None)
@given(pairs=_pairs)
def test_swapping_the_raters_keeps_kappa_and_accuracy(pairs):
    judge, human = _split(pairs)
    one, other = judge_calibration(judge, human), judge_calibration(human, judge)
    assert one.kappa == other.kappa and one.accuracy == other.accuracy
    assert one.sensitivity == clopper_pearson(  # what was sensitivity is now a rate over the judge's passes
        sum(1 for j, h in pairs if j and h), sum(human)
    )


def test_perfect_agreement_is_kappa_one_and_golden_values():
    judge = [True] * 8 + [False] * 2 + [True, False]
    human = [True] * 9 + [False] * 3
    found = judge_calibration(judge, human, seed=7)
    # 10 of 12 agree; p_e = 9/12 * 9/12 + 3/12 * 3/12 = 0.625; κ = (10/12 - 0.625) / 0.375 = 5/9
    assert found.kappa == pytest.approx(5 / 9)
    assert found.accuracy.estimate == pytest.approx(10 / 12)
    assert judge_calibration([True, False] * 5, [True, False] * 5).kappa == 1.0
    assert judge_calibration([True] * 4, [True] * 4).kappa is None


def test_the_interval_is_reproducible_from_its_seed():
    rng = np.random.default_rng(3)
    human = list(rng.random(30) < 0.6)
    judge = [h if r < 0.85 else not h for h, r in zip(human, rng.random(30), strict=True)]
    assert judge_calibration(judge, human, seed=5) == judge_calibration(judge, human, seed=5)


def test_the_rank_correlation_is_kendalls_tau_b_of_graded_scores_only():
    from scipy.stats import kendalltau

    scores = [0.9, 0.8, 0.3, 0.6, 0.1, 0.7]
    human = [True, True, False, True, False, False]
    found = judge_calibration([s >= 0.5 for s in scores], human, judge_scores=scores)
    assert found.rank_correlation == pytest.approx(kendalltau(scores, [float(h) for h in human]).statistic)
    people = [1.0, 0.9, 0.2, 0.5, 0.0, 0.4]
    graded = judge_calibration([s >= 0.5 for s in scores], human, judge_scores=scores, human_scores=people)
    assert graded.rank_correlation == pytest.approx(kendalltau(scores, people).statistic)
    binary = judge_calibration(human, human, judge_scores=[float(h) for h in human])
    assert binary.rank_correlation is None


@pytest.mark.slow  # about 45 s a setting: 400 replicates of a 2,000-resample bootstrap
@pytest.mark.parametrize(("n", "base_rate", "accuracy"), [(20, 0.5, 0.85), (50, 0.9, 0.9), (50, 0.5, 0.85)])
def test_the_kappa_interval_covers_the_true_kappa(n, base_rate, accuracy):
    """A judge that agrees with people with probability ``accuracy`` on items people pass
    at ``base_rate``: its 95% κ interval covers the population κ at least 93% of the time
    (400 seeded replicates, 4 SE below 0.95 is 0.928)."""
    rng = np.random.default_rng(n * 1000 + int(base_rate * 100))
    judge_rate = base_rate * accuracy + (1 - base_rate) * (1 - accuracy)
    p_e = base_rate * judge_rate + (1 - base_rate) * (1 - judge_rate)
    truth = (accuracy - p_e) / (1 - p_e)
    covered = tried = 0
    for replicate in range(400):
        human = rng.random(n) < base_rate
        judge = np.where(rng.random(n) < accuracy, human, ~human)
        found = judge_calibration(list(judge), list(human), seed=replicate)
        if found.kappa is None:
            continue
        tried += 1
        covered += found.kappa_interval.contains(truth)
    assert covered / tried >= 0.928, (covered, tried)
