"""``trajectory_precision``, ``trajectory_recall`` and ``trajectory_single_tool_use``."""

from __future__ import annotations

import copy

import pytest
from agenteval.models import FunctionCall
from agenteval_builtin.partial_trajectory import (
    TrajectoryPrecision,
    TrajectoryRecall,
    TrajectorySingleToolUse,
)
from agenteval_builtin.trajectory import ToolTrajectoryAvgScore
from agenteval_builtin_test_helpers import call, inv, run, score_one
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

P, R, S = TrajectoryPrecision, TrajectoryRecall, TrajectorySingleToolUse
A = call("a", {"k": 1})
B = call("b", {"k": 2})
X = call("x", {})

# (actual, expected, precision, recall)
TABLE = [
    pytest.param([], [], 1.0, 1.0, id="both-empty"),
    pytest.param([], [A, B], 0.0, 0.0, id="nothing-called"),
    pytest.param([A, B], [], 0.0, 1.0, id="nothing-expected"),
    pytest.param([A, B], [A, B], 1.0, 1.0, id="same"),
    pytest.param([B, A], [A, B], 1.0, 1.0, id="order-ignored"),
    pytest.param([A, X], [A, B], 0.5, 0.5, id="one-wrong"),
    pytest.param([A, X, X, B], [A, B], 0.5, 1.0, id="extras"),
    pytest.param([A], [A, B, X, A], 1.0, 0.25, id="missing"),
    pytest.param([A, A, A], [A], 1 / 3, 1.0, id="repeats-earn-credit-once"),
    pytest.param([A], [A, A], 1.0, 0.5, id="duplicates-need-duplicates"),
    pytest.param([call("a", {"k": 1.0})], [A], 1.0, 1.0, id="int-float"),
    pytest.param([call("a", {"k": "1"})], [A], 0.0, 0.0, id="string-int"),
    pytest.param([call("a")], [call("a", {})], 0.0, 0.0, id="none-vs-empty"),
]


@pytest.mark.parametrize("actual, expected, precision, recall", TABLE)
@pytest.mark.parametrize("form", ["legacy", "events"])
def test_table(actual, expected, precision, recall, form):
    a, e = [inv(actual, form=form)], [inv(expected, form=form)]
    assert run(P, a, e).value == pytest.approx(precision)
    assert run(R, a, e).value == pytest.approx(recall)


def test_ignore_args_matches_by_name():
    actual, expected = [call("a", {"k": "1"}), call("b")], [A, call("c")]
    assert score_one(P, actual, expected) == 0.0
    assert score_one(P, actual, expected, ignore_args=True) == 0.5
    assert score_one(R, actual, expected, ignore_args=True) == 0.5


def test_mean_over_invocations_and_details():
    actual = [inv([A, X]), inv([A]), inv([])]
    expected = [inv([A]), inv([A, B]), inv([])]
    precision = run(P, actual, expected)
    recall = run(R, actual, expected)
    assert precision.value == pytest.approx((0.5 + 1.0 + 1.0) / 3)
    assert recall.value == pytest.approx((1.0 + 0.5 + 1.0) / 3)
    assert precision.per_invocation[0].details == {"matched": 1, "actual_calls": 2, "expected_calls": 1}
    assert precision.details == {"ignore_args": False}


def test_reasons():
    precision = run(P, [inv([A, X])], [inv([A])]).per_invocation[0].reason
    assert precision == "1 of 2 calls made were expected; unexpected: x() (#2)"
    recall = run(R, [inv([A])], [inv([A, B])]).per_invocation[0].reason
    assert recall == "1 of 2 expected calls were made; missing: b(k=2) (#2)"
    nothing = run(P, [inv([])], [inv([A])]).per_invocation[0].reason
    assert nothing == "no tool calls were made while 1 were expected: a(k=1)"
    assert run(P, [inv([A])], [inv([A])]).per_invocation[0].reason is None
    assert run(R, [inv([A])], [inv([])]).per_invocation[0].reason is None


def test_no_invocations():
    for cls in (P, R):
        assert run(cls, [], []).reason_code == "no_invocations"
    assert run(S, [], tool_name="a").reason_code == "no_invocations"


def test_info():
    for cls in (P, R):
        assert cls.info.requires_expected and cls.info.default_threshold == 1.0
        assert (cls.info.min_score, cls.info.max_score) == (0.0, 1.0)
    assert not S.info.requires_expected and S.info.default_threshold == 1.0


# --- single tool use --------------------------------------------------------------------


def test_single_tool_use_per_invocation_mean():
    actual = [inv([A, B]), inv([X]), inv([], form="none"), inv([call("a", {"other": True})], form="events")]
    result = run(S, actual, tool_name="a")
    assert [s.score for s in result.per_invocation] == [1.0, 0.0, 0.0, 1.0]
    assert result.value == 0.5
    assert result.per_invocation[0].details == {"calls": 1}
    assert result.per_invocation[1].reason == "'a' was not called; tools called: x"
    assert result.per_invocation[2].reason == "'a' was not called; no tool calls were made"
    assert result.details == {"tool_name": "a"}


def test_single_tool_use_ignores_expected_and_counts_repeats():
    result = run(S, [inv([A, A, X])], [inv([])], tool_name="a")
    assert result.value == 1.0 and result.per_invocation[0].details == {"calls": 2}


@pytest.mark.parametrize("params", [{}, {"tool_name": ""}, {"tool_name": "a", "ignore_args": True}])
def test_single_tool_use_params(params):
    with pytest.raises(ValidationError):
        S.Params.model_validate(params)
    assert S.Params.model_validate({"toolName": "a"}).tool_name == "a"


# --- properties -------------------------------------------------------------------------

ARGS = [None, {}, {"k": 1}, {"k": 1.0}, {"k": "1"}, {"k": True}, {"k": [1, 2]}]
calls_st = st.lists(
    st.builds(
        lambda n, a: FunctionCall(name=n, args=copy.deepcopy(a)),
        st.sampled_from("abc"),
        st.sampled_from(ARGS),
    ),
    max_size=6,
)
FAST = settings(max_examples=60, deadline=None)


@FAST
@given(calls_st, calls_st, st.booleans())
def test_scores_in_range_and_recall_one_iff_any_order_passes(actual, expected, ignore_args):
    precision = score_one(P, actual, expected, ignore_args=ignore_args)
    recall = score_one(R, actual, expected, ignore_args=ignore_args)
    any_order = score_one(
        ToolTrajectoryAvgScore, actual, expected, match_type="ANY_ORDER", ignore_args=ignore_args
    )
    assert 0.0 <= precision <= 1.0 and 0.0 <= recall <= 1.0
    assert (recall == 1.0) == (any_order == 1.0)


@FAST
@given(calls_st, calls_st, st.booleans())
def test_precision_is_recall_with_roles_swapped(actual, expected, ignore_args):
    if actual and expected:
        assert score_one(P, actual, expected, ignore_args=ignore_args) == pytest.approx(
            score_one(R, expected, actual, ignore_args=ignore_args)
        )


@FAST
@given(calls_st, st.booleans())
def test_identical_trajectories_score_one(calls, ignore_args):
    copied = [c.model_copy(deep=True) for c in calls]
    assert score_one(P, calls, copied, ignore_args=ignore_args) == 1.0
    assert score_one(R, calls, copied, ignore_args=ignore_args) == 1.0


@FAST
@given(calls_st, st.sampled_from("abcd"))
def test_single_tool_use_is_membership(calls, tool):
    result = run(S, [inv(calls)], tool_name=tool)
    assert result.value == float(any(c.name == tool for c in calls))
