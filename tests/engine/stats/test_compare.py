"""Paired run-vs-run comparison: sign-flip = McNemar, antisymmetry, Holm, per-case BH flags."""

from __future__ import annotations

import pytest
from agenteval._stats import (
    ChangeStatus,
    compare_case_runs,
    compare_runs,
    flag_min_runs,
    minimum_detectable_effect,
    sign_flip_test,
    smallest_case_p,
    two_sample_test,
)
from hypothesis import given, settings
from hypothesis import strategies as st

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
binary = st.sampled_from([0.0, 1.0])


def _one_criterion(a, b, *, higher_is_better=True, seed=0, **options):
    """``compare_runs`` over one criterion (Holm across one criterion changes nothing)."""
    comparison = compare_runs(
        {"c": (a, b)}, higher_is_better={"c": higher_is_better}, seeds={"c": seed}, **options
    )
    return comparison.criteria[0]


def _pairs(strategy, min_size=1, max_size=16):
    return st.lists(st.tuples(strategy, strategy), min_size=min_size, max_size=max_size).map(
        lambda rows: ([a for a, _ in rows], [b for _, b in rows])
    )


def test_mcnemar_golden_value():
    a = [0.0] * 3 + [1.0] * 11 + [1.0] * 30
    b = [1.0] * 3 + [0.0] * 11 + [1.0] * 30
    result = _one_criterion(a, b)
    assert round(result.p_value, 6) == 0.057373
    assert result.discordant == (3, 11) and result.status is ChangeStatus.NO_DETECTABLE_CHANGE
    assert result.p_worse == pytest.approx(470 / 16384)
    assert result.test_method == "exact" and result.n_pairs == 44


@settings(max_examples=60, deadline=None)
@given(pairs=_pairs(binary, max_size=30))
def test_sign_flip_equals_exact_mcnemar_on_binary_scores(pairs):
    from scipy.stats import binomtest
    from statsmodels.stats.contingency_tables import mcnemar

    a, b = pairs
    result = _one_criterion(a, b)
    improved = sum(1 for x, y in zip(a, b, strict=True) if y > x)
    regressed = sum(1 for x, y in zip(a, b, strict=True) if y < x)
    if improved + regressed == 0:
        assert result.p_value == 1.0
        return
    assert result.p_value == pytest.approx(binomtest(improved, improved + regressed).pvalue, abs=1e-12)
    table = [[0, regressed], [improved, 0]]
    assert result.p_value == pytest.approx(mcnemar(table, exact=True).pvalue, abs=1e-12)
    one_sided = binomtest(improved, improved + regressed, alternative="less").pvalue
    assert result.p_worse == pytest.approx(one_sided, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(pairs=_pairs(unit))
def test_comparing_a_run_with_itself_changes_nothing(pairs):
    a, _ = pairs
    result = _one_criterion(a, a)
    assert result.delta == 0 and result.p_value == 1.0
    assert result.status is ChangeStatus.NO_DETECTABLE_CHANGE
    assert result.interval.contains(0.0)
    assert compare_runs({"x": (a, a)}).exit_code == 0


@settings(max_examples=40, deadline=None)
@given(pairs=_pairs(unit))
def test_swapping_a_and_b_negates_delta_and_mirrors_everything(pairs):
    a, b = pairs
    forward, backward = _one_criterion(a, b), _one_criterion(b, a)
    assert forward.delta == pytest.approx(-backward.delta, abs=1e-12)
    assert forward.p_worse == pytest.approx(backward.p_better) and forward.p_value == pytest.approx(
        backward.p_value
    )
    mirrored = {
        ChangeStatus.REGRESSED: ChangeStatus.IMPROVED,
        ChangeStatus.IMPROVED: ChangeStatus.REGRESSED,
        ChangeStatus.NO_DETECTABLE_CHANGE: ChangeStatus.NO_DETECTABLE_CHANGE,
    }
    assert backward.status is mirrored[forward.status]
    if forward.interval.method in ("betting", "clopper-pearson"):  # BCa resamples differ
        assert forward.interval.low == pytest.approx(-backward.interval.high, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(pairs=_pairs(binary, max_size=20), extra=st.integers(0, 20), value=binary)
def test_unchanged_cases_never_change_the_exact_p(pairs, extra, value):
    a, b = pairs
    base = _one_criterion(a, b)
    padded = _one_criterion(a + [value] * extra, b + [value] * extra)
    assert padded.p_value == base.p_value


def test_clear_regression_and_direction():
    a, b = [1.0] * 30, [1.0] * 10 + [0.0] * 20
    result = _one_criterion(a, b)
    assert result.status is ChangeStatus.REGRESSED and result.delta == pytest.approx(-2 / 3)
    assert result.interval.high < 0
    flipped = _one_criterion(a, b, higher_is_better=False)  # lower is better: B improved
    assert flipped.status is ChangeStatus.IMPROVED
    assert compare_runs({"x": (a, b)}).exit_code == 1


def test_margin_and_non_inferiority():
    a = [0.80, 0.82, 0.79, 0.81, 0.80] * 6
    b = [v - 0.01 + 0.004 * ((i % 5) - 2) for i, v in enumerate(a)]  # B about 0.01 worse
    strict = _one_criterion(a, b)
    assert strict.status is ChangeStatus.REGRESSED
    tolerant = _one_criterion(a, b, margin=0.05)
    assert tolerant.status is ChangeStatus.NO_DETECTABLE_CHANGE
    shown = compare_runs({"x": (a, b)}, margin=0.05, non_inferiority_margin=0.05)
    assert shown.criteria[0].non_inferior is True and shown.exit_code == 0
    not_shown = compare_runs({"x": (a, b)}, margin=0.05, non_inferiority_margin=0.001)
    assert not_shown.criteria[0].non_inferior is False and not_shown.exit_code == 3


def test_holm_across_criteria_decides_the_status():
    strong = ([1.0] * 12, [0.0] * 12)
    weak = ([1.0] * 6 + [0.0] * 6, [0.0] * 6 + [0.0] * 6)  # p = 2/64 = 0.031 two-sided
    alone = compare_runs({"weak": weak})
    assert alone.criteria[0].status is ChangeStatus.REGRESSED
    together = compare_runs({"strong": strong, "weak": weak, "same": ([1.0] * 12, [1.0] * 12)})
    by_name = {c.criterion: c for c in together.criteria}
    assert by_name["weak"].p_holm >= by_name["weak"].p_value
    assert by_name["weak"].status is ChangeStatus.NO_DETECTABLE_CHANGE  # 0.031 * 2 > 0.05
    assert by_name["strong"].status is ChangeStatus.REGRESSED
    assert [c.criterion for c in together.criteria] == ["strong", "weak", "same"]


def test_monte_carlo_path_is_seeded():
    import random

    rng = random.Random(7)
    d = [rng.uniform(-0.5, 0.4) for _ in range(40)]
    first = sign_flip_test(d, seed=11, resamples=2000)
    assert first.method == "monte-carlo" and first == sign_flip_test(d, seed=11, resamples=2000)
    exact = sign_flip_test(d[:12])
    assert exact.method == "exact" and exact.seed is None


def test_input_errors():
    with pytest.raises(ValueError):
        _one_criterion([1.0], [1.0, 0.0])
    with pytest.raises(ValueError):
        _one_criterion([1.5], [1.0])
    with pytest.raises(ValueError):
        compare_runs({"x": ([1.0], [1.0])}, margin=-0.1)
    with pytest.raises(ValueError):
        sign_flip_test([1.0], "two-sided")


def test_minimum_detectable_effect_golden_values():
    assert round(minimum_detectable_effect(0.2, 30), 3) == 0.102
    assert round(minimum_detectable_effect(0.4, 100), 3) == 0.112
    assert round(minimum_detectable_effect(0.2, 300), 3) == 0.032
    assert minimum_detectable_effect(0.2, 1) is None


def test_two_sample_test_matches_scipy():
    import numpy as np
    from scipy.stats import permutation_test

    a, b = [0.9, 1.0, 0.8, 1.0], [0.4, 0.6, 0.5]
    ours = two_sample_test(a, b)

    def stat(x, y, axis):
        return np.abs(np.mean(y, axis=axis) - np.mean(x, axis=axis))

    theirs = permutation_test(
        (a, b), stat, permutation_type="independent", n_resamples=np.inf, alternative="greater"
    )
    assert ours.method == "exact" and ours.p_value == pytest.approx(theirs.pvalue)


def test_case_flags_use_benjamini_hochberg():
    runs_a = [[1, 1, 1, 1, 1]] * 4 + [[1, 0, 1, 0, 1]]
    runs_b = [[0, 0, 0, 0, 0]] * 4 + [[1, 0, 1, 0, 1]]
    changes = compare_case_runs(runs_a, runs_b)
    assert [c.flagged for c in changes] == [True] * 4 + [False]
    assert all(c.q_value >= c.p_value for c in changes)
    single = compare_case_runs([[1]], [[0, 0]])
    assert single[0].p_value is None and not single[0].flagged and single[0].delta == -1
    with pytest.raises(ValueError):
        compare_case_runs([[]], [[1]])


def test_each_criterion_may_have_its_own_range():
    counts = ([3.0, 4.0, 5.0, 2.0], [3.0, 4.0, 5.0, 2.0])
    rates = ([1.0, 1.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0])
    result = compare_runs({"calls": counts, "rate": rates}, bounds={"calls": (0.0, 10.0)})
    calls, rate = result.criteria
    assert calls.interval.low >= -10.0 and calls.delta == 0 and rate.discordant == (0, 1)
    with pytest.raises(ValueError, match="outside"):
        compare_runs({"calls": counts})  # outside the default [0, 1]


def test_the_smallest_attainable_case_p_and_the_runs_a_flag_needs():
    # two-sided permutation test of one case's runs: the most extreme relabelling and its mirror
    assert smallest_case_p(2, 2) == pytest.approx(1 / 3)
    assert smallest_case_p(3, 3) == pytest.approx(0.1)
    assert smallest_case_p(4, 4) == pytest.approx(2 / 70)
    assert smallest_case_p(3, 4) == pytest.approx(1 / 35)
    assert flag_min_runs(0.10) == 4 and flag_min_runs(0.5) == 2
    for n in (2, 3, 4):  # the bound is attained: complete separation
        found = two_sample_test([1.0] * n, [0.0] * n)
        assert found.p_value == pytest.approx(smallest_case_p(n, n))


def test_cases_whose_runs_cannot_reach_a_flag_are_not_tested_nor_counted():
    # 3 runs a side cannot give p < 0.10, so such a case never enters the correction
    changes = compare_case_runs([[1, 1, 1], [1, 1, 1, 1]], [[0, 0, 0], [0, 0, 0, 0]])
    assert changes[0].p_value is None and changes[0].q_value is None and not changes[0].flagged
    assert changes[1].flagged and changes[1].q_value == pytest.approx(changes[1].p_value)
