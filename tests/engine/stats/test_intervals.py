"""Intervals: golden values, the method rule, and the properties of §5.9 of the study."""

from __future__ import annotations

import math

import pytest
from agenteval._stats import (
    bca_interval,
    betting_interval,
    bounded_interval,
    clopper_pearson,
    derive_seed,
    manski_interval,
)
from hypothesis import given, settings
from hypothesis import strategies as st

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
small_samples = st.lists(unit, min_size=1, max_size=12)
levels = st.sampled_from([0.8, 0.9, 0.95, 0.99])
GRID = 201  # the study allows a 201-point grid in tests


def test_clopper_pearson_golden_values():
    cp = clopper_pearson(17, 20)
    assert (round(cp.low, 5), round(cp.high, 5)) == (0.62107, 0.96793)
    assert cp.method == "clopper-pearson" and cp.level == 0.95 and cp.n == 20
    assert (round(clopper_pearson(32, 40).low, 3), round(clopper_pearson(32, 40).high, 3)) == (0.644, 0.909)
    assert (round(clopper_pearson(45, 50).low, 3), round(clopper_pearson(45, 50).high, 3)) == (0.782, 0.967)


def test_clopper_pearson_edges():
    assert clopper_pearson(0, 5).low == 0.0 and clopper_pearson(5, 5).high == 1.0
    assert clopper_pearson(5, 5).low == pytest.approx(0.025 ** (1 / 5))
    empty = clopper_pearson(0, 0)
    assert (empty.low, empty.high, empty.method, empty.estimate) == (0.0, 1.0, "no-data", None)
    with pytest.raises(ValueError):
        clopper_pearson(6, 5)
    with pytest.raises(ValueError):
        clopper_pearson(1, 5, level=1.0)


@settings(deadline=None)
@given(n=st.integers(1, 60), data=st.data(), level=levels)
def test_clopper_pearson_matches_statsmodels_and_reflects(n, data, level):
    from statsmodels.stats.proportion import proportion_confint

    k = data.draw(st.integers(0, n))
    cp = clopper_pearson(k, n, level)
    low, high = proportion_confint(k, n, alpha=1 - level, method="beta")
    assert cp.low == pytest.approx(low, abs=1e-10) and cp.high == pytest.approx(high, abs=1e-10)
    mirrored = clopper_pearson(n - k, n, level)
    assert cp.low == pytest.approx(1 - mirrored.high, abs=1e-12)
    assert cp.low <= k / n <= cp.high
    if k < n:  # one more success never lowers either bound
        more = clopper_pearson(k + 1, n, level)
        assert more.low >= cp.low and more.high >= cp.high


def test_betting_golden_value():
    interval = betting_interval([1, 0.667, 1, 1, 0.667])
    assert (round(interval.low, 2), round(interval.high, 2)) == (0.27, 1.0)
    assert interval.method == "betting" and interval.n == 5 and interval.seed is None


@settings(max_examples=60, deadline=None)
@given(values=small_samples, level=levels)
def test_betting_contains_the_mean_and_stays_in_range(values, level):
    interval = betting_interval(values, level=level, grid=GRID)
    mean = math.fsum(values) / len(values)
    assert 0.0 <= interval.low <= mean <= interval.high <= 1.0
    assert interval.width > 0  # agreeing runs never give a zero-width interval


@settings(max_examples=40, deadline=None)
@given(values=small_samples)
def test_betting_reflection_and_nesting(values):
    interval = betting_interval(values, grid=GRID)
    mirrored = betting_interval([1 - v for v in values], grid=GRID)
    assert interval.low == pytest.approx(1 - mirrored.high, abs=1e-9)
    assert interval.high == pytest.approx(1 - mirrored.low, abs=1e-9)
    wider = betting_interval(values, level=0.99, grid=GRID)
    assert wider.low <= interval.low and wider.high >= interval.high


@settings(max_examples=40, deadline=None)
@given(values=small_samples)
def test_betting_is_scale_equivariant(values):
    scaled = betting_interval([10 + 5 * v for v in values], lo=10, hi=15, grid=GRID)
    plain = betting_interval(values, grid=GRID)
    assert scaled.low == pytest.approx(10 + 5 * plain.low)
    assert scaled.high == pytest.approx(10 + 5 * plain.high)


@settings(max_examples=30, deadline=None)
@given(values=st.lists(unit, min_size=1, max_size=8))
def test_duplicating_the_data_never_widens_much(values):
    once = betting_interval(values, grid=GRID)
    twice = betting_interval(values * 2, grid=GRID)
    assert twice.width <= once.width + 2.0 / (GRID - 1)


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.one_of(unit, st.sampled_from([0.0, 0.5, 1.0])), min_size=1, max_size=25),
    data=st.data(),
    level=levels,
    scale=st.sampled_from([(0.0, 1.0), (1.0, 5.0), (-1.0, 1.0)]),
)
def test_betting_excludes_answers_as_the_whole_interval_does(values, data, level, scale):
    from agenteval._stats._intervals import betting_excludes

    lo, hi = scale
    xs = [lo + v * (hi - lo) for v in values]
    threshold = data.draw(st.one_of(st.floats(lo, hi), st.sampled_from(xs)))
    interval = betting_interval(xs, lo, hi, level)
    assert betting_excludes(xs, threshold, lo, hi, level) == (
        interval.low > threshold or interval.high < threshold
    )


def test_bounded_interval_picks_the_method():
    assert bounded_interval([1, 0, 1, 1]).method == "clopper-pearson"
    assert bounded_interval([0.5, 0.7, 0.9]).method == "betting"
    assert bounded_interval([0.6] * 40).method == "betting"  # all equal at any n
    big = bounded_interval([0.5, 0.6, 0.7, 0.8, 0.9] * 5, seed=3)
    assert big.method == "bca" and big.seed == 3 and big.resamples == 9999
    empty = bounded_interval([])
    assert (empty.low, empty.high, empty.method) == (0.0, 1.0, "no-data")
    # a binary scale other than [0, 1]
    scaled = bounded_interval([2, 4, 4, 4], lo=2, hi=4)
    cp = clopper_pearson(3, 4)
    assert scaled.low == pytest.approx(2 + 2 * cp.low) and scaled.method == "clopper-pearson"


def test_bounded_interval_rejects_out_of_range_values():
    with pytest.raises(ValueError, match="outside"):
        bounded_interval([0.5, 1.2])
    with pytest.raises(ValueError, match="hi > lo"):
        bounded_interval([0.5], lo=1, hi=1)


def test_bca_is_reproducible_by_seed_and_refuses_constant_data():
    values = [0.2, 0.5, 0.9, 0.4, 0.7] * 6
    seed = derive_seed("run-1", "case-7", "response_match_score")
    first, again = bca_interval(values, seed=seed), bca_interval(values, seed=seed)
    assert first == again and first.seed == seed
    assert first.low <= sum(values) / len(values) <= first.high
    with pytest.raises(ValueError):
        bca_interval([0.5] * 30)


@pytest.mark.parametrize("n", [20, 57, 300])
def test_bca_equals_scipys_bootstrap_with_the_same_seed(n):
    """The numpy-only BCa draws what scipy.stats.bootstrap draws and gives its bounds (the
    oracle; the engine never imports scipy for it)."""
    import numpy as np
    from scipy import stats

    data = np.random.default_rng(n).beta(2, 1, n)
    ours = bca_interval(list(data), seed=11)
    theirs = stats.bootstrap(
        (data,), np.mean, method="BCa", n_resamples=ours.resamples, rng=np.random.default_rng(11)
    ).confidence_interval
    assert ours.low == pytest.approx(theirs.low, abs=1e-9)
    assert ours.high == pytest.approx(theirs.high, abs=1e-9)


def test_clopper_pearson_is_computed_once_per_distinct_input():
    # an eval set's pass rate and the interval of its pass/fail scores ask for the same one
    first = clopper_pearson(7, 20, 0.95)
    assert clopper_pearson(7, 20, 0.95) is first
    assert clopper_pearson(8, 20, 0.95) != first


def test_bca_of_a_spread_too_small_to_cube_has_no_acceleration_instead_of_dividing_by_zero():
    # the jackknife spread's squares sum above 0 but their 1.5th power underflows to 0.0
    values = [0.0, 1.4486409055722687e-118]
    interval = bca_interval(values, seed=0, resamples=2999)
    assert interval.method == "bca"
    assert 0.0 <= interval.low <= interval.estimate <= interval.high <= 1.0


def test_bca_of_many_values_draws_fewer_resamples_and_says_so():
    values = [(i % 97) / 96 for i in range(50_000)]
    interval = bca_interval(values, seed=3)
    assert interval.resamples == 1999 and interval.low < interval.estimate < interval.high


def test_derive_seed_is_stable_and_distinct():
    assert derive_seed("r", "c", "k") == derive_seed("r", "c", "k")
    assert derive_seed("r", "c", "k") != derive_seed("r", "c", "k2")
    assert derive_seed("ab", "c") != derive_seed("a", "bc")  # parts are separated
    assert 0 <= derive_seed("x") < 2**63


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.one_of(st.none(), unit), min_size=2, max_size=10))
def test_manski_contains_the_exclude_missing_interval(values):
    scored = [v for v in values if v is not None]
    widened = manski_interval(values)
    plain = bounded_interval(scored)
    assert widened.low <= plain.low and widened.high >= plain.high
    assert widened.n_missing == len(values) - len(scored)
    if widened.n_missing:
        assert widened.missing == "bound"


def test_manski_example():
    widened = manski_interval([1, 1, None, 1])
    assert widened.estimate == 1.0 and widened.n == 3 and widened.n_missing == 1
    assert widened.low == pytest.approx(clopper_pearson(3, 4).low) and widened.high == 1.0
    nothing = manski_interval([None, None])
    assert (nothing.low, nothing.high, nothing.estimate) == (0.0, 1.0, None)


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.sampled_from([0.0, 1.0]), min_size=1, max_size=30), data=st.data())
def test_binary_intervals_ignore_the_order_and_nest_by_level(values, data):
    shuffled = data.draw(st.permutations(values))
    assert bounded_interval(values) == bounded_interval(shuffled)
    narrow, wide = bounded_interval(values, level=0.9), bounded_interval(values, level=0.99)
    assert wide.low <= narrow.low and wide.high >= narrow.high


def test_betting_bets_follow_the_order_of_the_units():
    """The bets are predictable, so they depend on the order in which units arrived; callers
    pass runs in run order (documented in docs/statistics.md). Both orders stay valid."""
    values = [1.0, 0.2, 0.9, 0.95, 0.3]
    forward, backward = betting_interval(values), betting_interval(values[::-1])
    for interval in (forward, backward):
        assert interval.low <= sum(values) / len(values) <= interval.high
    assert abs(forward.low - backward.low) < 0.1


@settings(max_examples=25, deadline=None)
@given(values=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=300), rows=st.integers(1, 40))
def test_betting_in_row_blocks_is_the_same_interval(values, rows):
    """The candidates are tested in blocks (memory bounded for many values): any block size
    gives the interval of one block holding them all."""
    from agenteval._stats import _intervals

    whole = betting_interval(values)
    saved = _intervals._BATCH_CELLS
    _intervals._BATCH_CELLS = rows * len(values)
    try:
        assert betting_interval(values) == whole
    finally:
        _intervals._BATCH_CELLS = saved


def _bets(values, level):
    """The values and the predictable bet sizes, as ``_betting`` makes them."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    n, alpha = x.size, 1.0 - level
    counts = np.arange(1, n + 1)
    mu_hat = (0.5 + np.cumsum(x)) / (counts + 1)
    sigma2 = (0.25 + np.cumsum((x - mu_hat) ** 2)) / (counts + 1)
    return x, np.sqrt(2.0 * math.log(2.0 / alpha) / (n * np.concatenate(([0.25], sigma2[:-1]))))


def _betting_whole_matrix(values, level, grid):
    """The betting interval's decisions as computed before the rounds of
    ``_kept_candidates``: every candidate over every observation in one matrix (the oracle)."""
    import numpy as np

    x, lam = _bets(values, level)
    m = np.linspace(0.0, 1.0, grid)[:, None]
    with np.errstate(divide="ignore"):
        lam_up, lam_down = np.minimum(lam[None, :], 0.5 / m), np.minimum(lam[None, :], 0.5 / (1.0 - m))
    log_up = np.cumsum(np.log1p(lam_up * (x[None, :] - m)), axis=1)
    log_down = np.cumsum(np.log1p(-lam_down * (x[None, :] - m)), axis=1)
    with np.errstate(over="ignore"):
        capital = 0.5 * np.exp(log_up) + 0.5 * np.exp(log_down)
    return np.nonzero(capital.max(axis=1) < 1.0 / (1.0 - level))[0]


def _kept(values, level, grid, first):
    import numpy as np
    from agenteval._stats import _intervals

    x, lam = _bets(values, level)
    return _intervals._kept_candidates(x, lam, np.linspace(0.0, 1.0, grid), 1.0 / (1.0 - level), first)


@settings(deadline=None, max_examples=60)
@given(
    values=st.one_of(
        st.lists(unit, min_size=1, max_size=40),
        st.tuples(unit, st.integers(1, 1500)).map(lambda t: [t[0]] * t[1]),  # all equal
        st.integers(1, 1500).map(lambda n: [0.5] * n),  # every paired difference 0
    ),
    level=levels,
    grid=st.sampled_from([11, 101, 501]),
)
def test_betting_rounds_keep_exactly_the_whole_matrix_candidates(values, level, grid):
    """Candidates dropped round by round (a rejected one is followed no further) are exactly
    the ones the whole matrix rejects, on small rounds too (several rounds even for few values)."""
    expected = list(_betting_whole_matrix(values, level, grid))
    assert list(_kept(values, level, grid, 256)) == expected
    assert list(_kept(values, level, grid, 3)) == expected


def test_betting_of_a_run_against_itself_is_the_whole_matrix_interval():
    """Every difference 0 (a run compared with itself): the interval the whole matrix gives."""
    import numpy as np

    n = 3000
    kept = _betting_whole_matrix([0.5] * n, 0.95, 501)
    step = 1.0 / 500
    low, high = max(0.0, min(float(kept[0] - 1) * step, 0.5)), min(1.0, max(float(kept[-1] + 1) * step, 0.5))
    interval = bounded_interval([0.0] * n, -1.0, 1.0)
    assert (interval.low, interval.high, interval.method) == (-1.0 + low * 2.0, -1.0 + high * 2.0, "betting")
    assert np.isfinite(interval.low) and interval.low < 0.0 < interval.high


@settings(max_examples=25, deadline=None)
@given(
    values=st.lists(unit, min_size=2, max_size=600).filter(lambda v: len(set(v)) > 1),
    cells=st.integers(min_value=1, max_value=5000),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_bca_draws_a_few_rows_at_a_time_with_the_same_interval(values, cells, seed):
    """The resamples are drawn and averaged a few rows at a time: the generator gives the
    same indices however its draws are split by rows, so the interval is the one of every
    resample drawn at once (the engine drew batches of 2 million values before)."""
    import agenteval._stats._intervals as intervals

    small = bca_interval(values, seed=seed, resamples=2999)
    saved = intervals._RESAMPLE_CELLS
    try:
        intervals._RESAMPLE_CELLS = cells
        assert bca_interval(values, seed=seed, resamples=2999) == small
        intervals._RESAMPLE_CELLS = 10**9  # every resample at once
        assert bca_interval(values, seed=seed, resamples=2999) == small
    finally:
        intervals._RESAMPLE_CELLS = saved


def test_bca_over_a_thousand_cases_holds_little_memory_at_once():
    """An eval set of 1,000 cases: the resamples are drawn a few rows at a time (the peak
    was a batch's 16 MB of indices plus its 16 MB of resampled values)."""
    import tracemalloc

    values = [(i * 37 % 101) / 100 for i in range(1000)]
    tracemalloc.start()
    try:
        bca_interval(values, seed=5)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20
