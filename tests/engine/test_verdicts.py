"""Properties of the verdict rules' judge accounting (``agenteval._verdicts``): activity
summed per judge model, and the judge cost at configured prices; and the rule for what a
spent judge budget leaves unjudged (INCONCLUSIVE ``judge_budget``)."""

from __future__ import annotations

import math

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
    judge_cost,
    sum_activity,
)
from agenteval.runs import CriterionEntry
from hypothesis import given
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
