"""The ``--num-runs auto`` policy on its own (``agenteval._auto_runs``): the flag checks,
the looks a budget leaves room for, the walk over a case's looks, the budget's accounting.
Whole runs under the policy: ``tests/engine/run/test_auto_runs.py``."""

from __future__ import annotations

import pytest
from agenteval._auto_runs import AUTO_LOOKS, RunBudget, auto_looks, check_num_runs, runs_needed
from agenteval.errors import ConfigError
from hypothesis import given
from hypothesis import strategies as st


def test_a_budget_below_every_first_look_is_refused():
    with pytest.raises(ConfigError, match="--run-budget 8 is too small.*at least 9"):
        auto_looks(3, 8)
    assert auto_looks(3, 9) == (3,)
    assert auto_looks(2, 3 + 12) == (3, 6, 12)
    assert auto_looks(5, None) == AUTO_LOOKS


@pytest.mark.parametrize(
    ("num_runs", "budget", "agent", "message"),
    [
        (0, None, True, "at least 1, or auto, not 0"),
        (True, None, True, "at least 1, or auto, not True"),
        ("3", None, True, "at least 1, or auto, not '3'"),
        (3, 10, True, "--run-budget caps the runs of --num-runs auto"),
        ("auto", None, False, "it needs --agent"),
    ],
)
def test_num_runs_that_cannot_run_are_refused(num_runs, budget, agent, message):
    with pytest.raises(ConfigError, match=message):
        check_num_runs(num_runs, budget, agent)


@pytest.mark.parametrize(
    ("num_runs", "budget", "agent"), [(None, None, False), (1, None, False), ("auto", 9, True)]
)
def test_num_runs_that_can_run_pass(num_runs, budget, agent):
    check_num_runs(num_runs, budget, agent)


def test_a_case_goes_on_look_by_look_while_undecided():
    looks = (3, 6, 12)
    asked: list[int] = []

    def undecided(look: int) -> bool:
        asked.append(look)
        return False

    assert runs_needed([], looks, undecided) == 3 and asked == []  # not at its first look yet
    assert runs_needed([object()] * 3, looks, undecided) == 6 and asked == [3]
    assert runs_needed([object()] * 6 + [None] * 6, looks, undecided) == 12
    assert runs_needed([object()] * 12, looks, undecided) == 12  # the last look ends it
    assert runs_needed([object()] * 6, looks, lambda look: look == 3) == 3  # decided at 3


@given(
    have=st.integers(0, 30), needed=st.integers(0, 30), used=st.integers(0, 60), reserved=st.integers(0, 30)
)
def test_the_budget_never_lets_runs_and_reservations_exceed_it(have, needed, used, reserved):
    budget = RunBudget(40, used=used, reserved=reserved)
    target = budget.next_target(have, needed)
    assert target in (have, needed) and target >= min(have, needed)
    if target > have:
        assert used + (target - have) + reserved <= 40
    assert RunBudget(None, used=used, reserved=reserved).next_target(have, needed) == max(have, needed)
