"""Per-eval-set statistics (the unit is the case): intervals that contain their estimate,
widen with the level, ignore the order cases finished in, and leave a deterministic
single-run set's verdicts as they were."""

from __future__ import annotations

import random

import pytest
from agenteval import CaseResult, CriterionResult, PluginInfo, Status, VerdictInfo
from agenteval._verdicts import SummaryBuilder, set_criterion_summary
from agenteval.runs import CriterionEntry, EvalSetEntry
from hypothesis import given, settings
from hypothesis import strategies as st

PLUGIN = PluginInfo(distribution="d", version="1", entry_point="m:E")


def entry(name: str = "c", threshold=0.5, **extra) -> CriterionEntry:
    return CriterionEntry(
        name=name, distribution="d", version="1", entry_point="m:E", threshold=threshold, **extra
    )


def unit(case_id: str, runs, threshold: float = 0.5):
    scored = [r for r in runs if r is not None]
    mean = sum(scored) / len(scored) if scored else None
    passed = mean is not None and mean >= threshold
    return (case_id, tuple(runs), "PASS" if passed else "FAIL", passed, "single-run")


scores = st.floats(0.0, 1.0, allow_nan=False)
case_runs = st.lists(st.lists(scores, min_size=1, max_size=3), min_size=1, max_size=25)


@settings(deadline=None, max_examples=40)
@given(runs=case_runs)
def test_the_mean_interval_contains_the_estimate_and_widens_with_the_level(runs):
    units = [unit(f"case{i}", r) for i, r in enumerate(runs)]
    narrow = set_criterion_summary(entry(), units, level=0.8, run_id="r", index=0)
    wide = set_criterion_summary(entry(), units, level=0.99, run_id="r", index=0)
    for found in (narrow, wide):
        assert found.mean.low <= found.mean.estimate <= found.mean.high
        assert found.pass_rate.low <= found.pass_rate.estimate <= found.pass_rate.high
        assert found.n_cases == len(runs) == found.mean.n
    assert wide.pass_rate.low <= narrow.pass_rate.low and wide.pass_rate.high >= narrow.pass_rate.high
    if narrow.mean.method == wide.mean.method and narrow.mean.method != "bca":
        assert wide.mean.low <= narrow.mean.low + 1e-12 and wide.mean.high >= narrow.mean.high - 1e-12


@settings(deadline=None, max_examples=25)
@given(runs=case_runs, seed=st.integers(0, 1000))
def test_the_order_cases_finished_in_changes_nothing(runs, seed):
    units = [unit(f"case{i:03d}", r) for i, r in enumerate(runs)]
    shuffled = list(units)
    random.Random(seed).shuffle(shuffled)
    a = set_criterion_summary(entry(), units, level=0.95, run_id="r", index=0)
    b = set_criterion_summary(entry(), shuffled, level=0.95, run_id="r", index=0)
    assert a == b


def test_golden_pass_rate_and_methods():
    units = [unit(f"c{i:02d}", [1.0 if i < 32 else 0.0]) for i in range(40)]
    found = set_criterion_summary(entry(), units, level=0.95, run_id="r", index=0)
    assert (round(found.pass_rate.low, 3), round(found.pass_rate.high, 3)) == (0.644, 0.909)
    assert found.mean.method == "clopper-pearson"  # 0/1 case scores
    assert found.verdict == "FAIL" and found.verdict_counts["FAIL"] == 8
    bounded = [unit(f"c{i:02d}", [0.5 + (i % 5) / 10]) for i in range(25)]
    bca = set_criterion_summary(entry(), bounded, level=0.95, run_id="r", index=3)
    assert bca.mean.method == "bca" and bca.mean.seed is not None and bca.mean.n == 25
    few = set_criterion_summary(entry(), bounded[:5], level=0.95, run_id="r", index=3)
    assert few.mean.method == "betting"


def test_missing_scores_widen_by_manski_bounds():
    units = [unit("a", [0.9]), unit("b", [0.8]), unit("c", [None])]
    found = set_criterion_summary(entry(), units, level=0.95, run_id="r", index=0)
    assert found.mean.n == 2 and found.mean.n_missing == 1
    assert found.verdict == "FAIL"  # a case with no score cannot pass
    complete = set_criterion_summary(entry(), units[:2], level=0.95, run_id="r", index=0)
    assert found.mean.low <= complete.mean.low and found.mean.high >= complete.mean.high


def test_informational_and_unbounded_criteria_have_no_verdict_nor_mean():
    units = [("a", (3.0,), "NOT_EVALUATED", False), ("b", (5.0,), "NOT_EVALUATED", False)]
    found = set_criterion_summary(
        entry("count", threshold=None, informational=True, max_score=None),
        units,
        level=0.95,
        run_id="r",
        index=0,
    )
    assert found.verdict is None and found.pass_rate is None and found.mean is None
    assert found.between_case_sd == pytest.approx(2**0.5)


def _case(case_id: str, status: Status, score: float, verdict=None) -> CaseResult:
    result = CriterionResult(
        criterion="c",
        threshold=0.5,
        score=score,
        status=status,
        plugin=PLUGIN,
        verdict=VerdictInfo(verdict=verdict, basis="single-run", reason="r") if verdict else None,
    )
    return CaseResult(eval_id=case_id, status=status, criteria=[result])


def test_a_deterministic_single_run_set_keeps_its_point_verdicts():
    eval_set = EvalSetEntry(index=0, eval_set_id="s", case_ids=["a", "b"], criteria=[entry()])
    builder = SummaryBuilder(0.95, "run-1")
    builder.add(_case("a", Status.PASSED, 0.9, "PASS"), eval_set)
    builder.add(_case("b", Status.FAILED, 0.2, "FAIL"), eval_set)
    summary = builder.build()
    (found,) = summary.eval_sets[0].criteria
    assert found.verdict_counts == {"PASS": 1, "FAIL": 1, "INCONCLUSIVE": 0, "NOT_EVALUATED": 0}
    assert found.verdict == "FAIL" and summary.status is Status.FAILED
    assert found.pass_rate.estimate == 0.5
    # Without statistics (--no-stats), no set statistics.
    plain = SummaryBuilder(None, "run-1")
    plain.add(_case("a", Status.PASSED, 0.9), eval_set)
    assert plain.build().eval_sets == []


def test_judge_agreement_from_recorded_votes_matches_the_krippendorff_library():
    import krippendorff
    from agenteval._verdicts import _add_votes, _agreement

    group: dict = {}
    votes = [(5, 0), (3, 2), (4, 1), (0, 5), (2, 3)]
    for yes, no in votes:
        _add_votes(group, {"calls_used": yes + no, "calls_saved": 0, "votes": {"valid": yes, "invalid": no}})
    found = _agreement(group)
    assert (found.invocations, found.calls_used, found.unanimity, found.fragile) == (5, 25, 0.4, 2)
    matrix = [[1.0] * yes + [0.0] * no for yes, no in votes]  # raters x units, transposed below
    reliability = [[row[i] for row in matrix] for i in range(5)]
    expected = krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal")
    assert found.krippendorff_alpha == pytest.approx(expected, abs=1e-9)


@settings(deadline=None, max_examples=40)
@given(
    score=st.none() | scores,
    status=st.sampled_from([Status.PASSED, Status.FAILED, Status.NOT_EVALUATED]),
    copies=st.integers(0, 6),
    confidence=st.sampled_from([None, 0.95]),
)
def test_copies_of_a_case_count_as_adding_each_of_them(score, status, copies, confidence):
    """``add_copies`` (an interruption's unstarted cases, in one step) = ``add`` one by one."""
    eval_set = EvalSetEntry(index=0, eval_set_id="s", case_ids=[], criteria=[entry()])
    first = _case("c000", status, score)
    ids = [f"c{i:03d}" for i in range(1, copies + 1)]
    one_by_one, in_one_step = SummaryBuilder(confidence, "r"), SummaryBuilder(confidence, "r")
    for builder in (one_by_one, in_one_step):
        builder.add(first, eval_set)
    for case_id in ids:
        one_by_one.add(first.model_copy(update={"eval_id": case_id}), eval_set)
    in_one_step.add_copies(first, eval_set, ids)
    assert in_one_step.build() == one_by_one.build()


def test_case_seeds_are_derived_when_asked_for_and_equal_the_listed_ones():
    """The set verdict's per-case seeds are those of ``derive_seed`` (each case's own), made
    only for the cases Holm re-tests: none for a set that has no FAIL on its runs."""
    from agenteval._stats import derive_seed
    from agenteval._verdicts import _CaseSeeds

    ids = [f"case_{n}" for n in range(5)]
    seeds = _CaseSeeds("run", 2, ids, "crit")
    listed = [derive_seed("run", 2, case_id, "crit") for case_id in ids]
    assert len(seeds) == 5 and list(seeds) == listed and seeds[1:3] == listed[1:3] and seeds[-1] == listed[-1]
