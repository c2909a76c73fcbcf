"""Recorded turns under synchronous criteria: the units run in the dispatch's own task, one
after another in plan order, with a turn of the event loop between batches (signals, the
deadline); a unit that waits after all goes on as a task of its own."""

from __future__ import annotations

import asyncio
import json

from agenteval import Evaluator, EvaluatorInfo, Score, Status
from agenteval._api import run_sync
from agenteval._run import _evalrun, plan_eval_sets
from agenteval._run._session import open_run
from agenteval.models import EvalSet
from agenteval.runs import RecordedRun, RunState
from agenteval.testing import make_case, make_invocation, registry_for

TASKS: list[object] = []
SEEN: list[str] = []


class Plain(Evaluator):
    """A synchronous criterion that notes which task scored each case."""

    info = EvaluatorInfo(description="Plain.")

    def evaluate(self, ctx):
        TASKS.append(asyncio.current_task())
        SEEN.append(ctx.case.eval_id)
        return Score(value=1.0)


class Deferred(Evaluator):
    """A synchronous ``evaluate`` that hands back an awaitable which waits."""

    info = EvaluatorInfo(description="Deferred.")

    def evaluate(self, ctx):
        async def later():
            await asyncio.sleep(0)
            return Score(value=0.5 if ctx.case.eval_id.endswith("7") else 1.0)

        return later()


REGISTRY = registry_for(plain=Plain, deferred=Deferred)


def _cases(n: int) -> EvalSet:
    return EvalSet(
        eval_set_id="s",
        eval_cases=[make_case([make_invocation(f"q{i}", "a")], eval_id=f"c{i:03d}") for i in range(n)],
    )


def _run(tmp_path, criteria: dict, n: int):
    eval_set = _cases(n)
    plan = plan_eval_sets([eval_set], eval_set, criteria, registry=REGISTRY, judge=None)
    return open_run(plan, runs_dir=tmp_path, argv=["test"])


def test_recorded_units_under_synchronous_criteria_share_one_task_and_keep_plan_order(tmp_path):
    TASKS.clear()
    SEEN.clear()
    run = _run(tmp_path, {"plain": 0.5}, 100)
    result = run_sync(run.execute())
    assert result.passed and len(result.cases()) == 100
    assert len(set(map(id, TASKS))) == 1  # no task per unit
    lines = (run.writer.folder / "results.jsonl").read_text(encoding="utf-8").splitlines()
    order = [json.loads(line)["case_id"] for line in lines]
    assert order == SEEN == [f"c{i:03d}" for i in range(100)]


def test_an_interruption_is_seen_between_batches_of_inline_units(tmp_path):
    SEEN.clear()
    run = _run(tmp_path, {"plain": 0.5}, 10 * _evalrun._INLINE_BATCH)

    class Interrupting(Plain):
        def evaluate(self, ctx):
            if len(SEEN) == _evalrun._INLINE_BATCH + 3:
                asyncio.get_running_loop().call_soon(run.interrupt, "SIGINT")
            return super().evaluate(ctx)

    for planned in run.plan.sets:
        for criterion in planned.criteria:
            criterion.evaluator.__class__ = Interrupting
    result = run_sync(run.execute())
    assert result.interrupted and run.stopped_by == "SIGINT"
    recorded = RecordedRun.open(run.writer.folder)
    assert recorded.manifest.state is RunState.INTERRUPTED
    # Stopped at the end of the batch the signal came in, not after every case.
    assert len(recorded.keys()) == 2 * _evalrun._INLINE_BATCH


def test_a_unit_that_waits_goes_on_as_a_task_and_every_record_is_written(tmp_path):
    run = _run(tmp_path, {"deferred": 0.8}, 30)
    result = run_sync(run.execute())
    statuses = {c.eval_id: c.status for c in result.cases()}
    assert len(statuses) == 30
    assert [k for k, s in statuses.items() if s is Status.FAILED] == ["c007", "c017", "c027"]
    assert len(RecordedRun.open(run.writer.folder).keys()) == 30
