"""``_summary_payload``'s histogram of a criterion's scores, whatever range a run records."""

from __future__ import annotations

from agenteval_viewer._summary_payload import HISTOGRAM_BINS, _histogram
from hypothesis import example, given
from hypothesis import strategies as st

_finite = st.floats(allow_nan=False, allow_infinity=False)
_bound = st.one_of(st.none(), _finite)


@given(st.lists(_finite, min_size=1, max_size=30), _bound, _bound)
def test_every_score_is_counted_once_whatever_the_range(scores, low, high):
    histogram = _histogram(scores, low, high)
    assert histogram is not None and len(histogram["counts"]) == HISTOGRAM_BINS
    assert sum(histogram["counts"]) == len(scores)
    assert histogram["high"] > histogram["low"]


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30))
@example([0.3, 0.6, 0.7])  # each a bin too low while a score was divided by the bin's width
def test_scores_of_the_unit_range_fall_in_their_bin(scores):
    counts = _histogram(scores, 0.0, 1.0)["counts"]
    for score in scores:
        assert counts[min(int(score * HISTOGRAM_BINS), HISTOGRAM_BINS - 1)] > 0


def test_a_range_far_from_zero_is_widened_where_adding_one_changes_nothing():
    """A criterion's minimum of 1.2e21 and scores no higher (``lo + 1 == lo`` in floats)
    divided by zero before."""
    histogram = _histogram([1.2e21, 1.2e21], 1.2e21, None)
    assert histogram == {"low": 1.2e21, "high": 2.4e21, "counts": [2] + [0] * (HISTOGRAM_BINS - 1)}
    assert _histogram([], 0.0, 1.0) is None
