"""``tool_trajectory_match_v2``: scores, alignment, ADK identity and the properties of issue 22."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest
from agenteval.models import Invocation
from agenteval_builtin._assignment import max_weight_matching
from agenteval_builtin._field_matchers import FieldMatch
from agenteval_builtin.trajectory import ToolTrajectoryAvgScore
from agenteval_builtin.trajectory_v2 import ToolTrajectoryMatchV2
from agenteval_builtin_test_helpers import call, calls_st, context, inv, run
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

V2 = ToolTrajectoryMatchV2
FAST = settings(max_examples=150, deadline=None)
GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "adk_golden" / "synthetic.json"


def score(actual, expected, **params) -> float:
    result = run(V2, [inv(actual)], [inv(expected)], **params)
    assert result.value is not None
    return result.value


def details(actual, expected, **params) -> dict[str, Any]:
    return run(V2, [inv(actual)], [inv(expected)], **params).per_invocation[0].details


# -- scores ---------------------------------------------------------------------------

SEARCH5 = call("search", {"query": "Paris hotels", "limit": 5})
SEARCH10 = call("search", {"query": "Paris hotels", "limit": 10})
BOOK = call("book", {"id": 1})
MAIL = call("mail", {})


def test_issue_example_partial_arguments_earn_partial_credit():
    # The issue's user: limit=10 where 5 was expected no longer zeroes the turn.
    params = {"match_type": "IN_ORDER", "args": {"mode": "partial"}}
    assert score([SEARCH10], [SEARCH5], **params) == 0.5
    assert score([SEARCH10], [SEARCH5], score="binary", **params) == 0.0
    (row,) = details([SEARCH10], [SEARCH5], **params)["alignment"]
    assert row["op"] == "args_differ" and row["similarity"] == 0.5
    assert row["arg_diffs"] == [
        {"key": "limit", "kind": "changed", "expected": 5, "actual": 10, "matcher": "exact", "score": 0.0}
    ]


@pytest.mark.parametrize(
    "kind, want",
    [("precision", 1 / 2), ("recall", 1 / 3), ("f1", 0.4), ("f_beta", (1 + 4) * (1 / 6) / (4 * 0.5 + 1 / 3))],
)
def test_precision_recall_f1_f_beta(kind, want):
    extra = {"beta": 2.0} if kind == "f_beta" else {}
    assert score(
        [BOOK, SEARCH10], [BOOK, SEARCH5, MAIL], match_type="IN_ORDER", score=kind, **extra
    ) == pytest.approx(want)


def test_exact_is_position_by_position_and_in_order_survives_an_insertion():
    actual, expected = [BOOK, MAIL, SEARCH5], [BOOK, SEARCH5]
    assert score(actual, expected, match_type="EXACT") == pytest.approx(
        2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2)
    )
    assert score(actual, expected, match_type="IN_ORDER", score="recall") == 1.0


@pytest.mark.parametrize(
    "match_type, actual, expected, want",
    [
        ("SUBSET", [BOOK], [BOOK, MAIL], 1.0),
        ("SUBSET", [BOOK, MAIL], [BOOK], 0.0),
        ("SUPERSET", [BOOK, MAIL], [BOOK], 1.0),
        ("SUPERSET", [BOOK], [BOOK, MAIL], 0.0),
        ("ANY_ORDER", [MAIL, BOOK], [BOOK, MAIL], 1.0),
        ("IN_ORDER", [MAIL, BOOK], [BOOK, MAIL], 0.0),
        ("EXACT", [BOOK, MAIL], [BOOK, MAIL], 1.0),
    ],
)
def test_binary_requires_the_side_each_match_type_names(match_type, actual, expected, want):
    assert score(actual, expected, match_type=match_type, score="binary") == want


@pytest.mark.parametrize(
    "match_type, actual, expected, adk, strict",
    [
        ("IN_ORDER", [BOOK], [], 1.0, 0.0),
        ("ANY_ORDER", [BOOK], [], 1.0, 0.0),
        ("SUPERSET", [BOOK], [], 1.0, 0.0),
        ("EXACT", [BOOK], [], 0.0, 0.0),
        ("SUBSET", [], [BOOK], 1.0, 0.0),
        ("IN_ORDER", [], [BOOK], 0.0, 0.0),
        ("EXACT", [], [], 1.0, 1.0),
        ("SUBSET", [], [], 1.0, 1.0),
    ],
)
def test_empty_sides(match_type, actual, expected, adk, strict):
    for kind in ("binary", "f1", "precision"):
        assert score(actual, expected, match_type=match_type, score=kind, empty="adk") == adk
        assert score(actual, expected, match_type=match_type, score=kind, empty="strict") == strict


def test_ignore_tools_are_dropped_on_both_sides():
    transfer = call("transfer_to_agent", {"agent_name": "x"})
    assert score([transfer, BOOK], [BOOK], match_type="EXACT", score="binary") == 0.0
    assert (
        score(
            [transfer, BOOK], [BOOK], match_type="EXACT", score="binary", ignore_tools=["transfer_to_agent"]
        )
        == 1.0
    )
    rows = details([transfer, SEARCH10], [SEARCH5], ignore_tools=["transfer_to_agent"])["alignment"]
    assert rows[0]["actual_index"] == 1  # the position in the turn, as the agent called it


def test_conversation_scope_aligns_the_concatenated_turns():
    # The book call moved to the next turn: per invocation it is missing then extra.
    actual = [inv([SEARCH5]), inv([BOOK, MAIL])]
    expected = [inv([SEARCH5, BOOK]), inv([MAIL])]
    per_turn = run(V2, actual, expected, match_type="IN_ORDER", score="recall")
    whole = run(V2, actual, expected, match_type="IN_ORDER", score="recall", scope="conversation")
    assert per_turn.value == pytest.approx(0.75)
    assert whole.value == 1.0 and whole.per_invocation == []
    assert "alignment" not in whole.details
    moved = run(
        V2, [inv([BOOK]), inv([])], [inv([]), inv([MAIL])], scope="conversation", match_type="IN_ORDER"
    )
    turns = {(r["op"], r.get("actual_turn"), r.get("expected_turn")) for r in moved.details["alignment"]}
    assert turns == {("extra", 0, None), ("missing", None, 1)}


def test_a_perfect_invocation_carries_no_alignment_and_no_reason():
    result = run(V2, [inv([BOOK, MAIL])], [inv([BOOK, MAIL])])
    assert result.value == 1.0
    assert result.per_invocation[0].reason is None
    assert "alignment" not in result.per_invocation[0].details


def test_reason_names_missing_extra_and_partial_calls():
    result = run(
        V2, [inv([SEARCH10, BOOK])], [inv([SEARCH5, MAIL])], match_type="ANY_ORDER", args={"mode": "partial"}
    )
    assert result.per_invocation[0].reason == (
        'precision 0.25, recall 0.25; ~ search(query="Paris hotels", limit=10) · 0.5 · limit: expected 5, '
        "got 10 [exact]; - missing mail() (expected #2); + extra book(id=1) (actual #2)"
    )


def test_same_tool_with_other_arguments_is_shown_side_by_side_at_similarity_zero():
    rows = details([SEARCH10], [SEARCH5])["alignment"]
    assert [(r["op"], r["similarity"]) for r in rows] == [("args_differ", 0.0)]


# -- argument modes and matchers ------------------------------------------------------

A = {"q": "a", "lang": "en", "limit": 5}


@pytest.mark.parametrize(
    "args, actual, expected, want",
    [
        ({"mode": "exact"}, A, A, 1.0),
        ({"mode": "exact"}, {**A, "x": 1}, A, 0.0),
        ({"mode": "ignore"}, {"z": 0}, A, 1.0),
        ({"mode": "subset"}, {"q": "a"}, A, 1.0),
        ({"mode": "subset"}, {**A, "x": 1}, A, 0.0),
        ({"mode": "superset"}, {**A, "x": 1}, A, 1.0),
        ({"mode": "superset"}, {"q": "a"}, A, 0.0),
        ({"mode": "partial"}, {"q": "a", "lang": "fr", "x": 9}, A, 1 / 3),
        ({"mode": "partial"}, {"q": "a"}, {}, 1.0),
        ({"mode": "partial", "partial_formula": "jaccard"}, {"q": "a", "lang": "fr", "x": 9}, A, 1 / 4),
        (
            {"mode": "partial", "partial_formula": "jaccard"},
            {"f": {"a": 1, "b": 2}},
            {"f": {"a": 1, "b": 3}},
            0.5,
        ),
        (
            {"mode": "exact", "keys": ["q", "f.lang"]},
            {"q": "a", "f": {"lang": "en", "x": 1}},
            {"q": "a", "f": {"lang": "en"}},
            1.0,
        ),
        (
            {"mode": "exact", "ignore_keys": ["request_id"]},
            {**A, "request_id": "r1"},
            {**A, "request_id": "r2"},
            1.0,
        ),
        ({"mode": "exact", "ignore_keys": ["f.id"]}, {"f": {"id": 1, "a": 2}}, {"f": {"id": 2, "a": 2}}, 1.0),
        ({"coerce": "json_scalars"}, {"n": "3"}, {"n": 3}, 1.0),
        ({"coerce": "none"}, {"n": "3"}, {"n": 3}, 0.0),
        ({"coerce": "none"}, {"n": 3.0}, {"n": 3}, 1.0),
        ({"fields": {"q": {"match": "casefold"}}}, {"q": "PARIS"}, {"q": "paris"}, 1.0),
        ({"fields": {"p": {"match": "number", "abs_tol": 0.01}}}, {"p": 9.995}, {"p": 10}, 1.0),
        ({"fields": {"p": {"match": "number", "abs_tol": 0.01}}}, {"p": 9.9}, {"p": 10}, 0.0),
        (
            {"fields": {"d": {"match": "regex", "pattern": "^2026-"}}},
            {"d": "2026-05-01"},
            {"d": "2026-01-01"},
            1.0,
        ),
        (
            {"fields": {"d": {"match": "regex", "pattern": "^2026-"}}},
            {"d": "2025-05-01"},
            {"d": "2026-01-01"},
            0.0,
        ),
        ({"fields": {"f.lang": {"match": "casefold"}}}, {"f": {"lang": "EN"}}, {"f": {"lang": "en"}}, 1.0),
        (
            {"fields": {"f.lang": {"match": "casefold"}}},
            {"f": {"lang": "EN", "x": 1}},
            {"f": {"lang": "en"}},
            0.0,
        ),
    ],
)
def test_argument_modes(args, actual, expected, want):
    got = score(
        [call("t", actual)], [call("t", expected)], match_type="IN_ORDER", score="precision", args=args
    )
    assert got == pytest.approx(want)


def test_missing_args_differ_from_empty_only_in_exact_mode():
    assert score([call("t")], [call("t", {})], score="binary") == 0.0
    assert score([call("t")], [call("t", {})], score="binary", args={"mode": "superset"}) == 1.0


def test_per_tool_overrides_replace_the_keys_they_give():
    args = {"mode": "exact", "per_tool": {"search": {"mode": "partial"}}}
    assert score([SEARCH10], [SEARCH5], args=args) == 0.5
    assert score([call("book", {"id": 2})], [BOOK], args=args) == 0.0


def test_equivalent_values_are_listed_with_the_matcher_that_accepted_them():
    args = {"fields": {"q": {"match": "casefold"}}}
    (row,) = details([call("t", {"q": "PARIS", "n": 1})], [call("t", {"q": "paris", "n": 2})], args=args)[
        "alignment"
    ]
    kinds = {d["key"]: (d["kind"], d["matcher"]) for d in row["arg_diffs"]}
    assert kinds == {"q": ("equivalent", "casefold"), "n": ("changed", "exact")}


def test_a_local_function_matcher(tmp_path):
    (tmp_path / "matchers.py").write_text(
        "def same_meaning(actual, expected):\n    return 0.5 if actual != expected else True\n",
        encoding="utf-8",
    )
    args = {"mode": "partial", "fields": {"note": {"match": "matchers.py:same_meaning"}}}
    params = V2.Params.model_validate({"args": args}, context={"config_dir": tmp_path})
    result = V2(params).evaluate(
        context([inv([call("t", {"note": "hi"})])], [inv([call("t", {"note": "hello"})])], 1.0)
    )
    assert result.value == 0.5
    assert (
        result.per_invocation[0].details["alignment"][0]["arg_diffs"][0]["matcher"]
        == "matchers.py:same_meaning"
    )


def test_a_local_function_matcher_that_misbehaves_is_named_in_the_error(tmp_path):
    (tmp_path / "bad.py").write_text("def m(actual, expected):\n    return 'yes'\n", encoding="utf-8")
    params = V2.Params.model_validate(
        {"args": {"fields": {"n": {"match": "bad.py:m"}}}}, context={"config_dir": tmp_path}
    )
    with pytest.raises(TypeError, match="bad.py:m returned 'yes'"):
        V2(params).evaluate(context([inv([call("t", {"n": 1})])], [inv([call("t", {"n": 1})])], 1.0))


# -- bad configurations (the CLI test is in test_trajectory_v2_cli.py) ----------------


@pytest.mark.parametrize(
    "params, fragment",
    [
        ({"match_type": "SOMETIMES"}, "invalid match_type 'SOMETIMES'"),
        ({"score": "accuracy"}, "binary"),
        ({"beta": 0, "score": "f_beta"}, "beta must be greater than 0"),
        ({"beta": 2.0}, 'beta is used by score "f_beta" only'),
        ({"args": {"mode": "fuzzy"}}, "partial"),
        ({"args": {"fields": {"d": {"match": "regex", "pattern": "(["}}}}, "does not compile"),
        ({"args": {"fields": {"d": {"match": "regex"}}}}, 'needs "pattern"'),
        (
            {"args": {"fields": {"d": {"match": "number", "pattern": "x"}}}},
            '"pattern" applies to the "regex"',
        ),
        ({"args": {"fields": {"d": {"match": "casefold", "abs_tol": 1}}}}, "abs_tol apply to the"),
        ({"args": {"fields": {"d": {"match": "soundex"}}}}, "unknown matcher 'soundex'"),
        ({"args": {"fields": {"d": {"match": "nowhere.py:f"}}}}, "no file 'nowhere.py'"),
        ({"args": {"keys": ["a..b"]}}, "is not a key path"),
    ],
)
def test_bad_configs_are_rejected(params, fragment):
    with pytest.raises(ValidationError, match=fragment.replace("(", r"\(").replace("[", r"\[")):
        V2.Params.model_validate(params)


def test_match_type_reads_adk_spellings():
    assert V2.Params.model_validate({"match_type": "in-order"}).match_type.value == "IN_ORDER"
    assert V2.Params.model_validate({"match_type": 2}).match_type.value == "ANY_ORDER"
    assert V2.Params.model_validate({"matchType": "superset"}).match_type.value == "SUPERSET"


# -- the LangChain counter-example -----------------------------------------------------


def test_langchain_greedy_counter_example_passes_with_the_optimal_alignment():
    expected = [call("s", {"q": "a"}), call("s", {"q": "a", "lang": "en"})]
    actual = [call("s", {"q": "a", "lang": "en"}), call("s", {"q": "a", "lang": "fr"})]
    preset = {"match_type": "SUPERSET", "score": "binary", "args": {"mode": "superset"}}
    assert score(actual, expected, **preset) == 1.0
    assert score(actual, expected, alignment="greedy", **preset) == 0.0  # LangChain's answer


# -- properties -------------------------------------------------------------------------

ARGS_ST = st.sampled_from(
    [
        {"mode": "exact"},
        {"mode": "ignore"},
        {"mode": "subset"},
        {"mode": "superset"},
        {"mode": "partial"},
        {"mode": "partial", "partial_formula": "jaccard"},
        {"mode": "exact", "coerce": "json_scalars"},
    ]
)
UNORDERED = ["ANY_ORDER", "SUBSET", "SUPERSET"]
KINDS = ["binary", "f1", "precision", "recall", "f_beta"]


def _v2(actual, expected, **params) -> float:
    extra = {"beta": 0.5} if params.get("score") == "f_beta" else {}
    return score(actual, expected, **params, **extra)


@FAST
@given(
    calls_st,
    calls_st,
    ARGS_ST,
    st.sampled_from(["EXACT", "IN_ORDER", *UNORDERED]),
    st.sampled_from(["adk", "strict"]),
)
def test_f1_is_symmetric_and_precision_recall_swap(actual, expected, args, match_type, empty):
    if match_type in ("SUBSET", "SUPERSET") or args["mode"] in ("subset", "superset", "partial"):
        return  # these settings are asymmetric on purpose
    base = {"match_type": match_type, "args": args, "empty": "strict"}
    assert _v2(actual, expected, score="f1", **base) == pytest.approx(
        _v2(expected, actual, score="f1", **base)
    )
    assert _v2(actual, expected, score="precision", **base) == pytest.approx(
        _v2(expected, actual, score="recall", **base)
    )


@FAST
@given(calls_st, calls_st, ARGS_ST, st.sampled_from(KINDS), st.sampled_from(["adk", "strict"]))
def test_exact_one_implies_in_order_one_implies_any_order_one(actual, expected, args, kind, empty):
    common = {"args": args, "score": kind, "empty": empty}
    if _v2(actual, expected, match_type="EXACT", **common) == 1.0:
        assert _v2(actual, expected, match_type="IN_ORDER", **common) == 1.0
    if _v2(actual, expected, match_type="IN_ORDER", **common) == 1.0:
        assert _v2(actual, expected, match_type="ANY_ORDER", **common) == 1.0


@FAST
@given(
    calls_st,
    calls_st,
    ARGS_ST,
    st.sampled_from(["EXACT", "IN_ORDER", *UNORDERED]),
    st.sampled_from(KINDS),
    st.sampled_from(["adk", "strict"]),
)
def test_optimal_is_never_below_greedy_and_scores_stay_in_range(
    actual, expected, args, match_type, kind, empty
):
    common = {"args": args, "match_type": match_type, "score": kind, "empty": empty}
    optimal = _v2(actual, expected, alignment="optimal", **common)
    greedy = _v2(actual, expected, alignment="greedy", **common)
    assert 0.0 <= greedy <= optimal + 1e-12 <= 1.0 + 1e-12


@FAST
@given(
    calls_st,
    calls_st,
    ARGS_ST,
    st.sampled_from(UNORDERED),
    st.sampled_from(KINDS),
    st.randoms(use_true_random=False),
)
def test_permuting_calls_leaves_unordered_scores_unchanged(actual, expected, args, match_type, kind, rnd):
    common = {"args": args, "match_type": match_type, "score": kind}
    before = _v2(actual, expected, **common)
    shuffled_actual, shuffled_expected = list(actual), list(expected)
    rnd.shuffle(shuffled_actual)
    rnd.shuffle(shuffled_expected)
    assert _v2(shuffled_actual, shuffled_expected, **common) == pytest.approx(before)


ADK_TYPES = ["EXACT", "IN_ORDER", "ANY_ORDER"]


@FAST
@given(
    st.lists(st.tuples(calls_st, calls_st), min_size=1, max_size=3),
    st.sampled_from(ADK_TYPES),
    st.booleans(),
    st.sampled_from(["optimal", "greedy"]),
    st.sampled_from(["legacy", "events"]),
)
def test_identity_with_tool_trajectory_avg_score(turns, match_type, ignore_args, alignment, form):
    actual = [inv(a, form=form) for a, _ in turns]
    expected = [inv(e, form=form) for _, e in turns]
    adk = run(ToolTrajectoryAvgScore, actual, expected, match_type=match_type, ignore_args=ignore_args)
    mode = "ignore" if ignore_args else "exact"
    ours = run(
        V2,
        actual,
        expected,
        match_type=match_type,
        score="binary",
        empty="adk",
        alignment=alignment,
        args={"mode": mode},
    )
    assert ours.value == adk.value
    assert [s.score for s in ours.per_invocation] == [s.score for s in adk.per_invocation]


def _golden_cases() -> list[dict[str, Any]]:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", _golden_cases(), ids=lambda c: c["name"])
def test_identity_with_adk_213_golden_scores(case):
    """The scores google-adk 2.13.0 itself computed (tests/fixtures/adk_golden)."""
    actual = [Invocation.model_validate(i) for i in case["actual"]]
    expected = [Invocation.model_validate(i) for i in case["expected"]]
    for key, theirs in case["adk_scores"].items():
        if not key.startswith("tool_trajectory_avg_score:"):
            continue
        _, match_type, how = key.split(":")
        mode = "ignore" if how == "ignore_args" else "exact"
        ours = run(V2, actual, expected, match_type=match_type, score="binary", args={"mode": mode})
        assert [s.score for s in ours.per_invocation] == pytest.approx(theirs["per_invocation"], abs=1e-9), (
            key
        )
        assert ours.value == pytest.approx(theirs["overall"], abs=1e-9), key


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=8,
)
MATCHERS = [
    {"match": "exact"},
    {"match": "casefold"},
    {"match": "number", "abs_tol": 0.5, "rel_tol": 0.1},
    {"match": "regex", "pattern": "^a"},
]


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES, JSON_VALUES, st.sampled_from(MATCHERS), st.booleans())
def test_matchers_are_total(actual, expected, spec, loose):
    value = FieldMatch.model_validate(spec).matcher(loose)(actual, expected)
    assert value in (0.0, 1.0)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.sampled_from("abc"), JSON_VALUES, max_size=3) | st.none(),
    st.dictionaries(st.sampled_from("abc"), JSON_VALUES, max_size=3) | st.none(),
    ARGS_ST,
)
def test_argument_comparison_is_total_and_in_range(actual, expected, args):
    params = V2.Params.model_validate({"args": {**args, "fields": {"b": {"match": "casefold"}}}})
    similarity, _ = params.args.rule_for("t").compare(actual, expected, explain=True)
    assert 0.0 <= similarity <= 1.0


# -- the assignment solver ---------------------------------------------------------------


def _brute_force(weights: list[list[float]]) -> float:
    n, m = len(weights), len(weights[0])
    if n <= m:
        return max(
            sum(weights[i][c] for i, c in enumerate(cols)) for cols in itertools.permutations(range(m), n)
        )
    return max(sum(weights[r][j] for j, r in enumerate(rows)) for rows in itertools.permutations(range(n), m))


WEIGHT = st.sampled_from([0.0, 0.25, 0.5, 1.0]) | st.floats(0, 1)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 5).flatmap(
        lambda m: st.lists(st.lists(WEIGHT, min_size=m, max_size=m), min_size=1, max_size=5)
    )
)
def test_assignment_is_optimal_against_brute_force(weights):
    pairs = max_weight_matching(weights)
    assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})
    assert all(weights[i][j] > 0 for i, j in pairs)
    assert math.fsum(weights[i][j] for i, j in pairs) == pytest.approx(_brute_force(weights), abs=1e-9)


@FAST
@given(calls_st, calls_st, st.booleans())
def test_presets_reproduce_trajectory_precision_and_recall(actual, expected, ignore_args):
    from agenteval_builtin.partial_trajectory import TrajectoryPrecision, TrajectoryRecall

    args = {"mode": "ignore" if ignore_args else "exact"}
    precision = score(actual, expected, match_type="ANY_ORDER", score="precision", empty="strict", args=args)
    recall = score(actual, expected, match_type="ANY_ORDER", score="recall", empty="adk", args=args)
    assert precision == pytest.approx(
        run(TrajectoryPrecision, [inv(actual)], [inv(expected)], ignore_args=ignore_args).value
    )
    assert recall == pytest.approx(
        run(TrajectoryRecall, [inv(actual)], [inv(expected)], ignore_args=ignore_args).value
    )


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from("abc"), JSON_VALUES, max_size=3) | st.none(),
    st.dictionaries(st.sampled_from("abc"), JSON_VALUES, max_size=3) | st.none(),
    ARGS_ST,
)
def test_the_equality_fast_path_scores_as_the_key_by_key_path(actual, expected, args):
    rule = V2.Params.model_validate({"args": args}).args.rule_for("t")
    assert rule.compare(actual, expected)[0] == pytest.approx(rule.compare(actual, expected, explain=True)[0])
