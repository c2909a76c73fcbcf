"""Tri-state verdicts per criterion × case and per eval set."""

from __future__ import annotations

import math

import pytest
from agenteval._stats import (
    Basis,
    Verdict,
    betting_interval,
    case_verdict,
    combine_verdicts,
    mean_of,
    variance_components,
)
from hypothesis import given, settings
from hypothesis import strategies as st

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
thresholds = st.floats(min_value=0.05, max_value=0.95, allow_nan=False)


def test_study_example_is_inconclusive_with_reason_and_hint():
    result = case_verdict([1.0, 0.667, 1.0, 1.0, 0.667], 0.8)
    assert result.verdict is Verdict.INCONCLUSIVE and result.basis is Basis.RUNS
    assert result.reason == (
        "95% interval [0.27, 1.00] contains the threshold 0.80, so 5 runs cannot yet tell whether "
        "the mean is above or below it"
    )
    assert result.interval.method == "betting" and result.n == 5
    assert result.units_to_settle is not None and result.units_to_settle > 5
    assert f"about {result.units_to_settle} runs" in result.hint
    quiet = case_verdict([1.0, 0.667, 1.0, 1.0, 0.667], 0.8, hint=False)
    assert quiet.verdict is Verdict.INCONCLUSIVE and quiet.hint is None and quiet.units_to_settle is None


def test_binary_runs_use_clopper_pearson_and_settle_as_the_study_says():
    assert case_verdict([1] * 16, 0.8).verdict is Verdict.INCONCLUSIVE
    passed = case_verdict([1] * 17, 0.8)  # 17 passing runs certify 0.8
    assert passed.verdict is Verdict.PASS and passed.interval.method == "clopper-pearson"
    assert case_verdict([0, 0, 0], 0.8).verdict is Verdict.FAIL  # three failures settle it
    assert case_verdict([0, 0], 0.8).verdict is Verdict.INCONCLUSIVE
    hinted = case_verdict([1] * 5, 0.8)
    assert hinted.units_to_settle == 17


def test_single_run_keeps_the_point_verdict():
    for score, expected in [(0.9, Verdict.PASS), (0.8, Verdict.PASS), (0.7, Verdict.FAIL)]:
        result = case_verdict([score], 0.8)
        assert result.verdict is expected and result.basis is Basis.SINGLE_RUN and result.interval is None


def test_threshold_at_the_maximum_follows_the_zero_failure_rule():
    failed = case_verdict([1, 1, 0.9, 1], 1.0)
    assert failed.verdict is Verdict.FAIL and failed.basis is Basis.ZERO_FAILURE
    assert "run 3" in failed.reason
    passed = case_verdict([1.0] * 17, 1.0)
    assert passed.verdict is Verdict.PASS and passed.basis is Basis.ZERO_FAILURE
    assert passed.failure_rate_bound == pytest.approx(1 - 0.025 ** (1 / 17))
    assert round(passed.failure_rate_bound, 3) == 0.195
    assert case_verdict([1.0, None, 1.0], 1.0).verdict is Verdict.INCONCLUSIVE
    # mirrored: lower is better with the threshold at 0
    assert case_verdict([0, 0, 0.1], 0.0, higher_is_better=False).verdict is Verdict.FAIL
    assert case_verdict([0, 0, 0], 0.0, higher_is_better=False).verdict is Verdict.PASS


def test_threshold_at_the_worst_value_always_passes():
    assert case_verdict([0.0, 0.1], 0.0).verdict is Verdict.PASS


def test_lower_is_better_mirrors_the_rule():
    assert case_verdict([0, 0, 0, 0, 0, 0, 0, 0], 0.4, higher_is_better=False).verdict is Verdict.PASS
    assert case_verdict([1, 1, 1, 1, 1, 1, 1], 0.4, higher_is_better=False).verdict is Verdict.FAIL
    result = case_verdict([0.2, 0.3], 0.4, higher_is_better=False)
    assert result.verdict is Verdict.INCONCLUSIVE


def test_missing_runs():
    assert case_verdict([None, None], 0.5).verdict is Verdict.NOT_EVALUATED
    bounded = case_verdict([1, 1, 1, 1, 1, 1, 1, None], 0.5)
    excluded = case_verdict([1, 1, 1, 1, 1, 1, 1, None], 0.5, missing="exclude")
    assert bounded.interval.low < excluded.interval.low
    assert bounded.n_missing == 1 and excluded.n_missing == 0
    with pytest.raises(ValueError):
        case_verdict([1, 1], 0.5, missing="ignore")


@settings(max_examples=80, deadline=None)
@given(scores=st.lists(unit, min_size=2, max_size=12), threshold=thresholds)
def test_the_verdict_never_contradicts_the_point_estimate(scores, threshold):
    result = case_verdict(scores, threshold)
    mean = math.fsum(scores) / len(scores)
    if result.verdict is Verdict.PASS:
        assert mean >= threshold
    if result.verdict is Verdict.FAIL:
        assert mean < threshold


@settings(max_examples=40, deadline=None)
@given(scores=st.lists(unit, min_size=2, max_size=10))
def test_any_imperfect_run_fails_at_threshold_one(scores):
    result = case_verdict(scores, 1.0)
    assert (result.verdict is Verdict.FAIL) == any(s < 1.0 for s in scores)


def test_combine_verdicts():
    assert combine_verdicts([Verdict.PASS, Verdict.INCONCLUSIVE]) is Verdict.INCONCLUSIVE
    assert combine_verdicts([Verdict.INCONCLUSIVE, Verdict.FAIL]) is Verdict.FAIL
    assert combine_verdicts([Verdict.PASS, Verdict.NOT_EVALUATED]) is Verdict.FAIL
    assert combine_verdicts([]) is Verdict.PASS


def test_variance_components():
    parts = variance_components([[1, 1, 1], [0, 0, 0], [1, 1, 1], [0, 0, 0]])
    assert parts.within_case_sd == 0 and parts.icc == 1.0 and parts.design_effect == 3.0
    noisy = variance_components([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]])
    assert noisy.icc == 0.0 and noisy.flaky_cases == 3 and noisy.design_effect == 1.0
    single = variance_components([[0.5, 0.7]])
    assert single.between_case_sd is None and single.within_case_sd == pytest.approx(math.sqrt(0.02))


@given(
    st.lists(
        st.lists(st.floats(min_value=-1e308, max_value=1e308, allow_nan=False), min_size=1, max_size=4),
        max_size=6,
    )
)
def test_variance_components_of_scores_past_the_float_range_when_squared_never_raise(cases):
    """An unbounded criterion (a token count) can score 1e300: its squares pass the float
    range, where ``** 2`` raised ``OverflowError`` and ended the run."""
    parts = variance_components(cases)
    assert parts.flaky_cases == sum(1 for runs in cases if len(set(runs)) > 1)
    assert variance_components([[1e300], [-1e300], [3.0]]).between_case_sd == math.inf
    assert variance_components([[1e308, 1e308], [1.0]]).within_case_sd == 0.0  # a sum past the range


@given(st.lists(st.floats(min_value=-1e308, max_value=1e308, allow_nan=False), min_size=1, max_size=5))
def test_mean_of_is_fsum_over_len_and_stays_in_range_where_the_sum_would_not(values):
    try:
        expected = math.fsum(values) / len(values)
    except OverflowError:
        assert min(values) <= mean_of(values) <= max(values)
    else:
        assert mean_of(values) == expected  # bit for bit: no figure of an ordinary run changes
    assert mean_of([1.7e308, 1.7e308]) == 1.7e308


def test_cases_sharing_their_run_scores_compute_the_interval_and_hint_once():
    # A reader of a run of several runs per case meets the same few score lists thousands of
    # times (each case with its own seed): the betting interval and the hint's search are
    # computed once per distinct input, and give what a fresh computation gives.
    from agenteval._stats import _intervals, _verdict

    _intervals._betting.cache_clear()
    _verdict._settle.cache_clear()
    scores = [0.9, 0.7, 0.8]
    found = [case_verdict(scores, 0.8, seed=0)]
    computed = (_intervals._betting.cache_info().misses, _verdict._settle.cache_info().misses)
    assert computed[1] == 1  # INCONCLUSIVE: the hint searched
    found += [case_verdict(scores, 0.8, seed=seed) for seed in range(1, 50)]
    assert len({(f.verdict, f.interval, f.reason, f.hint) for f in found}) == 1
    assert (_intervals._betting.cache_info().misses, _verdict._settle.cache_info().misses) == computed
    fresh = _intervals._betting.__wrapped__(tuple(scores), 0.0, 1.0, 0.95, _intervals._GRID)
    assert found[0].interval == fresh
    assert _verdict._settle.__wrapped__(tuple(scores), 0.8, 0.0, 1.0, 0.95) == found[0].units_to_settle


@given(st.lists(st.floats(min_value=0.0, max_value=1.0, allow_nan=False), min_size=1, max_size=8))
@settings(max_examples=30, deadline=None)
def test_a_remembered_betting_interval_is_the_one_computed_afresh(values):
    from agenteval._stats import _intervals

    assert betting_interval(values) == _intervals._betting.__wrapped__(
        tuple(float(v) for v in values), 0.0, 1.0, 0.95, _intervals._GRID
    )


def test_long_score_lists_are_not_remembered():
    # an eval set's case scores: one list per set, kept out of the cache (memory)
    from agenteval._stats import _intervals

    _intervals._betting.cache_clear()
    values = [0.5 + (i % 7) / 20 for i in range(_intervals.REMEMBERED_VALUES + 1)]
    assert betting_interval(values) == _intervals._betting.__wrapped__(
        tuple(values), 0.0, 1.0, 0.95, _intervals._GRID
    )
    assert _intervals._betting.cache_info().currsize == 0
