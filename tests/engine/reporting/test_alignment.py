"""``agenteval.plugins.align_trajectory``: expected against actual tool calls, row by row."""

from __future__ import annotations

from agenteval.models import FunctionCall
from agenteval.plugins import align_trajectory
from hypothesis import given
from hypothesis import strategies as st

_calls = st.lists(
    st.tuples(
        st.sampled_from(["search", "book", "pay", "cancel"]), st.sampled_from([{}, {"q": 1}, {"q": 2}])
    ),
    max_size=7,
)


def _dicts(calls):
    return [{"name": name, "args": args} for name, args in calls]


def _ops(rows):
    return [(r.op, r.name, r.expected_index, r.actual_index) for r in rows]


@given(_calls, _calls)
def test_every_expected_and_actual_call_appears_exactly_once_in_order(expected, actual):
    rows = align_trajectory(_dicts(expected), _dicts(actual))
    exp = [r.expected_index for r in rows if r.expected_index is not None]
    act = [r.actual_index for r in rows if r.actual_index is not None]
    assert exp == list(range(len(expected)))
    assert act == list(range(len(actual)))
    for row in rows:
        if row.op in ("match", "args_differ"):
            assert expected[row.expected_index][0] == actual[row.actual_index][0] == row.name
            assert (row.op == "match") == (expected[row.expected_index][1] == actual[row.actual_index][1])
        elif row.op == "missing":
            assert row.actual_index is None and row.name == expected[row.expected_index][0]
        else:
            assert row.op == "extra" and row.expected_index is None


@given(_calls)
def test_identical_lists_give_only_matches(calls):
    rows = align_trajectory(_dicts(calls), _dicts(calls))
    assert [r.op for r in rows] == ["match"] * len(calls)
    assert all(r.arg_diffs == () for r in rows)


@given(_calls, _calls)
def test_swapping_the_sides_swaps_missing_and_extra(expected, actual):
    forward = align_trajectory(_dicts(expected), _dicts(actual))
    backward = align_trajectory(_dicts(actual), _dicts(expected))
    assert backward == [row.swapped() for row in forward]


@given(_calls, _calls)
def test_as_many_calls_are_paired_as_a_longest_common_subsequence_of_names(expected, actual):
    a, b = [n for n, _ in expected], [n for n, _ in actual]
    lcs = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            lcs[i][j] = lcs[i + 1][j + 1] + 1 if a[i] == b[j] else max(lcs[i + 1][j], lcs[i][j + 1])
    rows = align_trajectory(_dicts(expected), _dicts(actual))
    assert sum(r.op in ("match", "args_differ") for r in rows) == lcs[0][0]


def test_a_repeated_tool_pairs_the_call_with_the_same_arguments():
    rows = align_trajectory(
        _dicts([("search", {"q": 1}), ("search", {"q": 2})]), _dicts([("search", {"q": 2})])
    )
    assert _ops(rows) == [("missing", "search", 0, None), ("match", "search", 1, 0)]


def test_argument_differences_are_listed_per_key():
    rows = align_trajectory(
        [FunctionCall(name="book", args={"city": "Paris", "nights": 2, "pets": False})],
        [FunctionCall(name="book", args={"city": "Lyon", "nights": 2, "late": True})],
    )
    [row] = rows
    assert row.op == "args_differ"
    assert [(d.key, d.kind, d.expected, d.actual) for d in row.arg_diffs] == [
        ("city", "changed", "Paris", "Lyon"),
        ("late", "extra", None, True),
        ("pets", "missing", False, None),
    ]
    assert row.to_json()["arg_diffs"][0] == {
        "key": "city",
        "kind": "changed",
        "expected": "Paris",
        "actual": "Lyon",
    }


def test_missing_and_extra_calls_keep_their_places():
    rows = align_trajectory(
        _dicts([("a", {}), ("b", {}), ("c", {})]), _dicts([("a", {}), ("x", {}), ("c", {})])
    )
    ops = [(r.op, r.name) for r in rows]
    assert ops[0] == ("match", "a") and ops[-1] == ("match", "c")
    assert sorted(ops[1:3]) == [("extra", "x"), ("missing", "b")]


def test_no_calls_on_either_side_gives_no_rows_and_none_args_count_as_empty():
    assert align_trajectory([], []) == []
    [row] = align_trajectory([{"name": "a", "args": None}], [{"name": "a", "args": {}}])
    assert row.op == "match"


# -- rows a criterion recorded: read back and written as text ----------------------------


def test_rows_round_trip_through_details_with_similarity_matcher_and_turns():
    from agenteval._reporting import rows_from_details
    from agenteval.plugins import ArgDiff, TrajectoryRow

    row = TrajectoryRow(
        "args_differ",
        "search",
        0,
        1,
        {"limit": 5},
        {"limit": 10},
        (ArgDiff("limit", "changed", 5, 10, matcher="number(abs_tol=1)", score=0.0),),
        similarity=0.5,
        expected_turn=0,
        actual_turn=1,
    )
    plain = TrajectoryRow("missing", "mail", 2, None, {}, None)
    details = {"alignment": [row.to_json(), plain.to_json(), {"op": "nonsense"}, "junk"]}
    assert rows_from_details(details) == [row, plain]
    assert "similarity" not in plain.to_json()  # the shape viewers already read is unchanged
    assert rows_from_details({}) is None
    assert rows_from_details({"alignment": "x"}) is None


def test_row_text():
    from agenteval.plugins import ArgDiff, TrajectoryRow, row_text

    diff = ArgDiff("limit", "changed", 5, 10, matcher="exact", score=0.0)
    same = ArgDiff("q", "equivalent", "paris", "PARIS", matcher="casefold", score=1.0)
    partial = TrajectoryRow("args_differ", "search", 0, 0, {}, {"limit": 10}, (diff, same), similarity=0.5)
    assert row_text(partial) == (
        '~ search(limit=10) · 0.5 · limit: expected 5, got 10 [exact]; q: accepted "paris", got "PARIS" '
        "[casefold]"
    )
    assert (
        row_text(TrajectoryRow("missing", "mail", 2, None, {"to": "a"}, None))
        == '- missing mail(to="a") (expected #3)'
    )
    assert (
        row_text(TrajectoryRow("extra", "x", None, 0, None, {}, actual_turn=1))
        == "+ extra x() (actual #1, turn 2)"
    )
    assert (
        row_text(TrajectoryRow("match", "book", 0, 0, {"id": 1}, {"id": 1}, similarity=1.0)) == "= book(id=1)"
    )


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=5,
)


@given(
    st.fixed_dictionaries(
        {},
        optional={
            key: _JSON | st.sampled_from(["match", "missing"])
            for key in (
                "op",
                "name",
                "expected_index",
                "actual_index",
                "similarity",
                "arg_diffs",
                "expected_turn",
            )
        },
    )
)
def test_a_row_of_any_json_is_read_or_left_out_never_an_exception(data):
    """A record edited by hand holds anything where a row was (an ``op`` that is a list, an
    infinite index): its rows are read or left out; a report of it never ends in a traceback."""
    from agenteval.plugins import rows_from_details

    rows = rows_from_details({"alignment": [data]})
    assert rows is not None and len(rows) <= 1
    for row in rows:
        assert (
            row.op in ("match", "missing")
            and row.expected_index is None
            or isinstance(row.expected_index, int)
        )
