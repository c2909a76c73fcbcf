"""Interrupting a run while it scores (judges, slow criteria): finished cases are recorded,
the rest are NOT_EVALUATED ``interrupted``, and a resumed run scores only those."""

from __future__ import annotations

import asyncio
import io

from agenteval import EvalRun, Evaluator, EvaluatorInfo, Score, Status
from agenteval._api import run_sync
from agenteval._reporting import render_table
from agenteval._run import _evalrun, plan_eval_sets
from agenteval._run._session import open_run
from agenteval.models import EvalSet
from agenteval.runs import RecordedRun, RunState, _reader
from agenteval.testing import make_case, make_invocation, registry_for
from rich.console import Console

CALLS: list[str] = []


class Slow(Evaluator):
    """Stands in for a judge criterion: each case takes a while."""

    info = EvaluatorInfo(description="Slow.")

    async def evaluate(self, ctx):
        CALLS.append(ctx.case.eval_id)
        await asyncio.sleep(0.02)
        return Score(value=1.0)


REGISTRY = registry_for(slow=Slow)


def _cases(n: int) -> EvalSet:
    return EvalSet(
        eval_set_id="s",
        eval_cases=[make_case([make_invocation(f"q{i}", "a")], eval_id=f"c{i:03d}") for i in range(n)],
    )


def _plan(eval_set: EvalSet):
    return plan_eval_sets([eval_set], eval_set, {"slow": 0.5}, registry=REGISTRY, judge=None)


def test_an_interruption_while_scoring_keeps_what_was_scored_and_resume_scores_the_rest(tmp_path):
    CALLS.clear()
    eval_set = _cases(40)
    run = open_run(_plan(eval_set), runs_dir=tmp_path, argv=["test"], concurrency=2)

    async def interrupted():
        task = asyncio.ensure_future(run.execute())
        while len(CALLS) < 10:
            await asyncio.sleep(0.005)
        run.interrupt("SIGINT")
        return await task

    result = run_sync(interrupted())
    assert result.interrupted and run.stopped_by == "SIGINT"
    statuses = [c.status for c in result.cases()]
    recorded = RecordedRun.open(run.writer.folder)
    assert recorded.manifest.state is RunState.INTERRUPTED and recorded.manifest.exit_code == 130
    finished = len(recorded.keys())
    assert statuses.count(Status.PASSED) == finished and 0 < finished < 40
    assert {c.criteria[0].reason_code for c in result.cases() if c.status is Status.NOT_EVALUATED} == {
        "interrupted"
    }
    assert result.summary.not_evaluated_reasons == {"interrupted": 40 - finished}

    CALLS.clear()
    resumed = open_run(_plan(eval_set), runs_dir=tmp_path, resume="latest", argv=["test"])
    result = run_sync(resumed.execute())
    assert result.passed and len(result.cases()) == 40
    assert len(CALLS) == 40 - finished  # finished cases were not scored again
    assert RecordedRun.open(run.writer.folder).manifest.state is RunState.COMPLETE


def test_a_run_cancelled_from_outside_is_interrupted_not_lost():
    CALLS.clear()
    run = EvalRun(_plan(_cases(30)), concurrency=1)

    async def cancelled():
        task = asyncio.ensure_future(run.execute())
        while len(CALLS) < 3:
            await asyncio.sleep(0.005)
        run._task.cancel()  # what a host's own cancellation does
        return await task

    result = run_sync(cancelled())
    assert result.interrupted and run.stopped_by == "cancelled"
    assert 2 <= sum(c.status is Status.PASSED for c in result.cases()) < 30  # the third was in flight


def _interrupted_after(run: EvalRun, calls: int):
    async def interrupted():
        task = asyncio.ensure_future(run.execute())
        while len(CALLS) < calls:
            await asyncio.sleep(0.005)
        run.interrupt("SIGINT")
        return await task

    return run_sync(interrupted())


def test_an_interrupted_run_and_its_report_make_a_never_started_case_once_per_set(tmp_path, monkeypatch):
    """Issue 21: Ctrl-C at 20k cases took 16 s, most of it making the NOT_EVALUATED result of
    every case that never started, twice (the run's result, then the report's listing).
    Those cases differ only by their id: each is made once per set, and the result is the
    same as making every one."""
    CALLS.clear()
    made: list[str] = []
    real = _evalrun.case_from_records

    def counted(entry, case_id, records, *args, **options):
        made.append(case_id)
        return real(entry, case_id, records, *args, **options)

    monkeypatch.setattr(_evalrun, "case_from_records", counted)
    monkeypatch.setattr(_reader, "case_from_records", counted)
    plan = _plan(_cases(200))
    run = open_run(plan, runs_dir=tmp_path, argv=["test"], concurrency=2)
    result = _interrupted_after(run, 10)
    recorded = RecordedRun.open(run.writer.folder)
    finished = {key[1] for key in recorded.keys()}
    never_started = [c for c in plan.sets[0].case_ids if c not in finished and c not in CALLS]
    assert len(never_started) > 150
    assert sum(case_id in never_started for case_id in made) <= 1
    entry = plan.sets[0].entry
    for case in result.cases():
        if case.eval_id in never_started:
            assert case == real(entry, case.eval_id, [None], run.case_confidence, run_id=run.run_id)
    assert recorded.result_summary() == result.summary  # recomputed from the records, case by case

    made.clear()
    render_table(recorded, Console(file=io.StringIO(), width=120), summary=result.summary)
    assert sum(case_id in never_started for case_id in made) <= 1
