"""The executor extension point: what runs a run's units (one case × run each) while the
driver stays the only writer of the run folder (``agenteval._run._executor``)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import agenteval
import pytest
from agenteval import Evaluator, EvaluatorInfo, RunOptions, RunRequest, Score, assemble, run_command
from agenteval._plugins import KINDS, PluginFinder
from agenteval._run import as_config
from agenteval._run._executor import LocalExecutor
from agenteval.cli import main
from agenteval.errors import PluginLoadError
from agenteval.models import EvalSet
from agenteval.plugins import Executor, WorkUnit
from agenteval.runs import RecordedRun, find_run
from agenteval.testing import make_case, make_invocation, registry_for
from click.testing import CliRunner


class Fixed(Evaluator):
    info = EvaluatorInfo(description="Scores 1.0.")

    def evaluate(self, ctx):
        return Score(value=1.0, reason="fixed")


REGISTRY = registry_for(fixed=Fixed)


def _eval_set(count: int) -> EvalSet:
    turn = make_invocation("q", "a")
    return EvalSet(
        eval_set_id="s",
        eval_cases=[
            make_case([turn.model_copy(update={"invocation_id": f"c{i}"})], eval_id=f"c{i}")
            for i in range(count)
        ],
    )


class Elsewhere(Executor):
    """Runs each unit "on a worker": its first attempt fails (a lost worker) and is retried;
    the record comes back with the worker's own run id."""

    workers = 3

    def __init__(self) -> None:
        self.attempts: dict[tuple, int] = {}
        self.started = self.closed = False

    async def start(self, context):
        assert context.plan.fingerprint()
        self.started = True

    async def run(self, unit: WorkUnit, local):
        for _ in range(2):
            self.attempts[unit.key] = self.attempts.get(unit.key, 0) + 1
            if self.attempts[unit.key] == 1:
                await asyncio.sleep(0)
                continue  # the worker was lost: retry the unit
            record = await local(unit)
            return record.model_copy(update={"run_id": "worker-run"})
        raise AssertionError("unreachable")

    async def aclose(self):
        self.closed = True


class OnAWorker(Executor):
    """Runs each unit as a worker would: on its own copy of the run (``EvalRun.run_unit``),
    with nothing of the driver's but the plan and the unit's key."""

    async def start(self, context):
        from agenteval import EvalRun

        self.worker = EvalRun(context.plan)

    async def run(self, unit: WorkUnit, local):
        return await self.worker.run_unit(dataclasses.replace(unit, recorded=None))


def _run(tmp_path: Path, executor: type[Executor] | None = None):
    cases = _eval_set(5)
    assembled = assemble(
        RunRequest(eval_sets=(cases,), actual_turns=cases, config=as_config({"fixed": 0.5})),
        registry=REGISTRY,
    )
    if executor is not None:
        assembled = dataclasses.replace(assembled, executor=executor)
    evaluation = assembled.open(runs_dir=tmp_path)
    result = asyncio.run(evaluation.execute())
    return evaluation, result, RecordedRun.open(evaluation.writer.folder)


def _lines(run: RecordedRun) -> list[dict]:
    lines = [json.loads(line) for line in (run.folder / "results.jsonl").read_text().splitlines()]
    for line in lines:
        line.pop("run_id"), line.pop("duration_s")
        for criterion in line["criteria"]:
            criterion.pop("duration_seconds", None)
    return sorted(lines, key=lambda line: (line["eval_set_index"], line["case_id"], line["run_index"]))


def test_the_default_executor_is_local_and_the_manifest_records_it(tmp_path):
    evaluation, result, run = _run(tmp_path)
    assert isinstance(evaluation.executor, LocalExecutor)
    assert run.manifest.executor == {
        "name": "local",
        "distribution": "agenteval-engine",
        "version": agenteval.__version__,
        "workers": 1,
    }
    assert result.passed and len(run.keys()) == 5


def test_an_executor_s_records_are_written_by_the_driver_once_each_and_equal_local_ones(tmp_path):
    _, _, local = _run(tmp_path / "local")
    evaluation, result, elsewhere = _run(tmp_path / "elsewhere", Elsewhere)
    executor = evaluation.executor
    assert executor.started and executor.closed
    assert set(executor.attempts.values()) == {2}  # every unit retried once...
    lines = (elsewhere.folder / "results.jsonl").read_text().splitlines()
    assert len(lines) == 5  # ...and written once
    assert {json.loads(line)["run_id"] for line in lines} == {elsewhere.run_id}
    assert _lines(elsewhere) == _lines(local)
    assert elsewhere.manifest.executor["workers"] == 3
    assert result.summary.model_dump(exclude={"run_id"}) == local.result_summary().model_dump(
        exclude={"run_id"}
    )


class Reporting(Elsewhere):
    """An executor that reports its shared limits' end state (asked after ``aclose``)."""

    def report(self):
        assert self.closed
        return {"limits": [{"label": "judge at x", "window": 2, "halvings": 1}]}


def test_a_non_local_executor_s_workers_show_in_the_progress_line_and_its_report_in_the_manifest(
    tmp_path,
):
    from agenteval._run import SilentProgress

    cases = _eval_set(2)
    assembled = assemble(
        RunRequest(eval_sets=(cases,), actual_turns=cases, config=as_config({"fixed": 0.5})),
        registry=REGISTRY,
    )
    info = {"name": "elsewhere", "distribution": "x", "version": "1"}
    progress = SilentProgress()
    evaluation = dataclasses.replace(assembled, executor=Reporting, executor_info=info).open(
        runs_dir=tmp_path, progress=progress
    )
    asyncio.run(evaluation.execute())
    assert progress.line().startswith("2/2 cases on 3 workers · 2 passed")
    manifest = RecordedRun.open(evaluation.writer.folder).manifest
    assert manifest.executor == {
        **info,
        "workers": 3,
        "limits": [{"label": "judge at x", "window": 2, "halvings": 1}],
    }
    local = SilentProgress()
    asyncio.run(assembled.open(runs_dir=None, progress=local).execute())
    assert local.line().startswith("2/2 cases · 2 passed")  # one process: no workers shown


def test_an_executor_that_breaks_its_contract_is_refused_by_the_finder():
    finder = PluginFinder(KINDS["agenteval.executors"], {"bad": object, "good": LocalExecutor})
    assert finder.load_one("good") is LocalExecutor
    with pytest.raises(PluginLoadError, match="not a subclass of agenteval.plugins.Executor"):
        finder.load_one("bad")


def test_an_unknown_executor_stops_the_run_before_any_work_with_the_installed_ones(tmp_path):
    (tmp_path / "s.evalset.json").write_text(_eval_set(1).model_dump_json())
    result = CliRunner().invoke(
        main,
        ["run", str(tmp_path / "s.evalset.json"), "--actual", str(tmp_path / "s.evalset.json")]
        + ["--executor", "rya", "--runs-dir", str(tmp_path / "runs")],
    )
    assert result.exit_code == 2, result.output
    assert (
        "'rya' is not an installed executor" in result.output
        and "installed executors: local" in result.output
    )
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


def test_the_ray_executor_not_installed_says_where_it_comes_from():
    message = PluginFinder(KINDS["agenteval.executors"]).unknown_message("ray")
    assert "agenteval-ray" in message


def test_the_executor_and_shard_are_options_every_caller_gives_and_the_rerun_command_keeps():
    request = RunRequest(
        paths=("e.evalset.json",), actual=("a.json",), options=RunOptions(executor="ray", shard="2/4")
    )
    argv = run_command(request)
    assert argv[argv.index("--executor") + 1] == "ray" and argv[argv.index("--shard") + 1] == "2/4"
    assert "--executor" not in run_command(dataclasses.replace(request, options=RunOptions()))


def test_the_cli_records_the_executor_it_ran_with(tmp_path):
    (tmp_path / "s.evalset.json").write_text(_eval_set(2).model_dump_json())
    result = CliRunner().invoke(
        main,
        ["run", str(tmp_path / "s.evalset.json"), "--actual", str(tmp_path / "s.evalset.json")]
        + ["--executor", "local", "--criteria", "response_match_score", "--runs-dir", str(tmp_path / "runs")],
    )
    assert result.exit_code == 0, result.output
    assert find_run(tmp_path / "runs").manifest.executor["name"] == "local"


def test_a_worker_runs_a_unit_on_its_own_copy_of_the_run_and_records_what_local_does(tmp_path):
    _, _, local = _run(tmp_path / "local")
    _, result, worker = _run(tmp_path / "worker", OnAWorker)
    assert _lines(worker) == _lines(local)
    assert result.summary.model_dump(exclude={"run_id"}) == local.result_summary().model_dump(
        exclude={"run_id"}
    )


class Stuck(Executor):
    """Runs units c0 and c1; every other unit waits until it is cancelled (a Ctrl-C)."""

    cancelled: list = []
    closed = False

    async def run(self, unit: WorkUnit, local):
        if unit.case_id in ("c0", "c1"):
            return await local(unit)
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            type(self).cancelled.append(unit.key)
            raise

    async def aclose(self):
        type(self).closed = True


class Counting(Executor):
    ran: list = []

    async def run(self, unit: WorkUnit, local):
        type(self).ran.append(unit.key)
        return await local(unit)


def test_an_interrupted_executor_run_cancels_its_units_and_resumes_with_another_executor(tmp_path):
    cases = _eval_set(5)
    request = RunRequest(eval_sets=(cases,), actual_turns=cases, config=as_config({"fixed": 0.5}))
    stuck = dataclasses.replace(assemble(request, registry=REGISTRY), executor=Stuck)
    evaluation = stuck.open(runs_dir=tmp_path)

    async def interrupted():
        task = asyncio.ensure_future(evaluation.execute())
        while evaluation.writer.records_written < 2:  # c0 and c1 recorded, the others waiting
            await asyncio.sleep(0.01)
        evaluation.interrupt()
        return await task

    result = asyncio.run(interrupted())
    assert result.interrupted and Stuck.closed
    assert sorted(Stuck.cancelled) == [(0, "c2", 1), (0, "c3", 1), (0, "c4", 1)]
    assert RecordedRun.open(evaluation.writer.folder).keys() == {(0, "c0", 1), (0, "c1", 1)}
    counting = dataclasses.replace(assemble(request, registry=REGISTRY), executor=Counting)
    resumed = counting.open(runs_dir=tmp_path, resume=evaluation.run_id)
    assert asyncio.run(resumed.execute()).passed
    assert sorted(Counting.ran) == [(0, "c2", 1), (0, "c3", 1), (0, "c4", 1)]  # only the unfinished
    assert len(RecordedRun.open(evaluation.writer.folder).keys()) == 5
