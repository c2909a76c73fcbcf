"""How many cases a run admits at once: enough for every judge slot to have a case of its
own, so that judge criteria that ask in batches (curtailed sampling waits for a batch's
answers before asking again) keep the judge's limit full; a run without judge criteria
admits what it always did."""

from __future__ import annotations

import asyncio

from agenteval import Evaluator, EvaluatorInfo, JudgeOptions, JudgeRequest, JudgeResponse, JudgeService, Score
from agenteval._api import run_sync
from agenteval._registry import ProviderRegistry
from agenteval._run import EvalRun, plan_eval_sets
from agenteval.models import EvalSet
from agenteval.plugins import JudgeModel
from agenteval.testing import make_case, make_invocation, registry_for


class Counting(JudgeModel):
    """Answers after a moment; counts the calls in flight at once."""

    in_flight = most_in_flight = 0

    async def generate(self, request: JudgeRequest) -> JudgeResponse:
        cls = type(self)
        cls.in_flight += 1
        cls.most_in_flight = max(cls.most_in_flight, cls.in_flight)
        try:
            await asyncio.sleep(0.02)
        finally:
            cls.in_flight -= 1
        return JudgeResponse(text="yes" if sum(map(ord, request.prompt)) % 3 else "no")

    def identity(self) -> dict:
        return {"provider": "counting", "model": self.model}


class InTurns(Evaluator):
    """A judge criterion that asks one sample, waits for it, then asks a second one."""

    info = EvaluatorInfo(description="Asks twice, in turn.", requires_judge=True)

    def judge_models(self) -> list[str]:
        return ["counting:m"]

    async def evaluate(self, ctx):
        options = JudgeOptions(judge_model="counting:m")
        prompt = ctx.case.eval_id
        first = await ctx.judge.generate(JudgeRequest(prompt=prompt), options, 0)
        second = await ctx.judge.generate(JudgeRequest(prompt=prompt + first.text), options, 1)
        return Score(value=1.0 if second.text == "yes" else 0.0, reason=first.text + second.text)


class Plain(Evaluator):
    info = EvaluatorInfo(description="Deterministic.")

    def evaluate(self, ctx):
        return Score(value=1.0)


REGISTRY = registry_for(in_turns=InTurns, plain=Plain)


def _eval_set(n: int) -> EvalSet:
    return EvalSet(
        eval_set_id="s",
        eval_cases=[make_case([make_invocation(f"q{i}", "a")], eval_id=f"c{i:03d}") for i in range(n)],
    )


def _run(criterion: str, judge_concurrency: int) -> tuple[EvalRun, list]:
    Counting.in_flight = Counting.most_in_flight = 0
    judge = JudgeService(
        concurrency=judge_concurrency, providers=ProviderRegistry(classes={"counting": Counting})
    )
    eval_set = _eval_set(40)
    plan = plan_eval_sets([eval_set], eval_set, {criterion: 0.5}, registry=REGISTRY, judge=judge)
    run = EvalRun(plan, judge=judge, concurrency=1, agent_concurrency=1)
    result = run_sync(run.execute())
    return run, [c.model_dump() for c in result.cases()]


def _without_durations(cases: list) -> list:
    for case in cases:
        for criterion in case["criteria"]:
            criterion.pop("duration_seconds", None)
    return cases


def test_a_judge_criterion_asking_in_turns_keeps_the_judge_limit_full():
    # One evaluation slot and one agent slot admitted 3 cases at once before: 3 of the 12
    # judge slots in use, whatever the judge's limit.
    run, _ = _run("in_turns", judge_concurrency=12)
    assert Counting.most_in_flight == 12
    assert run.units_in_flight == 1 + 2 + 12


def test_the_verdicts_do_not_depend_on_how_many_cases_are_admitted():
    _, narrow = _run("in_turns", judge_concurrency=1)
    _, wide = _run("in_turns", judge_concurrency=12)
    assert _without_durations(narrow) == _without_durations(wide)
    assert len({c["criteria"][0]["reason"] for c in wide}) > 1


def test_a_run_without_judge_criteria_admits_what_it_always_did():
    run, _ = _run("plain", judge_concurrency=12)
    assert run.units_in_flight == 1 + 2
