"""When to stop sampling a judge: curtailment's and the SPRT's operating characteristics."""

from __future__ import annotations

import pytest
from agenteval_llm_judges._stopping import (
    curtailed_operating_characteristics,
    majority_settled,
    sprt_barrier,
    sprt_operating_characteristics,
)


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
