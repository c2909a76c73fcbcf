"""Holm and Benjamini–Hochberg: golden values, statsmodels as the oracle, and their order."""

from __future__ import annotations

import pytest
from agenteval._stats import benjamini_hochberg, holm
from hypothesis import given, settings
from hypothesis import strategies as st

p_lists = st.lists(st.floats(min_value=0.0, max_value=1.0, allow_nan=False), min_size=1, max_size=12)


def test_golden_values():
    assert holm([0.01, 0.04, 0.03, 0.2]) == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert benjamini_hochberg([0.01, 0.04, 0.03, 0.2]) == pytest.approx([0.04, 0.05333333, 0.05333333, 0.2])
    assert holm([]) == [] and benjamini_hochberg([]) == []
    with pytest.raises(ValueError):
        holm([1.5])


@settings(max_examples=80, deadline=None)
@given(ps=p_lists)
def test_match_statsmodels_and_order(ps):
    from statsmodels.stats.multitest import multipletests

    adjusted_holm, adjusted_bh = holm(ps), benjamini_hochberg(ps)
    assert adjusted_holm == pytest.approx(list(multipletests(ps, method="holm")[1]), abs=1e-12)
    assert adjusted_bh == pytest.approx(list(multipletests(ps, method="fdr_bh")[1]), abs=1e-12)
    for raw, h, q in zip(ps, adjusted_holm, adjusted_bh, strict=True):
        assert raw <= h <= 1.0
        assert raw <= q <= h + 1e-12
    ranked = sorted(range(len(ps)), key=lambda i: ps[i])
    assert all(adjusted_holm[i] <= adjusted_holm[j] for i, j in zip(ranked, ranked[1:], strict=False))
