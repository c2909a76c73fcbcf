"""An eval set's verdict with a stated guarantee (issue 25): Holm across the set's cases,
no correction, or the mean over cases; the per-set error shown by seeded simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from agenteval._stats import SET_VERDICT_RULES, Verdict, case_verdict, set_verdict
from hypothesis import given, settings
from hypothesis import strategies as st

TAIL = 0.025


def _verdicts(runs_by_case, threshold):
    out = []
    for runs in runs_by_case:
        found = case_verdict(runs, threshold, hint=False)
        out.append((found.verdict.value, found.basis.value))
    return out


def _set(runs_by_case, threshold=0.8, rule="holm"):
    return set_verdict(runs_by_case, _verdicts(runs_by_case, threshold), threshold, rule=rule)


PASSING = [1.0] * 5
BARELY = [1.0, 0.0, 0.0, 0.0, 0.0]  # 1 of 5: FAILs at 95% (upper 0.716), not at 99.5%
CLEARLY = [0.0] * 5  # 0 of 5: FAILs at 99.5% too (upper 0.653)


def test_holm_keeps_a_clear_fail_and_says_whose():
    found = _set([PASSING] * 9 + [CLEARLY])
    assert found.verdict is Verdict.FAIL and found.rule == "holm" and found.failing == (9,)
    assert found.reason == "1 of 10 cases fail the set: case 10"
    assert (
        found.guarantee == "per set, Holm over 10 cases: a wrong FAIL at most 2.5%, a wrong PASS at most 2.5%"
    )


def test_holm_does_not_let_a_fail_at_the_case_s_own_level_fail_the_set_and_says_why():
    runs = [PASSING] * 9 + [BARELY]
    assert _set(runs, rule="any-case").verdict is Verdict.FAIL
    found = _set(runs)
    assert found.verdict is Verdict.INCONCLUSIVE and found.failing == ()
    assert "case 10 FAILs at 95% but not at Holm's 99.5% over 10 cases" in found.reason


def test_holm_steps_down():
    # two cases at 1 of 5: neither FAILs at 99.5% (first step, 10 cases); Holm's later
    # steps only follow a rejection, so a clear FAIL first lets them be tested at 1 - 0.05/9
    found = _set([CLEARLY, BARELY] + [PASSING] * 8)
    assert found.failing[0] == 0


def test_a_case_not_evaluated_fails_the_set_under_every_rule():
    runs = [PASSING, PASSING]
    verdicts = [("PASS", "runs"), ("NOT_EVALUATED", "runs")]
    for rule in ("holm", "any-case"):
        assert set_verdict(runs, verdicts, 0.8, rule=rule).verdict is Verdict.FAIL


def test_point_verdicts_are_not_corrected_and_the_guarantee_says_so():
    runs = [[1.0], [0.0]]
    found = set_verdict(runs, [("PASS", "single-run"), ("FAIL", "single-run")], 0.8)
    assert found.verdict is Verdict.FAIL
    assert found.guarantee.startswith("none beyond the point verdicts")


def test_the_mean_rule_asks_about_the_average_case():
    runs = [[0.9] * 3, [0.9] * 3, [0.1] * 3]  # mean 0.63
    found = _set(runs, threshold=0.5, rule="mean")
    assert found.rule == "mean" and found.verdict is not Verdict.FAIL
    assert found.reason.startswith("the mean over 3 cases: ")
    assert "on the mean over 3 cases, not on each case" in found.guarantee


def test_an_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="holm, any-case, mean"):
        _set([PASSING], rule="some")
    assert SET_VERDICT_RULES == ("holm", "any-case", "mean")


@settings(deadline=None, max_examples=40)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=12))
def test_holm_fails_a_set_only_where_no_correction_fails_it_and_passes_alike(passes):
    runs = [[1.0] * k + [0.0] * (5 - k) for k in passes]
    holm, plain = _set(runs), _set(runs, rule="any-case")
    if holm.verdict is Verdict.FAIL:
        assert plain.verdict is Verdict.FAIL and set(holm.failing) <= set(plain.failing)
    assert (holm.verdict is Verdict.PASS) == (plain.verdict is Verdict.PASS)


# -- the per-set promise, by seeded simulation ------------------------------------------


def _wrong_fail_rate(rule: str, p: float, sets: int, seed: int, cases: int = 10, runs: int = 5) -> float:
    """Sets of 0/1 runs, every case at pass rate p >= the threshold 0.8: any FAIL is wrong."""
    rng = np.random.default_rng(seed)
    by_k = {}
    failed = 0
    for _ in range(sets):
        ks = rng.binomial(runs, p, size=cases)
        runs_by_case = [[1.0] * int(k) + [0.0] * (runs - int(k)) for k in ks]
        verdicts = []
        for k, scores in zip(ks, runs_by_case, strict=False):
            if int(k) not in by_k:
                found = case_verdict(scores, 0.8, hint=False)
                by_k[int(k)] = (found.verdict.value, found.basis.value)
            verdicts.append(by_k[int(k)])
        failed += set_verdict(runs_by_case, verdicts, 0.8, rule=rule).verdict is Verdict.FAIL
    return failed / sets


@pytest.mark.parametrize("p", [0.8, 0.85])
def test_holm_wrongly_fails_a_set_at_most_half_the_error(p):
    sets = 3000
    rate = _wrong_fail_rate("holm", p, sets, seed=25)
    assert rate <= TAIL + 4 * math.sqrt(TAIL * (1 - TAIL) / sets)


def test_negative_control_without_correction_a_set_at_its_thresholds_is_failed_too_often():
    assert _wrong_fail_rate("any-case", 0.8, 3000, seed=25) > 0.05
