"""The planned looks of ``--num-runs auto`` (3, 6, 12, 24 runs, each at 1 - α/4): exact
error rates under optional stopping for 0/1 runs, by dynamic programming over the looks
with the verdict rule the run uses (``case_verdict``), and the study's golden bounds."""

from __future__ import annotations

from math import comb

import pytest
from agenteval._auto_runs import AUTO_LOOKS, look_confidence
from agenteval._stats import case_verdict, clopper_pearson


def _verdict(k: int, n: int, threshold: float, level: float) -> str:
    runs = [1.0] * k + [0.0] * (n - k)
    return case_verdict(runs, threshold, lo=0.0, hi=1.0, level=level, unit="run").verdict.value


def _outcomes(p: float, threshold: float, level: float, looks=AUTO_LOOKS) -> dict[str, float]:
    """P(PASS) and P(FAIL) over the looks: a case stops at the first decided look."""
    alive, before = {0: 1.0}, 0
    decided = {"PASS": 0.0, "FAIL": 0.0}
    for n in looks:
        more = n - before
        grown: dict[int, float] = {}
        for k, weight in alive.items():
            for j in range(more + 1):
                grown[k + j] = grown.get(k + j, 0.0) + weight * comb(more, j) * p**j * (1 - p) ** (more - j)
        alive = {}
        for k, weight in grown.items():
            verdict = _verdict(k, n, threshold, level)
            if verdict in decided:
                decided[verdict] += weight
            else:
                alive[k] = weight
        before = n
    return decided


BONFERRONI = look_confidence(0.95, len(AUTO_LOOKS))


def test_each_look_is_at_the_bonferroni_share_of_the_error():
    assert BONFERRONI == pytest.approx(0.9875)
    assert look_confidence(0.9, 2) == pytest.approx(0.95)


@pytest.mark.parametrize(("t", "low"), [(5, 0.362), (10, 0.602), (17, 0.742), (24, 0.809)])
def test_the_study_s_lower_bounds_after_t_passes_in_a_row(t, low):
    # verdict-statistics.md §3.6: "CP at α/4 (valid for up to 4 planned looks)"
    assert clopper_pearson(t, t, BONFERRONI).low == pytest.approx(low, abs=5e-4)


@pytest.mark.parametrize("threshold", [0.5, 0.8])
def test_a_wrong_verdict_stays_below_half_the_error_under_optional_stopping(threshold):
    # true mean at or above the threshold: FAIL is wrong; 0.05 below it: PASS is wrong
    for p in (threshold, min(threshold + 0.05, 1.0)):
        assert _outcomes(p, threshold, BONFERRONI)["FAIL"] <= 0.025
    assert _outcomes(threshold - 0.05, threshold, BONFERRONI)["PASS"] <= 0.025


def test_negative_control_fixed_level_intervals_at_every_look_err_too_often():
    # the same looks at a fixed 95%: peeking four times more than doubles the error
    assert _outcomes(0.8, 0.8, 0.95)["FAIL"] > 0.025
    assert _outcomes(0.8, 0.8, BONFERRONI)["FAIL"] < 0.01


def test_a_clear_case_is_decided_at_the_second_look():
    # an agent failing every run at threshold 0.8: after 3 failures the 98.75% upper bound
    # is 1 - 0.00625^(1/3) = 0.816, still open; after 6 it is 0.570, a FAIL
    assert _outcomes(0.0, 0.8, BONFERRONI, looks=(3,))["FAIL"] == 0.0
    assert _outcomes(0.0, 0.8, BONFERRONI, looks=(3, 6))["FAIL"] == pytest.approx(1.0)
