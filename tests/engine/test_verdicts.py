"""Properties of the verdict rules' judge accounting (``agenteval._verdicts``): activity
summed per judge model, and the judge cost at configured prices; and the rule for what a
spent judge budget leaves unjudged (INCONCLUSIVE ``judge_budget``)."""

from __future__ import annotations

import math
import statistics

from agenteval._auto_runs import case_decided
from agenteval._results import (
    CriterionResult,
    InvocationResult,
    JudgeActivity,
    ModelUsage,
    PluginInfo,
    RunSummary,
    Status,
    VerdictInfo,
)
from agenteval._verdicts import (
    SummaryBuilder,
    budget_gated,
    case_criteria,
    combine_runs,
    judge_cost,
    sum_activity,
)
from agenteval.runs import CriterionEntry
from hypothesis import given, settings
from hypothesis import strategies as st

_MODELS = ("m1", "m2", "m3")
_usage = st.builds(
    ModelUsage,
    calls=st.integers(0, 100),
    input_tokens=st.integers(0, 10**7),
    output_tokens=st.integers(0, 10**7),
)
_activity = st.dictionaries(st.sampled_from(_MODELS), _usage).map(
    lambda models: JudgeActivity(
        calls=sum(u.calls for u in models.values()),
        input_tokens=sum(u.input_tokens for u in models.values()),
        output_tokens=sum(u.output_tokens for u in models.values()),
        models=models,
    )
)
_price = st.fixed_dictionaries(
    {
        "input_per_mtok": st.floats(0, 100, allow_nan=False),
        "output_per_mtok": st.floats(0, 100, allow_nan=False),
    }
)
_prices = st.dictionaries(st.sampled_from(_MODELS), _price, min_size=1)


@given(st.lists(_activity, min_size=1, max_size=5))
def test_summed_activity_keeps_each_models_counts_and_the_totals(activities):
    summed = sum_activity(activities)
    assert summed is not None
    for name in _MODELS:
        parts = [a.models[name] for a in activities if name in a.models]
        if not parts:
            assert name not in summed.models
            continue
        assert summed.models[name].calls == sum(u.calls for u in parts)
        assert summed.models[name].input_tokens == sum(u.input_tokens for u in parts)
    assert summed.input_tokens == sum(u.input_tokens for u in summed.models.values())


@given(_activity, _prices)
def test_the_cost_is_the_priced_models_sum_and_no_model_is_free_by_omission(activity, prices):
    cost = judge_cost(activity, prices)
    assert cost is not None
    assert set(cost.by_model) | set(cost.unpriced) == set(activity.models)
    assert set(cost.unpriced) == set(activity.models) - set(prices)
    assert math.isclose(cost.total, math.fsum(cost.by_model.values()))
    for name, amount in cost.by_model.items():
        usage, price = activity.models[name], prices[name]
        expected = (
            usage.input_tokens * price["input_per_mtok"] + usage.output_tokens * price["output_per_mtok"]
        ) / 1e6
        assert math.isclose(amount, expected, rel_tol=1e-12, abs_tol=1e-12) and amount >= 0


def test_no_prices_or_no_activity_give_no_cost():
    assert judge_cost(JudgeActivity(), {}) is None
    assert judge_cost(None, {"m1": {"input_per_mtok": 1.0, "output_per_mtok": 1.0}}) is None


def _entry(name: str = "judged") -> CriterionEntry:
    return CriterionEntry(
        name=name, distribution="d", version="1", entry_point="e", threshold=0.5, min_score=0.0, max_score=1.0
    )


def _result(score, code=None, verdict=None, judge=None, name: str = "judged") -> CriterionResult:
    status = Status.NOT_EVALUATED if score is None else Status.PASSED if score >= 0.5 else Status.FAILED
    return CriterionResult(
        criterion=name,
        threshold=0.5,
        score=score,
        status=status,
        reason="the run's judge token budget of 40 is spent" if code else None,
        reason_code=code,
        plugin=PluginInfo(distribution="d", version="1", entry_point="e"),
        verdict=verdict,
        judge=judge,
    )


def test_an_unjudged_result_is_inconclusive_judge_budget_and_keeps_no_run_open():
    (one,) = case_criteria(
        [_entry()], [[_result(None, "judge_budget")]], confidence=0.95, seed_parts=("r", 0, "c")
    )
    assert (one.status, one.reason_code) == (Status.NOT_EVALUATED, "judge_budget")
    assert (one.verdict.verdict, one.verdict.basis) == ("INCONCLUSIVE", "judge_budget")
    assert "token budget of 40 is spent" in one.verdict.reason and "more runs do not" in one.verdict.reason
    assert case_decided([one])  # more runs of the agent would not be judged either
    other = _result(
        None, "judge_timeout", verdict=VerdictInfo(verdict="NOT_EVALUATED", basis="single-run", reason="x")
    )
    assert budget_gated(other) is other  # another reason: NOT_EVALUATED stays
    assert budget_gated(one) is one  # applied once


def test_several_runs_keep_what_the_judged_runs_settle_whatever_the_unjudged_one_scored():
    runs = [[_result(1.0)] for _ in range(11)] + [[_result(None, "judge_budget")]]
    (settled,) = case_criteria([_entry()], runs, confidence=0.95, seed_parts=("r", 0, "c"))
    assert settled.reason_code == "judge_budget" and settled.verdict.verdict == "PASS"  # Manski bounds
    few = [[_result(1.0)], [_result(None, "judge_budget")]]
    (open_,) = case_criteria([_entry()], few, confidence=0.95, seed_parts=("r", 0, "c"))
    assert (open_.verdict.verdict, open_.verdict.basis) == ("INCONCLUSIVE", "judge_budget")
    assert open_.verdict.hint is None  # no number of runs is promised to settle it


def test_a_one_point_score_range_over_runs_has_no_interval_as_an_unbounded_one_has_none():
    """``min_score == max_score`` is a legal range (the contract refuses only min > max):
    its runs' verdict has no interval to draw, as an unbounded range's has none."""
    point = CriterionEntry(
        name="judged",
        distribution="d",
        version="1",
        entry_point="e",
        threshold=1.0,
        min_score=1.0,
        max_score=1.0,
    )
    unbounded = point.model_copy(update={"max_score": None})
    runs = [[_result(1.0)] for _ in range(3)]
    (one_point,) = case_criteria([point], runs, confidence=0.95, seed_parts=("r", 0, "c"))
    (no_bound,) = case_criteria([unbounded], runs, confidence=0.95, seed_parts=("r", 0, "c"))
    assert one_point.verdict is None and one_point == no_bound


def test_an_older_engines_budget_code_reads_as_judge_budget():
    result = _result(None, "judge_budget_exhausted")
    turn = InvocationResult(
        index=0,
        invocation_id="i",
        score=None,
        status=Status.NOT_EVALUATED,
        reason_code="judge_budget_exhausted",
    )
    assert result.reason_code == turn.reason_code == "judge_budget"
    summary = RunSummary(
        status=Status.NOT_EVALUATED,
        cases={},
        criterion_results={},
        criteria=[],
        not_evaluated_reasons={"judge_budget_exhausted": 2, "judge_timeout": 1},
        invocations_not_evaluated={"judge_budget_exhausted": 3},
        judge=JudgeActivity(failures={"judge_budget_exhausted": 4, "judge_budget": 1}),
    )
    assert summary.not_evaluated_reasons == {"judge_budget": 2, "judge_timeout": 1}
    assert summary.invocations_not_evaluated == {"judge_budget": 3}
    assert summary.judge.failures == {"judge_budget": 5}


@given(st.lists(st.tuples(_activity, st.integers(1, 4)), min_size=1, max_size=6))
def test_the_summary_sums_each_criterions_activity_over_its_cases_and_copies(cases):
    """A criterion's judge activity in the summary is the sum of its results' over every
    case (a case counted ``times`` as ``add_copies`` does), whatever the service saw."""
    from agenteval._results import CaseResult

    builder = SummaryBuilder()
    for i, (activity, times) in enumerate(cases):
        case = CaseResult(eval_id=f"c{i}", status=Status.PASSED, criteria=[_result(1.0, judge=activity)])
        builder.add_copies(case, None, [f"c{i}.{k}" for k in range(times)])
    prices = {"m1": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}}
    summary = builder.build(judge_by_criterion={"judged": JudgeActivity(calls=999)}, prices=prices)
    (criterion,) = summary.criteria
    expected = sum_activity([a for a, times in cases for _ in range(times)])
    assert criterion.judge == expected and summary.judge == expected
    assert criterion.judge_cost == judge_cost(expected, prices)


def _set_entry(index: int, cases: int):
    from agenteval.runs import EvalSetEntry

    return EvalSetEntry(
        index=index,
        eval_set_id=f"set{index}",
        path=f"set{index}.evalset.json",
        case_ids=[f"c{index}.{i}" for i in range(cases)],
        criteria=[_entry(), _entry("other")],
    )


_votes = st.fixed_dictionaries({"yes": st.integers(0, 3), "no": st.integers(0, 3)})
_criterion_result = st.builds(
    lambda name, score, code, activity, votes, runs: _result(
        score, code if score is None else None, judge=activity, name=name
    ).model_copy(
        update={
            "per_invocation": [
                InvocationResult(
                    index=0,
                    invocation_id="i",
                    score=score,
                    status=Status.NOT_EVALUATED if score is None else Status.PASSED,
                    reason_code=code if score is None else None,
                    details={"calls_used": 3, "calls_saved": 1, "votes": votes} if votes else {},
                )
            ],
            "runs": [_result(s, name=name) for s in runs],
        }
    ),
    st.sampled_from(["judged", "other"]),
    st.one_of(st.none(), st.floats(0, 1)),
    st.sampled_from(["judge_budget", "judge_timeout", None]),
    st.one_of(st.none(), _activity),
    st.one_of(st.none(), _votes),
    st.lists(st.one_of(st.none(), st.floats(0, 1)), max_size=3),
)


@given(
    st.lists(
        st.lists(st.lists(_criterion_result, min_size=1, max_size=2), min_size=1, max_size=4), max_size=4
    ),
    st.sets(st.integers(0, 3)),
    st.sampled_from([None, 0.9]),
)
@settings(deadline=None, max_examples=60)  # an eval set's statistics take a while
def test_a_saved_eval_set_gives_the_summary_its_cases_give(sets, saved, confidence):
    """``set_state`` / ``restore_set``: a builder given some eval sets as another builder
    saved them (through JSON, as ``set_summaries.jsonl`` holds them) and the rest case by
    case builds the summary of a builder given every case, byte for byte."""
    import json

    from agenteval._results import CaseResult

    whole = SummaryBuilder(confidence, "run")
    restored = SummaryBuilder(confidence, "run")
    for index, cases in enumerate(sets):
        entry = _set_entry(index, len(cases))
        results = [
            CaseResult(eval_id=case_id, status=Status.PASSED if i % 2 else Status.FAILED, criteria=criteria)
            for i, (case_id, criteria) in enumerate(zip(entry.case_ids, cases, strict=True))
        ]
        part = SummaryBuilder(confidence, "run")
        for case in results:
            whole.add(case, entry)
            part.add(case, entry)
            if index not in saved:
                restored.add(case, entry)
        assert part.set_complete(index)
        if index in saved:
            restored.restore_set(entry, json.loads(json.dumps(part.set_state(index))))
    prices = {"m1": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}}
    assert restored.build(prices=prices).model_dump_json() == whole.build(prices=prices).model_dump_json()


def test_a_damaged_saved_eval_set_is_refused_and_counts_nothing():
    import pytest

    entry = _set_entry(0, 1)
    builder = SummaryBuilder(0.9, "run")
    builder.add(_passed_case(entry.case_ids[0]), entry)
    state = builder.set_state(0)
    fresh = SummaryBuilder(0.9, "run")
    for broken in ({**state, "cases": {"NOPE": 1}}, {k: v for k, v in state.items() if k != "criteria"}):
        with pytest.raises(ValueError):
            fresh.restore_set(entry, broken)
    with pytest.raises(ValueError):  # saved with statistics, restored without
        SummaryBuilder(None, "run").restore_set(entry, state)
    assert fresh.build() == SummaryBuilder(0.9, "run").build()


def _passed_case(case_id: str):
    from agenteval._results import CaseResult

    return CaseResult(eval_id=case_id, status=Status.PASSED, criteria=[_result(1.0)])


def test_an_eval_set_lets_its_case_units_go_once_every_case_is_in_and_takes_no_case_after():
    """The per-case units an eval set's statistics need are let go as soon as the set is
    complete (tens of megabytes at 100k cases); its statistics are the ones its units give."""
    import pytest
    from agenteval._verdicts import _set_unit, set_criterion_summary

    entry = _set_entry(0, 3)
    cases = [_passed_case(case_id) for case_id in entry.case_ids]
    builder = SummaryBuilder(0.9, "run")
    for case in cases[:2]:
        builder.add(case, entry)
    assert builder._parts[0].units  # the set is not complete: kept
    builder.add(cases[2], entry)
    assert builder._parts[0].units == {}
    summary = builder.build()
    units = [_set_unit(case.eval_id, case.criteria[0]) for case in cases]
    [criterion] = [c for c in entry.criteria if c.name == cases[0].criteria[0].criterion]
    expected = set_criterion_summary(criterion, units, level=0.9, run_id="run", index=0, rule="holm")
    assert summary.eval_sets[0].criteria == [expected]
    with pytest.raises(ValueError, match="added already"):
        builder.add(_passed_case("late"), entry)
    builder.add_copies(_passed_case("late"), entry, [])  # no copy: nothing to add
    assert builder.build() == summary  # nothing of either counted


@given(st.lists(st.sampled_from(list(Status)), max_size=5))
def test_a_case_takes_its_worst_gating_status_or_informational(statuses):
    from agenteval._results import worst_status
    from agenteval._verdicts import case_status

    results = [
        CriterionResult(
            criterion=f"c{i}",
            threshold=None,
            score=None,
            status=s,
            plugin=PluginInfo(distribution="d", version="1", entry_point="m:C"),
        )
        for i, s in enumerate(statuses)
    ]
    gating = [s for s in statuses if s is not Status.INFORMATIONAL]
    expected = Status.INFORMATIONAL if statuses and not gating else worst_status(gating)
    assert case_status(results) is expected


def test_equal_plugins_that_are_distinct_objects_count_as_one_criterion():
    from agenteval._results import CaseResult
    from agenteval._verdicts import SummaryBuilder

    builder = SummaryBuilder()
    for case_id in ("a", "b"):
        plugin = PluginInfo(distribution="d", version="1", entry_point="m:C")  # a new object each case
        result = CriterionResult(criterion="x", threshold=0.5, score=1.0, status=Status.PASSED, plugin=plugin)
        builder.add(CaseResult(eval_id=case_id, status=Status.PASSED, criteria=[result]))
    other = PluginInfo(distribution="d", version="2", entry_point="m:C")
    result = CriterionResult(criterion="x", threshold=0.5, score=0.0, status=Status.FAILED, plugin=other)
    builder.add(CaseResult(eval_id="c", status=Status.FAILED, criteria=[result]))
    criteria = builder.build().criteria
    assert [(c.plugin.version, c.counts[Status.PASSED], c.counts[Status.FAILED]) for c in criteria] == [
        ("1", 2, 0),
        ("2", 0, 1),
    ]


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=6), st.booleans())
@settings(max_examples=200, deadline=None)
def test_the_runs_spread_has_the_exact_population_stdev(scores, equal):
    """Runs with equal scores skip ``pstdev``'s arithmetic in fractions: 0.0, what it gives
    them; any other spread is ``pstdev``'s own."""
    if equal:
        scores = [scores[0]] * len(scores)
    combined = combine_runs(_entry(), [_result(score) for score in scores])
    stdev = combined.details["spread"]["stdev"]
    expected = statistics.pstdev(scores) if len(scores) > 1 else 0.0
    assert stdev == expected and type(stdev) is float
    assert math.copysign(1.0, stdev) == math.copysign(1.0, expected)


def test_pstdev_is_the_standard_librarys_to_the_bit():
    """The spread's standard deviation, in integers, is the float ``statistics.pstdev`` gives
    (its exact arithmetic in fractions, then the correctly rounded root), whatever the floats;
    other input goes to ``statistics.pstdev`` itself."""
    import random
    import statistics
    import struct

    from agenteval._verdicts import pstdev

    rnd = random.Random(7)
    pick = (
        lambda: rnd.choice([0.0, -0.0, 1.0, 0.5, 0.8, 1 / 3, 2 / 3]),
        rnd.random,
        lambda: rnd.uniform(-1e6, 1e6),
        lambda: rnd.random() * 10.0 ** rnd.randint(-300, 300),
        lambda: round(rnd.random(), rnd.randint(0, 5)),
    )
    for _ in range(20000):
        values = [rnd.choice(pick)() for _ in range(rnd.choice([1, 2, 3, 3, 5, 24]))]
        assert struct.pack("d", pstdev(values)) == struct.pack("d", statistics.pstdev(values)), values

    def outcome(stdev, values):
        try:
            found = stdev(values)
        except Exception as exc:  # the standard library's own, whatever it is
            return type(exc)
        return "nan" if found != found else found

    for other in ([1, 2, 4], [1.0, float("inf")], [0.5, float("nan")], [True, 0.5], []):
        assert outcome(pstdev, other) == outcome(statistics.pstdev, other)
