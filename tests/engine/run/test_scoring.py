"""The scoring stage: every (case, criterion) pair gives exactly one result; failures are data."""

from __future__ import annotations

import asyncio
from typing import Optional

import agenteval
import pytest
from agenteval import (
    CriterionResult,
    Evaluator,
    EvaluatorInfo,
    InvocationScore,
    RunResult,
    Score,
    Status,
    evaluate,
    evaluate_async,
)
from agenteval._results import worst_status
from agenteval.models import EvalSet
from agenteval.testing import make_case, make_invocation, registry_for


class Fixed(Evaluator):
    """Scores ``value`` (``None``: NOT_EVALUATED); one per-invocation score per turn."""

    info = EvaluatorInfo(description="A fixed score.")

    class Params(agenteval.Params):
        value: Optional[float] = 1.0
        code: Optional[str] = None
        per_invocation: bool = True

    def evaluate(self, ctx):
        per = (
            [
                InvocationScore(score=self.params.value, reason=f"turn {i}", details={"i": i})
                for i in range(len(ctx.actual))
            ]
            if self.params.per_invocation
            else []
        )
        return Score(
            value=self.params.value,
            reason="fixed",
            reason_code=self.params.code,
            per_invocation=per,
            details={"seen": len(ctx.actual)},
        )


class AsyncFixed(Fixed):
    info = EvaluatorInfo(description="A fixed score, async.")

    async def evaluate(self, ctx):
        await asyncio.sleep(0)
        return super().evaluate(ctx)


class Raises(Evaluator):
    info = EvaluatorInfo(description="Always raises.")

    def evaluate(self, ctx):
        raise RuntimeError("kaput")


class AsyncRaises(Evaluator):
    info = EvaluatorInfo(description="Always raises, async.")

    async def evaluate(self, ctx):
        raise KeyError("missing")


class ReturnsDict(Evaluator):
    info = EvaluatorInfo(description="Breaks the contract.")

    def evaluate(self, ctx):
        return {"value": 1.0}


class TooManyScores(Evaluator):
    info = EvaluatorInfo(description="One per-invocation score too many.")

    def evaluate(self, ctx):
        return Score(value=1.0, per_invocation=[InvocationScore(score=1.0)] * (len(ctx.actual) + 1))


class NeedsExpected(Evaluator):
    info = EvaluatorInfo(description="Compares with expected.", requires_expected=True)
    calls: list = []

    def evaluate(self, ctx):
        type(self).calls.append(ctx)
        return Score(value=1.0)


class LowerIsBetter(Fixed):
    info = EvaluatorInfo(description="An error rate.", higher_is_better=False)


class Count(Fixed):
    info = EvaluatorInfo(description="A count.", informational=True, max_score=None)


REGISTRY = registry_for(
    fixed=Fixed,
    async_fixed=AsyncFixed,
    raises=Raises,
    async_raises=AsyncRaises,
    returns_dict=ReturnsDict,
    too_many=TooManyScores,
    needs_expected=NeedsExpected,
    lower=LowerIsBetter,
    count=Count,
)

TURN = make_invocation("q", "a", [("t", {"x": 1})], invocation_id="inv-1")


def eval_set(*eval_ids: str, turns: int = 1) -> EvalSet:
    return EvalSet(
        eval_set_id="s",
        eval_cases=[
            make_case(
                [TURN.model_copy(update={"invocation_id": f"{e}-{n}"}) for n in range(turns)], eval_id=e
            )
            for e in eval_ids or ("c",)
        ],
    )


def run(criteria, *, cases: EvalSet | None = None, actual=None, **kwargs) -> RunResult:
    cases = cases or eval_set()
    return evaluate(cases, actual if actual is not None else cases, criteria, registry=REGISTRY, **kwargs)


def only(result: RunResult) -> CriterionResult:
    [case] = result.cases()
    [criterion] = case.criteria
    return criterion


@pytest.mark.parametrize("name", ["fixed", "async_fixed"])
def test_sync_and_async_evaluators(name):
    result = run({name: 0.5})
    criterion = only(result)
    assert (criterion.status, criterion.score, criterion.threshold) == (Status.PASSED, 1.0, 0.5)
    assert criterion.reason == "fixed" and criterion.reason_code is None
    assert criterion.details == {"seen": 1}
    assert criterion.plugin.distribution == "<in-memory>"
    assert criterion.error is None and criterion.duration_seconds >= 0
    [per] = criterion.per_invocation
    assert (per.index, per.invocation_id, per.score, per.status, per.reason, per.details) == (
        0,
        "c-0",
        1.0,
        Status.PASSED,
        "turn 0",
        {"i": 0},
    )
    assert result.passed and result.summary.status is Status.PASSED


@pytest.mark.parametrize(
    ("name", "kind", "text"), [("raises", "RuntimeError", "kaput"), ("async_raises", "KeyError", "'missing'")]
)
def test_an_evaluator_that_raises_is_errored_and_the_run_goes_on(name, kind, text):
    result = run({name: 0.5, "fixed": 0.5}, cases=eval_set("a", "b"))
    for case in result.cases():
        errored, fine = case.criteria
        assert errored.status is Status.ERRORED and errored.score is None
        assert errored.reason == f"the evaluator raised: {kind}: {text}"
        assert errored.reason_code == "evaluator_error"
        assert errored.error.type == kind and errored.error.message == text
        assert "Traceback" in errored.error.traceback and text in errored.error.traceback
        assert fine.status is Status.PASSED
        assert case.status is Status.ERRORED
    assert result.summary.criterion_results[Status.ERRORED] == 2
    assert not result.passed


def test_strict_mode_re_raises():
    with pytest.raises(RuntimeError, match="kaput"):
        run({"raises": 0.5}, strict=True)
    with pytest.raises(TypeError, match="returned dict"):
        run({"returns_dict": 0.5}, strict=True)


def test_a_non_score_return_is_errored():
    criterion = only(run({"returns_dict": 0.5}))
    assert criterion.status is Status.ERRORED
    assert criterion.reason == (
        "the evaluator broke the plugin contract: TypeError: "
        "evaluate() returned dict, expected agenteval.Score"
    )


def test_wrong_per_invocation_length_is_errored():
    criterion = only(run({"too_many": 0.5}, cases=eval_set(turns=2)))
    assert criterion.status is Status.ERRORED
    assert "returned 3 per-invocation scores for 2 invocations" in criterion.reason


def test_requires_expected_with_a_scenario_case_is_not_evaluated():
    NeedsExpected.calls.clear()
    cases = EvalSet(eval_set_id="s", eval_cases=[make_case(eval_id="sim", scenario="Hi")])
    criterion = only(run({"needs_expected": 0.5}, cases=cases, actual={"sim": [TURN]}))
    assert criterion.status is Status.NOT_EVALUATED
    assert criterion.reason_code == "no_expected_invocations"
    assert "conversation scenario" in criterion.reason
    assert NeedsExpected.calls == []


def test_scenario_case_runs_evaluators_that_need_no_expected_data():
    cases = EvalSet(eval_set_id="s", eval_cases=[make_case(eval_id="sim", scenario="Hi")])
    criterion = only(run({"fixed": 0.5}, cases=cases, actual={"sim": [TURN, TURN]}))
    assert criterion.status is Status.PASSED and len(criterion.per_invocation) == 2


def test_invocation_count_mismatch_is_not_evaluated():
    NeedsExpected.calls.clear()
    criterion = only(run({"needs_expected": 0.5}, cases=eval_set(turns=2), actual={"c": [TURN]}))
    assert criterion.status is Status.NOT_EVALUATED
    assert criterion.reason_code == "invocation_count_mismatch"
    assert "expects 2 invocations but the actual conversation has 1" in criterion.reason
    assert NeedsExpected.calls == []


def test_the_context_the_evaluator_sees():
    NeedsExpected.calls.clear()
    cases = eval_set(turns=2)
    actual = [make_invocation("q", "b", invocation_id="x"), make_invocation("q2", "c", invocation_id="y")]
    run({"needs_expected": 0.7}, cases=cases, actual={"c": actual})
    [ctx] = NeedsExpected.calls
    assert list(ctx.actual) == actual
    assert list(ctx.expected) == cases.eval_cases[0].conversation
    assert ctx.case is cases.eval_cases[0] or ctx.case == cases.eval_cases[0]
    assert ctx.threshold == 0.7


def test_context_turns_are_history_and_only_the_judged_turns_are_scored():
    NeedsExpected.calls.clear()
    cases = eval_set(turns=3)
    case = cases.eval_cases[0].model_copy(update={"context_turns": 2})
    cases = cases.model_copy(update={"eval_cases": [case]})
    actual = [make_invocation(f"q{n}", f"a{n}", invocation_id=f"x{n}") for n in range(3)]
    result = run({"needs_expected": 0.7, "fixed": 0.5}, cases=cases, actual={"c": actual})
    [ctx] = NeedsExpected.calls
    assert list(ctx.history) == actual[:2]
    assert list(ctx.actual) == actual[2:]
    assert list(ctx.expected) == case.conversation[2:]
    fixed = next(c for c in result.cases()[0].criteria if c.criterion == "fixed")
    assert fixed.details == {"seen": 1}
    assert [(p.index, p.invocation_id) for p in fixed.per_invocation] == [(2, "x2")]


@pytest.mark.parametrize("value", [-0.5, 1.5])
def test_score_outside_declared_range_is_errored(value):
    criterion = only(run({"fixed": {"threshold": 0.5, "value": value}}))
    assert criterion.status is Status.ERRORED
    assert criterion.reason_code == "evaluator_error"
    assert "outside the declared range [0.0, 1.0]" in criterion.reason


@pytest.mark.parametrize(
    ("value", "threshold", "status"),
    [
        (0.5, 0.5, Status.PASSED),
        (0.5, 0.5000001, Status.FAILED),
        (1.0, 0.0, Status.PASSED),
        (0.0, 0.0, Status.PASSED),
        (0.0, 0.1, Status.FAILED),
    ],
)
def test_threshold_is_inclusive(value, threshold, status):
    criterion = only(run({"fixed": {"threshold": threshold, "value": value}}))
    assert criterion.status is status
    assert all(p.status is status for p in criterion.per_invocation)


@pytest.mark.parametrize(
    ("value", "status"), [(0.2, Status.PASSED), (0.3, Status.PASSED), (0.31, Status.FAILED)]
)
def test_lower_is_better(value, status):
    assert only(run({"lower": {"threshold": 0.3, "value": value}})).status is status


def test_not_evaluated_score_keeps_its_reason_code():
    criterion = only(run({"fixed": {"threshold": 0.5, "value": None, "code": "no_rubrics"}}))
    assert (criterion.status, criterion.reason_code, criterion.reason) == (
        Status.NOT_EVALUATED,
        "no_rubrics",
        "fixed",
    )
    assert criterion.per_invocation[0].status is Status.NOT_EVALUATED
    criterion = only(run({"fixed": {"threshold": 0.5, "value": None}}))
    assert criterion.reason_code == "not_evaluated"


def test_reason_code_is_dropped_when_there_is_a_score():
    assert only(run({"fixed": {"threshold": 0.5, "code": "ignored"}})).reason_code is None


def test_informational_results():
    result = run({"count": {"value": 7.0}})
    criterion = only(result)
    assert (criterion.status, criterion.score, criterion.threshold) == (Status.INFORMATIONAL, 7.0, None)
    assert criterion.per_invocation[0].status is Status.INFORMATIONAL
    assert result.cases()[0].status is Status.INFORMATIONAL
    assert result.summary.status is Status.INFORMATIONAL and result.passed


@pytest.mark.parametrize(
    ("other", "case_status"),
    [
        ({"threshold": 0.5}, Status.PASSED),
        ({"threshold": 0.5, "value": 0.1}, Status.FAILED),
        ({"threshold": 0.5, "value": None}, Status.NOT_EVALUATED),
    ],
)
def test_informational_results_do_not_decide_a_case(other, case_status):
    result = run({"count": {"value": 7.0}, "fixed": other})
    assert result.cases()[0].status is case_status


@pytest.mark.parametrize(
    ("criteria", "status"),
    [
        ({"fixed": {"threshold": 0.5, "value": 0.1}, "raises": 0.5}, Status.FAILED),
        ({"raises": 0.5, "fixed": {"threshold": 0.5, "value": None}}, Status.ERRORED),
        ({"fixed": {"threshold": 0.5, "value": None}, "async_fixed": 0.5}, Status.NOT_EVALUATED),
        ({"fixed": 0.5, "async_fixed": 0.5, "count": {}}, Status.PASSED),
    ],
)
def test_case_status_is_the_worst(criteria, status):
    assert run(criteria).cases()[0].status is status


def test_worst_status_order():
    order = [Status.FAILED, Status.ERRORED, Status.NOT_EVALUATED, Status.PASSED, Status.INFORMATIONAL]
    for index, status in enumerate(order):
        assert worst_status(order[index:]) is status
    assert worst_status([]) is Status.NOT_EVALUATED
    assert [s.ok for s in order] == [False, False, False, True, True]


def test_summary_counts():
    cases = eval_set("a", "b", "c")
    actual = {"a": [TURN], "b": [TURN, TURN], "c": [TURN]}  # b: count mismatch for needs_expected
    result = run({"fixed": 0.5, "needs_expected": 0.5, "count": {"value": 2.0}}, cases=cases, actual=actual)
    summary = result.summary
    assert summary.cases == {
        Status.PASSED: 2,
        Status.FAILED: 0,
        Status.NOT_EVALUATED: 1,
        Status.ERRORED: 0,
        Status.INFORMATIONAL: 0,
    }
    assert summary.criterion_results[Status.PASSED] == 5
    assert summary.criterion_results[Status.NOT_EVALUATED] == 1
    assert summary.criterion_results[Status.INFORMATIONAL] == 3
    assert summary.status is Status.NOT_EVALUATED
    by_name = {c.criterion: c for c in summary.criteria}
    assert list(by_name) == ["fixed", "needs_expected", "count"]
    assert by_name["needs_expected"].mean_score == 1.0
    assert by_name["needs_expected"].counts[Status.NOT_EVALUATED] == 1
    assert by_name["count"].mean_score == 2.0 and by_name["count"].threshold is None
    assert [c.eval_id for c in result.cases()] == ["a", "b", "c"]
    assert result.eval_sets[0].eval_set_id == "s" and result.eval_sets[0].source is None


def test_summary_groups_one_criterion_by_threshold():
    summary = run(
        [agenteval.Criterion(name="fixed", threshold=0.5), agenteval.Criterion(name="fixed", threshold=0.9)]
    ).summary
    assert [(c.criterion, c.threshold) for c in summary.criteria] == [("fixed", 0.5), ("fixed", 0.9)]


def test_a_run_without_cases():
    result = run({"fixed": 0.5}, cases=EvalSet(eval_set_id="s", eval_cases=[]), actual={})
    assert result.cases() == [] and result.summary.status is Status.NOT_EVALUATED


class Gate(Evaluator):
    """Counts how many evaluations run at the same time."""

    info = EvaluatorInfo(description="Concurrency probe.")
    active = 0
    peak = 0

    async def evaluate(self, ctx):
        cls = type(self)
        cls.active += 1
        cls.peak = max(cls.peak, cls.active)
        await asyncio.sleep(0.005)
        cls.active -= 1
        return Score(value=1.0)


@pytest.mark.parametrize("limit", [1, 3, 16])
def test_concurrency_is_bounded(limit):
    Gate.active = Gate.peak = 0
    cases = eval_set(*(f"c{i}" for i in range(10)))
    registry = registry_for(gate=Gate, gate2=Gate)
    result = evaluate(
        cases, cases, {"gate": 0.5, "gate2": {"threshold": 0.4}}, registry=registry, concurrency=limit
    )
    assert result.summary.criterion_results[Status.PASSED] == 20
    assert Gate.peak == min(limit, 20)
    assert Gate.active == 0


def _without_durations(result: RunResult) -> dict:
    data = result.model_dump(mode="json")
    for eval_set_result in data["eval_sets"]:
        for case in eval_set_result["cases"]:
            for criterion in case["criteria"]:
                criterion["duration_seconds"] = 0
                if criterion["error"]:
                    criterion["error"]["traceback"] = ""
    return data


def test_evaluate_and_evaluate_async_agree():
    cases = eval_set("a", "b", turns=2)
    criteria = {"fixed": 0.5, "async_fixed": {"threshold": 0.5, "value": 0.2}, "raises": 0.5, "count": {}}
    sync = evaluate(cases, cases, criteria, registry=REGISTRY)
    in_loop = asyncio.run(evaluate_async(cases, cases, criteria, registry=REGISTRY))
    assert _without_durations(sync) == _without_durations(in_loop)
    assert sync.engine_version == agenteval.__version__
    assert sync.format_version == 1


def test_evaluate_cannot_run_inside_a_running_loop():
    async def inside():
        evaluate(eval_set(), eval_set(), {"fixed": 0.5}, registry=REGISTRY)

    with pytest.raises(RuntimeError, match="await agenteval.evaluate_async"):
        asyncio.run(inside())


def test_result_json_document_round_trips():
    result = run({"fixed": 0.5, "raises": 0.5, "count": {}})
    again = RunResult.model_validate_json(result.model_dump_json())
    assert again.model_dump() == result.model_dump()


def test_a_run_leaves_no_frozen_objects_behind_and_keeps_a_host_freeze():
    import gc

    assert gc.get_freeze_count() == 0
    run({"fixed": {"threshold": 0.5}})
    assert gc.get_freeze_count() == 0
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        run({"fixed": {"threshold": 0.5}})
        # none of the run's own objects frozen, the host's not thawed (that would give 0); a
        # host's frozen object the run lets go (a cache entry replaced, after a long test
        # session) leaves the count, so it may end a little below
        assert frozen * 0.99 <= gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()


class Slow(Evaluator):
    """Waits forever for case ``slow``; answers at once for the others."""

    info = EvaluatorInfo(description="Slow for one case.", default_threshold=0.5)

    async def evaluate(self, ctx):
        if ctx.case.eval_id == "slow":
            await asyncio.sleep(3600)
        return Score(value=1.0)


def test_cancelling_a_run_keeps_what_was_scored():
    from agenteval._api import evaluate_async

    registry = registry_for(slow=Slow)
    cases = eval_set("fast_1", "slow", "fast_2")

    async def main() -> RunResult:
        task = asyncio.ensure_future(evaluate_async(cases, cases, ["slow"], registry=registry))
        await asyncio.sleep(0.2)
        task.cancel()  # what Ctrl-C does to asyncio.run's main task
        return await task

    result = asyncio.run(main())
    assert result.interrupted
    statuses = {c.eval_id: (c.criteria[0].status, c.criteria[0].reason_code) for c in result.cases()}
    assert statuses == {
        "fast_1": (Status.PASSED, None),
        "slow": (Status.NOT_EVALUATED, "interrupted"),
        "fast_2": (Status.PASSED, None),
    }
    assert result.summary.not_evaluated_reasons == {"interrupted": 1}


class Prepared(Evaluator):
    """Records the threads its ``prepare()`` ran in; evaluate checks it ran first."""

    info = EvaluatorInfo(description="Needs setup.", default_threshold=0.5)
    threads: list = []

    def prepare(self):
        import threading

        type(self).threads.append(threading.current_thread().name)

    def evaluate(self, ctx):
        assert type(self).threads, "evaluate before prepare"
        return Score(value=1.0)


class PrepareFails(Evaluator):
    info = EvaluatorInfo(description="Setup fails.", default_threshold=0.5)

    def prepare(self):
        raise ImportError("no module named 'heavy_model'")

    def evaluate(self, ctx):  # pragma: no cover - never reached
        raise AssertionError("evaluate without a prepared evaluator")


PREPARING = registry_for(prepared=Prepared, prepare_fails=PrepareFails, fixed=Fixed)


def test_prepare_runs_once_per_evaluator_before_evaluate_in_a_worker_thread():
    Prepared.threads = []
    result = evaluate(eval_set("a", "b", "c"), eval_set("a", "b", "c"), ["prepared"], registry=PREPARING)
    assert all(case.status is Status.PASSED for case in result.cases())
    assert len(Prepared.threads) == 1 and Prepared.threads[0] != "MainThread"


def test_a_failing_prepare_errors_that_criterion_only():
    result = evaluate(
        eval_set("a", "b"), eval_set("a", "b"), {"prepare_fails": {}, "fixed": 0.5}, registry=PREPARING
    )
    for case in result.cases():
        failed, fine = case.criteria
        assert failed.status is Status.ERRORED and failed.reason_code == "prepare_error"
        assert failed.reason.startswith("the evaluator's prepare() raised: ImportError: no module named")
        assert failed.error.type == "ImportError"
        assert fine.status is Status.PASSED
    with pytest.raises(ImportError):
        evaluate(eval_set(), eval_set(), ["prepare_fails"], registry=PREPARING, strict=True)


def test_with_an_agent_prepare_starts_in_the_background_when_the_agent_starts():
    from agenteval.plugins import Agent, AgentSession

    Prepared.threads = []

    class Quick(Agent):
        async def session(self, case):
            class _S(AgentSession):
                async def turn(self, user_content):
                    return TURN.model_copy(update={"user_content": user_content})

            return _S()

    result = agenteval.evaluate_agent(Quick("quick"), _write_eval_set(), ["prepared"], registry=PREPARING)
    assert result.passed
    assert Prepared.threads == ["agenteval-prepare"]


def _write_eval_set():
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.mkdtemp())
    path = folder / "x.evalset.json"
    path.write_text(eval_set("a", "b").to_json())
    return path


def test_a_case_the_adapter_could_not_start_with_its_history_is_not_evaluated():
    from agenteval._agents import AgentFailure
    from agenteval._run._scoring import agent_failed
    from agenteval.runs import CriterionEntry

    entry = CriterionEntry(name="exact", distribution="d", version="1", entry_point="m:C", threshold=0.5)
    result = agent_failed(entry, AgentFailure("the adapter cannot take history", "history_unsupported"))
    assert (result.status, result.reason_code) == (Status.NOT_EVALUATED, "history_unsupported")
    assert result.reason == "the adapter cannot take history" and result.score is None
