"""Judge sampling: curtailment's and the SPRT's operating characteristics, agreement coefficients."""

from __future__ import annotations

import pytest
from agenteval._stats import (
    curtailed_operating_characteristics,
    judge_agreement,
    krippendorff_alpha,
    majority_settled,
    sprt_barrier,
    sprt_operating_characteristics,
)
from hypothesis import given, settings
from hypothesis import strategies as st

STUDY_VOTES = [[1, 1, 1, 1, 1], [1, 1, 0, 1, 1], [0, 0, 0, 1, 0], [1, 0, 1, 0, 1]]


def test_majority_settled_examples():
    assert majority_settled(2, 0, 1) is True and majority_settled(1, 1, 0) is False
    assert majority_settled(1, 0, 1) is None
    assert majority_settled(1, 2, 1) is False  # 1-2 with one left: a tie at best, and a tie is NO


@pytest.mark.parametrize(
    "n, expected",
    [(5, [4.12, 3.89, 3.32, 3.00]), (3, [2.50, 2.42, 2.18, 2.00]), (7, [5.81, 5.38, 4.44, 4.00])],
)
def test_curtailed_expected_calls_match_the_study(n, expected):
    got = [round(curtailed_operating_characteristics(p, n)[1], 2) for p in (0.5, 0.7, 0.9, 1.0)]
    assert got == pytest.approx(expected, abs=0.011)
    assert curtailed_operating_characteristics(0.7, 5)[0] == pytest.approx(0.837, abs=5e-4)


def test_sprt_barrier_table():
    table = [(0.05, 0.3), (0.05, 0.2), (0.10, 0.2), (0.01, 0.3)]
    assert [sprt_barrier(a, d) for a, d in table] == [3, 4, 3, 4]
    with pytest.raises(ValueError):
        sprt_barrier(0.6, 0.3)


@pytest.mark.parametrize(
    "p, expected",
    [
        (0.5, (0.433, 0.433, 0.133, 7.93)),
        (0.7, (0.891, 0.070, 0.039, 6.19)),
        (0.9, (0.999, 0.001, 0.0, 3.74)),
        (1.0, (1.0, 0.0, 0.0, 3.0)),
    ],
)
def test_sprt_operating_characteristics_match_the_study(p, expected):
    got = sprt_operating_characteristics(p, 3, 15)
    assert [round(x, 3) for x in got[:3]] == pytest.approx(expected[:3], abs=0.0011)
    assert round(got[3], 2) == expected[3]


def test_agreement_golden_values_and_oracles():
    import krippendorff
    import numpy as np

    assert krippendorff_alpha(STUDY_VOTES) == pytest.approx(0.2692, abs=5e-5)
    reference = krippendorff.alpha(np.array(STUDY_VOTES, dtype=float).T, level_of_measurement="nominal")
    assert krippendorff_alpha(STUDY_VOTES) == pytest.approx(reference)
    summary = judge_agreement([[bool(v) for v in row] for row in STUDY_VOTES])
    assert summary.n_items == 4 and summary.unanimity == 0.25 and summary.fragile == 1
    assert summary.pairwise_agreement == pytest.approx((1 + 0.6 + 0.6 + 0.4) / 4)


@settings(max_examples=50, deadline=None)
@given(
    units=st.lists(
        st.lists(st.one_of(st.none(), st.integers(0, 4).map(float)), min_size=2, max_size=6),
        min_size=2,
        max_size=10,
    ),
    level=st.sampled_from(["nominal", "interval"]),
)
def test_krippendorff_alpha_matches_the_library(units, level):
    import krippendorff
    import numpy as np

    ours = krippendorff_alpha(units, level)
    width = max(len(u) for u in units)
    matrix = np.full((width, len(units)), np.nan)
    for j, unit in enumerate(units):
        for i, value in enumerate(unit):
            if value is not None:
                matrix[i, j] = value
    pairable = [u for u in units if sum(v is not None for v in u) >= 2]
    values = {v for u in pairable for v in u if v is not None}
    domain = sorted({v for u in units for v in u if v is not None})
    if ours is None:
        assert len(values) <= 1 or sum(len([v for v in u if v is not None]) for u in pairable) < 2
        return
    theirs = krippendorff.alpha(matrix, level_of_measurement=level, value_domain=domain)
    assert ours == pytest.approx(theirs, abs=1e-9)


def test_agreement_edges():
    assert judge_agreement([[True], []]).n_items == 0
    assert judge_agreement([[True, True], [False, False]]).krippendorff_alpha == 1.0
    assert judge_agreement([[True, True], [True, True]]).krippendorff_alpha is None
    assert krippendorff_alpha([[1.0]]) is None
    with pytest.raises(ValueError):
        krippendorff_alpha([[1, 0]], level="ordinal")
