"""``tool_trajectory_avg_score``: ADK 2.13's edge cases (reference section 4.1) as tables."""

from __future__ import annotations

import pytest
from agenteval_builtin.trajectory import MatchType, ToolTrajectoryAvgScore
from agenteval_builtin_test_helpers import call, context, inv, run, score_one
from pydantic import ValidationError

T = ToolTrajectoryAvgScore
A = call("a", {"k": 1})
B = call("b", {"k": 2})
X = call("x", {})

# (actual, expected, {match type: expected score})
MATCH_TABLE = [
    pytest.param([], [], {"EXACT": 1, "IN_ORDER": 1, "ANY_ORDER": 1}, id="both-empty"),
    pytest.param([A], [], {"EXACT": 0, "IN_ORDER": 1, "ANY_ORDER": 1}, id="empty-expected-asymmetry"),
    pytest.param([], [A], {"EXACT": 0, "IN_ORDER": 0, "ANY_ORDER": 0}, id="nothing-called"),
    pytest.param([A], [A], {"EXACT": 1, "IN_ORDER": 1, "ANY_ORDER": 1}, id="same"),
    pytest.param([A], [A, A], {"EXACT": 0, "IN_ORDER": 0, "ANY_ORDER": 0}, id="duplicates-need-duplicates"),
    pytest.param([A, X, A], [A, A], {"EXACT": 0, "IN_ORDER": 1, "ANY_ORDER": 1}, id="duplicates-with-gap"),
    pytest.param([A, A], [A], {"EXACT": 0, "IN_ORDER": 1, "ANY_ORDER": 1}, id="surplus-duplicate"),
    pytest.param([B, A], [A, B], {"EXACT": 0, "IN_ORDER": 0, "ANY_ORDER": 1}, id="swapped"),
    pytest.param([A, X, B], [A, B], {"EXACT": 0, "IN_ORDER": 1, "ANY_ORDER": 1}, id="extra-between"),
    pytest.param([X, A, B, X], [A, B], {"EXACT": 0, "IN_ORDER": 1, "ANY_ORDER": 1}, id="extra-around"),
    pytest.param([A, A, B], [A, B, A], {"EXACT": 0, "IN_ORDER": 0, "ANY_ORDER": 1}, id="greedy-in-order"),
    pytest.param([A, B, A], [A, A], {"EXACT": 0, "IN_ORDER": 1, "ANY_ORDER": 1}, id="greedy-skips"),
    pytest.param([A, B], [A, B, X], {"EXACT": 0, "IN_ORDER": 0, "ANY_ORDER": 0}, id="missing-last"),
]


@pytest.mark.parametrize("actual, expected, by_type", MATCH_TABLE)
@pytest.mark.parametrize("form", ["legacy", "events"])
def test_match_types(actual, expected, by_type, form):
    for match_type, want in by_type.items():
        result = run(T, [inv(actual, form=form)], [inv(expected, form=form)], match_type=match_type)
        assert result.value == want, match_type


# (actual args, expected args, equal?) under plain Python equality of parsed JSON.
ARG_TABLE = [
    pytest.param({"n": 3}, {"n": 3.0}, True, id="int-float"),
    pytest.param({"n": True}, {"n": 1}, True, id="true-one"),
    pytest.param({"n": False}, {"n": 0}, True, id="false-zero"),
    pytest.param({"n": "3"}, {"n": 3}, False, id="string-int"),
    pytest.param(None, {}, False, id="none-vs-empty"),
    pytest.param({}, None, False, id="empty-vs-none"),
    pytest.param(None, None, True, id="none-none"),
    pytest.param({"a": 1, "b": 2}, {"b": 2, "a": 1}, True, id="key-order"),
    pytest.param({"q": {"x": 1, "y": [1, 2]}}, {"q": {"y": [1, 2], "x": 1}}, True, id="nested-key-order"),
    pytest.param({"l": [1, 2]}, {"l": [2, 1]}, False, id="list-order"),
    pytest.param({"c": "Paris "}, {"c": "Paris"}, False, id="no-trim"),
    pytest.param({"c": "Paris"}, {"c": "paris"}, False, id="case"),
    pytest.param({"c": "café"}, {"c": "cafe\u0301"}, False, id="no-unicode-normalisation"),
    pytest.param({"x": None}, {"x": {}}, False, id="nested-none-vs-empty"),
    pytest.param({"x": None}, {}, False, id="null-value-vs-absent-key"),
    pytest.param({"l": [1.0, True]}, {"l": [1, 1]}, True, id="list-numbers"),
]


@pytest.mark.parametrize("actual_args, expected_args, equal", ARG_TABLE)
@pytest.mark.parametrize("match_type", ["EXACT", "IN_ORDER", "ANY_ORDER"])
def test_argument_equality(actual_args, expected_args, equal, match_type):
    actual, expected = [call("t", actual_args)], [call("t", expected_args)]
    assert score_one(T, actual, expected, match_type=match_type) == float(equal)
    # With ignore_args only the name counts.
    assert score_one(T, actual, expected, match_type=match_type, ignore_args=True) == 1.0


def test_id_is_never_compared():
    assert score_one(T, [call("a", {"k": 1}, id="one")], [call("a", {"k": 1}, id="two")]) == 1.0


def test_ignore_args_still_compares_names():
    for match_type in MatchType:
        assert score_one(T, [call("a", {})], [call("b", {})], match_type=match_type, ignore_args=True) == 0.0


def test_mean_over_invocations():
    actual = [inv([A]), inv([B]), inv([A, B]), inv([])]
    expected = [inv([A]), inv([A]), inv([A, B]), inv([])]
    result = run(T, actual, expected)
    assert result.value == pytest.approx(0.75)
    assert [s.score for s in result.per_invocation] == [1.0, 0.0, 1.0, 1.0]
    assert result.details == {"match_type": "EXACT", "ignore_args": False}
    assert "1 of 4 invocations scored below 1" in result.reason
    assert "#2" in result.reason


def test_no_invocations_is_not_evaluated():
    result = run(T, [], [])
    assert result.value is None
    assert result.reason_code == "no_invocations"


def test_forms_mixed_and_missing_intermediate_data():
    # Legacy expected against event-form actual, and no intermediate data at all.
    assert run(T, [inv([A, B], form="events")], [inv([A, B])]).value == 1.0
    assert run(T, [inv([], form="none")], [inv([])]).value == 1.0
    assert run(T, [inv([], form="none")], [inv([A])], match_type="ANY_ORDER").value == 0.0


def test_event_form_counts_every_author_and_parallel_calls():
    from agenteval.models import Content, InvocationEvent, InvocationEvents, Part

    events = InvocationEvents(
        invocation_events=[
            InvocationEvent(
                author="root",
                content=Content(role="model", parts=[Part(function_call=A), Part(function_call=B)]),
            ),
            InvocationEvent(
                author="helper", content=Content(role="model", parts=[Part(text="hi"), Part(function_call=X)])
            ),
        ]
    )
    actual = inv([]).model_copy(update={"intermediate_data": events})
    assert run(T, [actual], [inv([A, B, X])]).value == 1.0


# --- parameters -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, parsed",
    [
        ("EXACT", MatchType.EXACT),
        ("exact", MatchType.EXACT),
        ("in-order", MatchType.IN_ORDER),
        (" In Order ", MatchType.IN_ORDER),
        ("IN_ORDER", MatchType.IN_ORDER),
        ("any_order", MatchType.ANY_ORDER),
        ("Any-Order", MatchType.ANY_ORDER),
        (0, MatchType.EXACT),
        (1, MatchType.IN_ORDER),
        (2, MatchType.ANY_ORDER),
        (MatchType.ANY_ORDER, MatchType.ANY_ORDER),
    ],
)
def test_match_type_spellings(raw, parsed):
    assert T.Params.model_validate({"match_type": raw}).match_type is parsed


@pytest.mark.parametrize("raw", ["fuzzy", "", "INORDER", 3, -1, True, 1.0, None, [1]])
def test_invalid_match_type_lists_valid_values(raw):
    with pytest.raises(ValidationError) as info:
        T.Params.model_validate({"match_type": raw})
    message = str(info.value)
    for name in ("EXACT", "IN_ORDER", "ANY_ORDER", "0", "1", "2"):
        assert name in message


def test_params_defaults_camel_case_and_unknown_keys():
    params = T.Params()
    assert params.match_type is MatchType.EXACT and params.ignore_args is False
    camel = T.Params.model_validate({"matchType": "ANY_ORDER", "ignoreArgs": True})
    assert camel.match_type is MatchType.ANY_ORDER and camel.ignore_args is True
    with pytest.raises(ValidationError):
        T.Params.model_validate({"match": "EXACT"})
    assert T.Params(match_type="in_order").model_dump(mode="json") == {
        "match_type": "IN_ORDER",
        "ignore_args": False,
    }


def test_info():
    assert T.info.default_threshold == 1.0
    assert T.info.requires_expected is True
    assert (T.info.min_score, T.info.max_score, T.info.higher_is_better) == (0.0, 1.0, True)


# --- reasons --------------------------------------------------------------------------


def reason(actual, expected, **params):
    result = run(T, [inv(actual)], [inv(expected)], **params)
    return result.per_invocation[0].reason


def test_pass_has_no_reason():
    assert reason([A], [A]) is None


def test_exact_reason_names_first_mismatch_with_argument_difference():
    text = reason([A, call("get_weather", {"city": "paris"})], [A, call("get_weather", {"city": "Paris"})])
    assert "call #2 differs" in text
    assert "get_weather(city='Paris')" in text and "get_weather(city='paris')" in text
    assert "city: expected 'Paris', got 'paris'" in text


def test_exact_reason_extra_and_missing_calls():
    assert "unexpected extra" in reason([A, B], [A])
    assert "b(k=2) (#2)" in reason([A, B], [A])
    assert "missing: b(k=2) (#2)" in reason([A], [A, B])
    assert "expected no tool calls (EXACT), got 1" in reason([A], [])
    assert "no tool calls were made; expected 1: a(k=1)" in reason([], [A])


def test_reason_shows_type_difference_and_none_vs_empty():
    assert "n: expected '3' (str), got 3 (int)" in reason([call("f", {"n": 3})], [call("f", {"n": "3"})])
    text = reason([call("f")], [call("f", {})])
    assert "expected {}, got no 'args' key" in text and "never equals {}" in text


def test_in_order_reason():
    text = reason([B, A], [A, B], match_type="IN_ORDER")
    assert "expected call #2 b(k=2) was not found in order after a(k=1) (actual call #2)" in text
    assert "called earlier, at actual call #1 (out of order)" in text
    text = reason([A, X], [A, A], match_type="IN_ORDER")
    assert "a(k=1) is expected 2 times but was called once" in text
    text = reason([call("a", {"k": 5})], [A], match_type="IN_ORDER")
    assert "closest is actual call #1 a(k=5), arguments differ: k: expected 1, got 5" in text
    assert "no call to 'b' was made" in reason([A], [A, B], match_type="IN_ORDER")


def test_any_order_reason_lists_all_missing_calls():
    text = reason([X], [A, B], match_type="ANY_ORDER")
    assert text.startswith("2 of 2 expected calls not found: a(k=1) (#1), b(k=2) (#2)")
    assert "expected #1: no call to 'a' was made" in text


def test_ignore_args_reasons_show_names_only():
    text = reason([X], [A], match_type="ANY_ORDER", ignore_args=True)
    assert "a (#1)" in text and "k=1" not in text


def test_long_values_are_shortened():
    long_text = "word " * 100
    text = reason([call("f", {"text": long_text})], [call("f", {"text": long_text + "!"})])
    assert len(text) < 600 and "…" in text


def test_threshold_comes_from_context():
    evaluator = T(T.Params())
    result = evaluator.evaluate(context([inv([A]), inv([])], [inv([A]), inv([A])], threshold=0.5))
    assert result.value == 0.5
    assert result.reason.startswith("1 of 2 invocations scored below 0.5: #2 (0)")


def test_docs_examples():
    # The reasons quoted in docs/criteria/tool_trajectory_avg_score.md.
    paris, lower = call("get_weather", {"city": "Paris"}), call("get_weather", {"city": "paris"})
    assert reason([A, lower], [A, paris]) == (
        "call #2 differs: expected get_weather(city='Paris'), got get_weather(city='paris') "
        "(arguments differ: city: expected 'Paris', got 'paris')"
    )
    search, book = call("search", {"q": "x"}), call("book", {"id": 7})
    assert reason([book, X, search], [search, book], match_type="IN_ORDER") == (
        "expected call #2 book(id=7) was not found in order after search(q='x') (actual call #3); "
        "1 of 2 expected calls matched in order; it was called earlier, at actual call #1 (out of order)"
    )
    convert = call("convert", {"value": 21})
    assert reason([A, X, call("convert", {"value": "21"})], [A, convert], match_type="ANY_ORDER") == (
        "1 of 2 expected calls not found: convert(value=21) (#2); closest is actual call #3 "
        "convert(value='21'), arguments differ: value: expected 21 (int), got '21' (str)"
    )


# -- why an invocation failed: its aligned rows in the details ---------------------------


def _alignment(actual, expected, **params):
    result = run(T, [inv(actual)], [inv(expected)], **params)
    return result.per_invocation[0].details.get("alignment")


def test_a_passing_invocation_carries_no_alignment():
    assert _alignment([A, X, B], [A, B], match_type="IN_ORDER") is None


@pytest.mark.parametrize("match_type", ["EXACT", "IN_ORDER", "ANY_ORDER"])
def test_a_failed_invocation_carries_its_alignment_with_the_argument_that_differs(match_type):
    actual = [call("search", {"q": "Paris", "limit": 10}), X]
    expected = [call("search", {"q": "Paris", "limit": 5}), call("mail", {})]
    rows = _alignment(actual, expected, match_type=match_type)
    by_op = {row["op"]: row for row in rows}
    assert set(by_op) == {"args_differ", "missing", "extra"}
    diff = by_op["args_differ"]["arg_diffs"]
    assert diff == [
        {"key": "limit", "kind": "changed", "expected": 5, "actual": 10, "matcher": "exact", "score": 0.0}
    ]
    assert by_op["missing"]["name"] == "mail" and by_op["extra"]["name"] == "x"


def test_any_order_alignment_pairs_swapped_calls_and_ignore_args_names_only():
    rows = _alignment([B, A], [A, B, X], match_type="ANY_ORDER")
    assert [(r["op"], r["name"]) for r in rows] == [("match", "a"), ("match", "b"), ("missing", "x")]
    rows = _alignment([call("a", {"k": 9})], [call("a", {"k": 1}), B], ignore_args=True)
    assert [(r["op"], r["arg_diffs"]) for r in rows] == [("match", []), ("missing", [])]


def test_the_explaining_criterion_is_made_once_per_evaluator():
    """A large run fails thousands of invocations: the ``tool_trajectory_match_v2`` that
    aligns them is made on the first failure and kept, and gives the same rows after."""
    evaluator = T(T.Params(match_type="EXACT"))
    failing = context([inv([B, A])], [inv([A, B])], threshold=1.0)
    first = evaluator.evaluate(failing).per_invocation[0].details["alignment"]
    explainer = evaluator._explainer()
    assert evaluator.evaluate(failing).per_invocation[0].details["alignment"] == first
    assert evaluator._explainer() is explainer
    assert T(T.Params(match_type="EXACT"))._explainer() is not explainer
