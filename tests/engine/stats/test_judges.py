"""Judge samples' agreement coefficients."""

from __future__ import annotations

import pytest
from agenteval._stats import judge_agreement, krippendorff_alpha
from hypothesis import given, settings
from hypothesis import strategies as st

STUDY_VOTES = [[1, 1, 1, 1, 1], [1, 1, 0, 1, 1], [0, 0, 0, 1, 0], [1, 0, 1, 0, 1]]


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
