"""``tool_parameter_match``: ADK PR #6726's semantics (experimental), case by case and
against an independent oracle written from the PR's description."""

from __future__ import annotations

import copy
from typing import Optional

import pytest
from agenteval.models import FunctionCall
from agenteval_builtin.tool_parameter_match import ToolParameterMatch
from agenteval_builtin_test_helpers import call, inv, run
from hypothesis import given, settings
from hypothesis import strategies as st

T = ToolParameterMatch


def test_info_says_experimental():
    assert T.info.description.startswith("EXPERIMENTAL")
    assert T.info.shows_trajectory and T.info.requires_expected


@pytest.mark.parametrize(
    "actual, expected, want",
    [
        pytest.param(
            [call("s", {"q": "a", "n": 10})], [call("s", {"q": "a", "n": 5})], 0.5, id="share-of-keys"
        ),
        pytest.param([call("s", {"q": "a", "x": 1})], [call("s", {"q": "a"})], 1.0, id="extra-keys-ignored"),
        pytest.param([call("s", {"q": "a"})], [call("s", {})], 1.0, id="empty-expected-args"),
        pytest.param([call("s")], [call("s")], 1.0, id="no-args-key"),
        pytest.param([call("s")], [call("s", {"q": "a"})], 0.0, id="actual-without-args"),
        pytest.param([], [call("s", {"q": "a"})], 0.0, id="never-called"),
        pytest.param([call("t", {"q": "a"})], [call("s", {"q": "a"})], 0.0, id="other-tool"),
        pytest.param([call("s", {"n": 3.0})], [call("s", {"n": 3})], 1.0, id="python-equality"),
        pytest.param([call("s", {"n": "3"})], [call("s", {"n": 3})], 0.0, id="no-coercion"),
        # Greedy by name, in order: the first s takes the first actual s even though the
        # second one matches better, and the second expected s then takes the later one.
        pytest.param(
            [call("s", {"q": "x"}), call("s", {"q": "a"})],
            [call("s", {"q": "a"}), call("s", {"q": "x"})],
            0.0,
            id="greedy-by-name",
        ),
        pytest.param(
            [call("s", {"q": "a"}), call("t", {}), call("s", {"q": "b"})],
            [call("t", {}), call("s", {"q": "b"})],
            1.0,
            id="skips-earlier-calls",
        ),
        pytest.param(
            [call("s", {"q": "a"})], [call("s", {"q": "a"}), call("s", {"q": "a"})], 0.5, id="duplicates"
        ),
    ],
)
@pytest.mark.parametrize("form", ["legacy", "events"])
def test_scores(actual, expected, want, form):
    assert run(T, [inv(actual, form=form)], [inv(expected, form=form)]).value == want


def test_an_invocation_without_expected_calls_is_not_scored():
    result = run(T, [inv([call("s", {})]), inv([call("s", {"q": 1})])], [inv([]), inv([call("s", {"q": 2})])])
    first, second = result.per_invocation
    assert first.score is None and first.reason_code == "no_expected_calls"
    assert second.score == 0.0
    assert result.value == 0.0  # the mean over scored invocations only


def test_a_case_without_any_expected_call_is_not_evaluated():
    result = run(T, [inv([call("s", {})])], [inv([])])
    assert result.value is None
    assert result.reason_code == "no_scored_invocations"


def test_details_carry_the_alignment_and_the_reason_names_the_arguments():
    result = run(
        T, [inv([call("s", {"q": "a", "n": 10}), call("x", {})])], [inv([call("s", {"q": "a", "n": 5})])]
    )
    item = result.per_invocation[0]
    assert item.details["call_scores"] == [0.5]
    rows = item.details["alignment"]
    assert [(r["op"], r.get("similarity")) for r in rows] == [("args_differ", 0.5), ("extra", None)]
    assert rows[0]["arg_diffs"][0] == {
        "key": "n",
        "kind": "changed",
        "expected": 5,
        "actual": 10,
        "matcher": "exact",
        "score": 0.0,
    }
    assert "n: expected 5, got 10" in item.reason


def _oracle_invocation(actual: list[FunctionCall], expected: list[FunctionCall]) -> Optional[float]:
    """PR #6726 as its description states it, written independently."""
    if not expected:
        return None
    position, scores = 0, []
    for want in expected:
        later = [i for i in range(position, len(actual)) if actual[i].name == want.name]
        if not later:
            scores.append(0.0)
            continue
        got = actual[later[0]]
        position = later[0] + 1
        wanted = want.args or {}
        given_args = got.args or {}
        same = sum(1 for k, v in wanted.items() if k in given_args and given_args[k] == v)
        scores.append(same / len(wanted) if wanted else 1.0)
    return sum(scores) / len(scores)


ARGS = [None, {}, {"k": 1}, {"k": 1.0}, {"k": "1"}, {"k": 2}, {"k": 1, "j": 2}, {"j": 2}]
calls_st = st.lists(
    st.builds(
        lambda name, args: FunctionCall(name=name, args=copy.deepcopy(args)),
        st.sampled_from(["a", "b"]),
        st.sampled_from(ARGS),
    ),
    max_size=5,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(calls_st, calls_st), min_size=1, max_size=3))
def test_matches_the_oracle(turns):
    result = run(T, [inv(a) for a, _ in turns], [inv(e) for _, e in turns])
    want = [_oracle_invocation(a, e) for a, e in turns]
    assert [s.score for s in result.per_invocation] == want
    scored = [w for w in want if w is not None]
    if scored:
        assert result.value == pytest.approx(sum(scored) / len(scored), abs=1e-12)
    else:
        assert result.value is None
