"""Property tests of the trajectory matchers against independent oracles.

The oracles compare calls through a canonical key that encodes Python's equality of
parsed JSON (``True == 1 == 1.0``, ``None != {}``, dict order ignored, list order kept):
EXACT is key-list equality, IN_ORDER is "the expected keys are a subsequence" (checked by
a longest-common-subsequence table, not by the greedy scan the matcher uses), ANY_ORDER is
multiset containment of keys.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from agenteval.models import FunctionCall
from agenteval_builtin._matching import MatchType, calls_equal, match_trajectory, pair_calls
from agenteval_builtin.trajectory import ToolTrajectoryAvgScore
from agenteval_builtin_test_helpers import calls_st, inv, run
from hypothesis import given, settings
from hypothesis import strategies as st

FAST = settings(max_examples=100, deadline=None)


def canon(value: Any) -> Any:
    if isinstance(value, bool):
        return ("num", int(value))
    if isinstance(value, (int, float)):
        return ("num", value)  # 1 and 1.0 are equal and hash alike
    if isinstance(value, str):
        return ("str", value)
    if value is None:
        return ("none",)
    if isinstance(value, list):
        return ("list", tuple(canon(v) for v in value))
    assert isinstance(value, dict)
    return ("dict", frozenset((k, canon(v)) for k, v in value.items()))


def keys(calls: list[FunctionCall], ignore_args: bool) -> list[Any]:
    return [(c.name,) if ignore_args else (c.name, canon(c.args)) for c in calls]


def oracle(match_type: MatchType, actual, expected, ignore_args: bool) -> bool:
    a, e = keys(actual, ignore_args), keys(expected, ignore_args)
    if match_type is MatchType.EXACT:
        return a == e
    if match_type is MatchType.ANY_ORDER:
        return not (Counter(e) - Counter(a))
    lcs = [[0] * (len(a) + 1) for _ in range(len(e) + 1)]
    for i in range(len(e)):
        for j in range(len(a)):
            lcs[i + 1][j + 1] = lcs[i][j] + 1 if e[i] == a[j] else max(lcs[i][j + 1], lcs[i + 1][j])
    return lcs[len(e)][len(a)] == len(e)


def passes(match_type, actual, expected, ignore_args=False) -> bool:
    return match_trajectory(match_type, actual, expected, ignore_args=ignore_args).passed


@FAST
@given(calls_st, calls_st, st.booleans())
def test_matchers_agree_with_oracles(actual, expected, ignore_args):
    for match_type in MatchType:
        result = match_trajectory(match_type, actual, expected, ignore_args=ignore_args)
        assert result.passed == oracle(match_type, actual, expected, ignore_args), match_type
        assert (result.reason is None) == result.passed


@FAST
@given(calls_st, calls_st, st.booleans())
def test_exact_implies_in_order_implies_any_order(actual, expected, ignore_args):
    exact = passes(MatchType.EXACT, actual, expected, ignore_args)
    in_order = passes(MatchType.IN_ORDER, actual, expected, ignore_args)
    any_order = passes(MatchType.ANY_ORDER, actual, expected, ignore_args)
    assert not exact or in_order
    assert not in_order or any_order


@FAST
@given(calls_st, st.booleans())
def test_identical_trajectories_match(calls, ignore_args):
    copied = [c.model_copy(deep=True) for c in calls]
    for match_type in MatchType:
        assert passes(match_type, calls, copied, ignore_args)


@FAST
@given(calls_st, calls_st, st.randoms(use_true_random=False), st.booleans())
def test_any_order_is_invariant_under_permutation_of_actual(actual, expected, rnd, ignore_args):
    shuffled = list(actual)
    rnd.shuffle(shuffled)
    assert passes(MatchType.ANY_ORDER, shuffled, expected, ignore_args) == passes(
        MatchType.ANY_ORDER, actual, expected, ignore_args
    )


@FAST
@given(calls_st, calls_st, calls_st, st.randoms(use_true_random=False))
def test_extra_actual_calls_never_break_in_order_or_any_order(actual, expected, extra, rnd):
    longer = list(actual)
    for call in extra:
        longer.insert(rnd.randint(0, len(longer)), call)
    for match_type in (MatchType.IN_ORDER, MatchType.ANY_ORDER):
        if passes(match_type, actual, expected):
            assert passes(match_type, longer, expected), match_type


@FAST
@given(calls_st, calls_st)
def test_ignoring_arguments_never_turns_a_pass_into_a_failure(actual, expected):
    for match_type in MatchType:
        if passes(match_type, actual, expected):
            assert passes(match_type, actual, expected, ignore_args=True)


@FAST
@given(calls_st, calls_st, st.booleans())
def test_pairing_is_a_maximum_one_to_one_matching(actual, expected, ignore_args):
    pairing = pair_calls(actual, expected, ignore_args=ignore_args)
    used = [j for j in pairing if j is not None]
    assert len(used) == len(set(used))
    for i, j in enumerate(pairing):
        if j is not None:
            assert calls_equal(actual[j], expected[i], ignore_args=ignore_args)
    overlap = Counter(keys(actual, ignore_args)) & Counter(keys(expected, ignore_args))
    assert len(used) == sum(overlap.values())


@settings(max_examples=40, deadline=None)
@given(calls_st, calls_st, st.sampled_from(list(MatchType)), st.booleans())
def test_both_intermediate_data_forms_score_alike(actual, expected, match_type, ignore_args):
    params = {"match_type": match_type, "ignore_args": ignore_args}
    legacy = run(ToolTrajectoryAvgScore, [inv(actual)], [inv(expected)], **params)
    events = run(
        ToolTrajectoryAvgScore, [inv(actual, form="events")], [inv(expected, form="events")], **params
    )
    assert legacy.value == events.value == float(oracle(match_type, actual, expected, ignore_args))
