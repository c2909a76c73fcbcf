"""What the judges cost, counted from the records: every judge call's tokens (as the provider
reports them) per criterion result, per case, per criterion over the run and in all, the
same in a single run, several runs per case, a resumed run and the run folder's readers;
prices give each criterion's cost (unpriced models listed, never costed 0); cache hits
cost nothing. And the judge budget: exactly the results it left unjudged are INCONCLUSIVE
``judge_budget``, never FAILED, never averaged over the turns that were judged."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable

import pytest
from agenteval import (
    Evaluator,
    EvaluatorInfo,
    InvocationScore,
    JudgeOptions,
    JudgeRequest,
    JudgeResponse,
    JudgeService,
    Params,
    Score,
    Status,
)
from agenteval._api import run_sync
from agenteval._judging import JudgeCache, JudgeUsage
from agenteval._registry import ProviderRegistry
from agenteval._run import EvalRun, plan_eval_sets
from agenteval._run._session import open_run
from agenteval.errors import JudgeUnavailable
from agenteval.models import EvalSet
from agenteval.plugins import JudgeModel
from agenteval.runs import RecordedRun
from agenteval.testing import make_case, make_invocation, registry_for

CALLS: list[str] = []
#: (calls, what to do once that many were made): a run interrupted from its judge.
STOP: list[tuple[int, Callable[[], None]]] = []
OUTPUT_TOKENS = 3


class Metered(JudgeModel):
    """Answers "yes" and reports as many input tokens as the prompt has characters, and 3
    output tokens, as a provider reports its usage."""

    async def generate(self, request: JudgeRequest) -> JudgeResponse:
        CALLS.append(request.prompt)
        await asyncio.sleep(0.001)
        if STOP and len(CALLS) >= STOP[0][0]:
            STOP.pop()[1]()
        usage = JudgeUsage(input_tokens=len(request.prompt), output_tokens=OUTPUT_TOKENS)
        return JudgeResponse(text="yes", usage=usage)

    def identity(self) -> dict:
        return {"provider": "metered", "model": self.model}


class Asks(Evaluator):
    """A judge criterion: ``samples`` calls to ``model`` per turn, each prompt naming the
    case, the turn and the sample; a refused call leaves its turn NOT_EVALUATED with the
    call's reason code, as the judge criteria do."""

    info = EvaluatorInfo(description="Asks a metered judge.", requires_judge=True)

    class Params(Params):
        model: str = "metered:a"
        samples: int = 1

    def judge_models(self) -> list[str]:
        return [self.params.model]

    async def evaluate(self, ctx):
        options = JudgeOptions(judge_model=self.params.model)
        items = []
        for turn in ctx.actual:
            try:
                for sample in range(self.params.samples):
                    prompt = prompt_of(self.params.model, ctx.case.eval_id, turn.final_text(), sample)
                    await ctx.judge.generate(JudgeRequest(prompt=prompt), options, sample)
            except JudgeUnavailable as exc:
                items.append(InvocationScore(score=None, reason=str(exc), reason_code=exc.code))
                continue
            items.append(InvocationScore(score=1.0))
        scored = [i.score for i in items if i.score is not None]
        if not scored:
            return Score(
                value=None, reason="nothing judged", reason_code=items[0].reason_code, per_invocation=items
            )
        return Score(value=sum(scored) / len(scored), per_invocation=items)


def prompt_of(model: str, case_id: str, text: str, sample: int) -> str:
    return f"{model} judges {case_id} / {text} #{sample}"


REGISTRY = registry_for(asks=Asks, asks_too=Asks)
CRITERIA = {
    "asks": {"threshold": 0.5, "samples": 2},
    "asks_too": {"threshold": 0.5, "model": "metered:b"},
}
PRICES = {"metered:a": {"input_per_mtok": 2.0, "output_per_mtok": 10.0}}  # metered:b has none
TURNS = ("first", "second, longer")


def _eval_set(n: int) -> EvalSet:
    return EvalSet(
        eval_set_id="s",
        eval_cases=[
            make_case([make_invocation(f"q{t}", text) for t, text in enumerate(TURNS)], eval_id=f"c{i:02d}")
            for i in range(n)
        ],
    )


def _judge(**options) -> JudgeService:
    return JudgeService(providers=ProviderRegistry(classes={"metered": Metered}), **options)


def _plan(eval_set: EvalSet, judge: JudgeService, criteria=None, num_runs: int = 1):
    plan = plan_eval_sets([eval_set], eval_set, criteria or CRITERIA, registry=REGISTRY, judge=judge)
    recorded = {key: list(runs) * num_runs for key, runs in plan.recorded.items()}
    return dataclasses.replace(plan, recorded=recorded, num_runs=num_runs, judge_prices=PRICES)


def _expected(criterion: str, case_id: str) -> tuple[int, int, int]:
    """(calls, input tokens, output tokens) of one run of one case under ``criterion``."""
    params = {
        "model": "metered:a",
        "samples": 1,
        **{k: v for k, v in CRITERIA[criterion].items() if k != "threshold"},
    }
    prompts = [
        prompt_of(params["model"], case_id, text, s) for text in TURNS for s in range(params["samples"])
    ]
    return len(prompts), sum(map(len, prompts)), OUTPUT_TOKENS * len(prompts)


def _tokens(activity) -> tuple[int, int, int]:
    assert activity is not None
    return activity.calls, activity.input_tokens, activity.output_tokens


def _check_sums(result, cases: int, runs: int) -> None:
    """Every level holds exactly the sum of the level below, and the known token counts."""
    ids = [f"c{i:02d}" for i in range(cases)]
    totals = {name: [0, 0, 0] for name in CRITERIA}
    for case in result.cases():
        per_criterion = []
        for item in case.criteria:
            expected = tuple(runs * n for n in _expected(item.criterion, case.eval_id))
            assert _tokens(item.judge) == expected
            if runs > 1:  # each run's own result carries that run's calls
                assert all(_tokens(r.judge) == _expected(item.criterion, case.eval_id) for r in item.runs)
            per_criterion.append(expected)
            totals[item.criterion] = [a + b for a, b in zip(totals[item.criterion], expected, strict=True)]
        assert _tokens(case.judge) == tuple(map(sum, zip(*per_criterion, strict=True)))
    summary = result.summary
    by_name = {c.criterion: c for c in summary.criteria}
    for name, (calls, inputs, outputs) in totals.items():
        assert _tokens(by_name[name].judge) == (calls, inputs, outputs)
        assert calls == runs * sum(_expected(name, i)[0] for i in ids)
    assert _tokens(summary.judge) == tuple(map(sum, zip(*totals.values(), strict=True)))
    # metered:a is priced (asks), metered:b is not (asks_too): listed, never costed 0.
    a_calls, a_in, a_out = totals["asks"]
    assert by_name["asks"].judge_cost.total == pytest.approx((a_in * 2.0 + a_out * 10.0) / 1e6)
    assert by_name["asks"].judge_cost.unpriced == []
    assert by_name["asks_too"].judge_cost.total == 0.0 and by_name["asks_too"].judge_cost.by_model == {}
    assert by_name["asks_too"].judge_cost.unpriced == ["metered:b"]
    assert summary.judge_cost.total == pytest.approx(by_name["asks"].judge_cost.total)
    assert summary.judge_cost.unpriced == ["metered:b"]
    assert summary.judge.models["metered:a"].input_tokens == a_in


def test_tokens_per_result_case_criterion_and_run_are_the_sums_of_the_calls():
    CALLS.clear()
    judge = _judge()
    result = run_sync(EvalRun(_plan(_eval_set(4), judge), judge=judge).execute())
    _check_sums(result, cases=4, runs=1)
    assert len(CALLS) == result.summary.judge.calls


def test_several_runs_per_case_sum_every_runs_calls():
    judge = _judge()
    result = run_sync(EvalRun(_plan(_eval_set(3), judge, num_runs=3), judge=judge).execute())
    _check_sums(result, cases=3, runs=3)


def test_cache_hits_cost_no_tokens_and_are_counted_as_hits(tmp_path):
    first = _judge(cache=JudgeCache(tmp_path))
    run_sync(EvalRun(_plan(_eval_set(2), first), judge=first).execute())
    CALLS.clear()
    again = _judge(cache=JudgeCache(tmp_path))
    result = run_sync(EvalRun(_plan(_eval_set(2), again), judge=again).execute())
    assert CALLS == []
    calls = sum(_expected(name, f"c{i:02d}")[0] for name in CRITERIA for i in range(2))
    activity = result.summary.judge
    assert (activity.calls, activity.cache_hits, activity.input_tokens, activity.output_tokens) == (
        0,
        calls,
        0,
        0,
    )
    assert all(c.judge.cache_hits == 6 and c.judge.input_tokens == 0 for c in result.cases())
    assert result.summary.judge_cost.total == 0.0 and result.summary.judge_cost.unpriced == []


def test_a_resumed_run_and_its_readers_count_every_recorded_call(tmp_path):
    eval_set = _eval_set(30)
    CALLS.clear()
    judge = _judge(concurrency=2)
    run = open_run(_plan(eval_set, judge), runs_dir=tmp_path, argv=["test"], judge=judge, concurrency=2)
    STOP.append((90, lambda: run.interrupt("SIGINT")))
    try:
        first = run_sync(run.execute())
    finally:
        STOP.clear()
    assert first.interrupted and 0 < len(RecordedRun.open(run.writer.folder).keys()) < 30
    judge = _judge(concurrency=2)
    resumed = open_run(_plan(eval_set, judge), runs_dir=tmp_path, resume="latest", argv=["test"], judge=judge)
    result = run_sync(resumed.execute())
    assert result.passed
    # the second session's service saw only its own calls; the summary counts them all
    assert judge.activity().calls < result.summary.judge.calls
    _check_sums(result, cases=30, runs=1)
    recorded = RecordedRun.open(run.writer.folder)
    assert recorded.result_summary() == result.summary  # the sealed summary, carried as written
    assert recorded.result().summary.criteria == result.summary.criteria  # recomputed: the same sums


def test_a_judge_budget_leaves_exactly_the_unjudged_results_inconclusive(tmp_path):
    criteria = {"asks": {"threshold": 0.5}}  # one call a turn, two turns a case
    judge = _judge(budget=5, concurrency=1)
    plan = _plan(_eval_set(4), judge, criteria=criteria)
    run = open_run(plan, runs_dir=tmp_path, argv=["test"], judge=judge, concurrency=1)
    result = run_sync(run.execute())
    results = [case.criteria[0] for case in result.cases()]
    judged_turns = 0
    unjudged = []
    for item in results:
        refused = [p for p in item.per_invocation if p.reason_code == "judge_budget"]
        judged_turns += len(item.per_invocation) - len(refused)
        if refused:
            unjudged.append(item)
            assert item.status is Status.NOT_EVALUATED and item.score is None
            assert item.reason_code == "judge_budget"
            assert (item.verdict.verdict, item.verdict.basis) == ("INCONCLUSIVE", "judge_budget")
            if len(refused) < len(item.per_invocation):  # judged in part: never the judged turns' mean
                assert item.details["judged_score"] == 1.0
                assert "before 1 of 2 invocation(s) were judged" in item.reason
        else:
            assert item.status is Status.PASSED and item.verdict.verdict == "PASS"
    assert judged_turns == 5 and unjudged and len(unjudged) < 4
    summary = result.summary
    assert summary.budget.inconclusive == len(unjudged)
    assert summary.not_evaluated_reasons == {"judge_budget": len(unjudged)}
    (criterion,) = summary.eval_sets[0].criteria
    assert criterion.verdict == "INCONCLUSIVE"  # an unjudged case does not FAIL the set
    assert criterion.verdict_counts["INCONCLUSIVE"] == len(unjudged) and criterion.verdict_counts["FAIL"] == 0
    assert summary.judge.failures == {"judge_budget": 3}


def test_a_folder_an_older_engine_wrote_reads_its_budget_code_as_judge_budget(tmp_path):
    criteria = {"asks": {"threshold": 0.5}}
    judge = _judge(budget=3, concurrency=1)
    run = open_run(
        _plan(_eval_set(3), judge, criteria=criteria), runs_dir=tmp_path, argv=["test"], judge=judge
    )
    now = run_sync(run.execute())
    # As an older engine wrote it: judge_budget_exhausted, a NOT_EVALUATED point verdict.
    results = run.writer.folder / "results.jsonl"
    lines = []
    for line in results.read_text().splitlines():
        record = json.loads(line)
        for item in record["criteria"]:
            if item["reason_code"] == "judge_budget":
                item["reason_code"] = "judge_budget_exhausted"
                item["verdict"] = {"verdict": "NOT_EVALUATED", "basis": "single-run", "reason": "no score"}
                for turn in item["per_invocation"]:
                    if turn["reason_code"] == "judge_budget":
                        turn["reason_code"] = "judge_budget_exhausted"
        lines.append(json.dumps(record))
    results.write_text("\n".join(lines) + "\n")
    old = RecordedRun.open(run.writer.folder).result()  # the sealed summary no longer checks
    assert [c.criteria[0].reason_code for c in old.cases()] == [
        c.criteria[0].reason_code for c in now.cases()
    ]
    assert [c.criteria[0].verdict for c in old.cases()] == [c.criteria[0].verdict for c in now.cases()]
    assert old.summary.not_evaluated_reasons == now.summary.not_evaluated_reasons
    assert old.summary.eval_sets == now.summary.eval_sets
