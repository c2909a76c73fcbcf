"""Scoring ahead: a large run of recorded turns scored by the driver and a forked helper
writes the bytes a run scored in one process writes; whatever the helper cannot do (a
criterion that raises or waits there, a helper that dies, an interruption) the driver does,
and the helper never outlives the run."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest
from agenteval import Evaluator, EvaluatorInfo, Score, Status
from agenteval._api import run_sync
from agenteval._registry import Registry
from agenteval._results import PluginInfo
from agenteval._run import _ahead, plan_eval_sets
from agenteval._run._session import open_run
from agenteval.models import EvalSet
from agenteval.testing import make_case, make_invocation, registry_for

from tests.fixtures.scoring_ahead import watch_helpers

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or sys.platform == "darwin", reason="the helper is a forked process"
)

#: This test process: an evaluator tells the helper from the driver by it.
DRIVER = os.getpid()
FILES = ("results.jsonl", "index.jsonl", "scores.jsonl", "set_summaries.jsonl", "summary.json")


def _sets(n: int) -> tuple[EvalSet, dict]:
    """``n`` cases of one turn and one tool call; the actual turns differ from the expected
    ones in some calls' arguments and some answers."""
    expected = EvalSet(
        eval_set_id="s",
        eval_cases=[
            make_case(
                [make_invocation(f"q{i}", f"the answer is {i} for you", [("search", {"q": i})])],
                eval_id=f"c{i:04d}",
            )
            for i in range(n)
        ],
    )
    actual = {
        f"c{i:04d}": [
            make_invocation(
                f"q{i}",
                f"the answer is {i} for you" if i % 3 else "something else entirely",
                [("search", {"q": i if i % 5 else -1})],
            )
        ]
        for i in range(n)
    }
    return expected, actual


@pytest.fixture
def helpers(monkeypatch) -> list[tuple[int, _ahead.ScoreAhead]]:
    """A helper for every run of 100 units or more (``watch_helpers``)."""
    return watch_helpers(monkeypatch, 100)


def _run(tmp_path, name: str, criteria: dict, n: int, registry=None, **options):
    expected, actual = _sets(n)
    plan = plan_eval_sets([expected], actual, criteria, registry=registry or Registry(), judge=None)
    return open_run(plan, runs_dir=tmp_path / name, argv=["test"], run_id="pinned", **options)


def _reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_a_run_scored_ahead_writes_the_same_bytes_as_a_run_scored_alone(tmp_path, helpers, monkeypatch):
    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)  # every duration 0: the same bytes
    criteria = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}
    ahead = _run(tmp_path, "ahead", criteria, 600)
    ahead_result = run_sync(ahead.execute())
    assert len(helpers) == 1 and helpers[0][1].units_ahead > 0  # the helper scored some of them
    with monkeypatch.context() as alone:
        alone.setattr(_ahead, "can_fork", lambda: False)
        single = _run(tmp_path, "single", criteria, 600)
        single_result = run_sync(single.execute())
    assert len(helpers) == 1
    for name in FILES:
        mine = (ahead.writer.folder / name).read_bytes()
        assert mine == (single.writer.folder / name).read_bytes(), name
    assert ahead_result.summary == single_result.summary
    assert [c.model_dump() for c in ahead_result.cases()] == [c.model_dump() for c in single_result.cases()]
    assert _reaped(helpers[0][0])


def test_a_cli_run_of_two_recorded_runs_per_case_scored_ahead_writes_the_same_bytes(
    tmp_path, helpers, monkeypatch
):
    from agenteval.cli import main
    from click.testing import CliRunner

    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)
    for holder in ("agenteval.runs._folder", "agenteval.runs", "agenteval._run._session"):
        monkeypatch.setattr(f"{holder}.new_run_id", lambda: "pinned", raising=False)
    expected, actual = _sets(200)
    (tmp_path / "s.evalset.json").write_text(expected.model_dump_json(exclude_none=True), encoding="utf-8")
    recorded = EvalSet(
        eval_set_id="s",
        eval_cases=[c.model_copy(update={"conversation": actual[c.eval_id]}) for c in expected.eval_cases],
    )
    sources = []
    for name in ("first", "second"):
        sources += ["--actual", str(tmp_path / f"{name}.actual.json")]
        (tmp_path / f"{name}.actual.json").write_text(
            recorded.model_dump_json(exclude_none=True), encoding="utf-8"
        )
    criteria = "tool_trajectory_avg_score,response_match_score"

    def run(name: str) -> Path:
        args = ["run", str(tmp_path / "s.evalset.json"), *sources, "--criteria", criteria]
        args += [
            "--runs-dir",
            str(tmp_path / name),
            "--format",
            "json",
            "--output",
            str(tmp_path / f"{name}.json"),
        ]
        done = CliRunner().invoke(main, args)
        assert done.exit_code == 1, done.output  # some cases fail
        [folder] = (tmp_path / name).iterdir()
        return folder

    ahead = run("ahead")
    assert len(helpers) == 1 and helpers[0][1].units_ahead > 0
    monkeypatch.setattr(_ahead, "can_fork", lambda: False)
    alone = run("alone")
    assert len(helpers) == 1
    assert ahead.name == alone.name == "pinned"
    for name in (*FILES, "briefs.jsonl"):
        assert (ahead / name).read_bytes() == (alone / name).read_bytes(), name
    report = json.loads((tmp_path / "ahead.json").read_text(encoding="utf-8"))
    assert report == json.loads((tmp_path / "alone.json").read_text(encoding="utf-8"))
    assert len(report["eval_sets"][0]["cases"]) == 200


class Shy(Evaluator):
    """Scores a case by its number's parity; in the helper it raises for every third case,
    waits for the next, and at case 300 the helper dies."""

    info = EvaluatorInfo(description="Shy.")

    def evaluate(self, ctx):
        number = int(ctx.case.eval_id[1:])
        if os.getpid() != DRIVER:
            if number == 300:
                os._exit(3)
            if number % 3 == 0:
                raise RuntimeError("not in the helper")
            if number % 3 == 1:

                async def later() -> Score:
                    await asyncio.sleep(0)
                    return Score(value=float(number % 2))

                return later()
        return Score(value=float(number % 2))


def test_what_the_helper_cannot_score_the_driver_scores(tmp_path, helpers, monkeypatch):
    monkeypatch.setattr(_ahead, "installed", lambda plugin: True)  # this test's class is in memory
    run = _run(tmp_path, "shy", {"shy": 0.5}, 400, registry=registry_for(shy=Shy), strict=True)
    result = run_sync(run.execute())
    cases = {c.eval_id: c for c in result.cases()}
    assert len(cases) == 400
    assert all(cases[f"c{i:04d}"].status is (Status.PASSED if i % 2 else Status.FAILED) for i in range(400))
    assert all(not c.criteria[0].reason for c in cases.values())
    [(pid, ahead)] = helpers
    assert 0 < ahead.units_ahead < 100  # a third of the cases before 300 at most; none after it
    assert _reaped(pid)


class Raising(Evaluator):
    """Raises for every seventh case, wherever it runs (an ERRORED result with its traceback)."""

    info = EvaluatorInfo(description="Raising.")

    def evaluate(self, ctx):
        if int(ctx.case.eval_id[1:]) % 7 == 0:
            raise ValueError(f"no score for {ctx.case.eval_id}")
        return Score(value=1.0)


def test_errored_results_scored_ahead_are_the_ones_scored_alone(tmp_path, helpers, monkeypatch):
    monkeypatch.setattr(_ahead, "installed", lambda plugin: True)
    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)
    registry = registry_for(raising=Raising)
    ahead = _run(tmp_path, "ahead", {"raising": 0.5}, 300, registry=registry)
    ahead_result = run_sync(ahead.execute())
    assert len(helpers) == 1 and helpers[0][1].units_ahead > 0
    monkeypatch.setattr(_ahead, "can_fork", lambda: False)
    single = _run(tmp_path, "single", {"raising": 0.5}, 300, registry=registry)
    single_result = run_sync(single.execute())
    assert [c.model_dump() for c in ahead_result.cases()] == [c.model_dump() for c in single_result.cases()]
    errored = [c for c in ahead_result.cases() if c.status is Status.ERRORED]
    assert len(errored) == 43 and "no score for c0007" in errored[1].criteria[0].error.traceback
    for name in FILES:
        assert (ahead.writer.folder / name).read_bytes() == (single.writer.folder / name).read_bytes(), name


class StopAt:
    """A case sink that interrupts ``run`` when the case ``case_id`` finishes (in the driver,
    which finishes every case)."""

    def __init__(self, run, case_id: str) -> None:
        self.run, self.case_id = run, case_id
        run.case_sink = self

    def add(self, set_index: int, case_id: str, case) -> None:
        if case_id == self.case_id:
            asyncio.get_running_loop().call_soon(self.run.interrupt, "SIGINT")

    def add_copies(self, set_index: int, case, case_ids) -> None:
        pass


def test_an_interrupted_run_ends_its_helper(tmp_path, helpers):
    run = _run(tmp_path, "stopped", {"response_match_score": 0.5}, 2000)
    StopAt(run, "c0150")
    result = run_sync(run.execute())
    assert result.interrupted and run.stopped_by == "SIGINT"
    [(pid, _)] = helpers
    assert _reaped(pid)
    assert len(run.writer.folder.joinpath("results.jsonl").read_bytes().splitlines()) < 2000


@pytest.mark.parametrize(
    ("distribution", "entry_point", "installed"),
    [
        ("agenteval-builtin", "agenteval_builtin.trajectory:ToolTrajectoryAvgScore", True),
        ("acme-metrics", "acme.metrics:Tone", True),
        ("local", "metrics.py:tone", False),
        ("<in-memory>", "tests.test:Tone", False),
        ("agenteval-adk", "custom_metrics:project.metrics.tone", False),
    ],
)
def test_only_criteria_of_installed_distributions_are_scored_ahead(distribution, entry_point, installed):
    plugin = PluginInfo(distribution=distribution, version="1", entry_point=entry_point)
    assert _ahead.installed(plugin) is installed


def test_a_helper_is_forked_only_where_a_copy_of_the_run_fits_in_memory(monkeypatch):
    monkeypatch.setattr(_ahead._fork, "can_fork", lambda: True)
    monkeypatch.setattr(_ahead, "free_memory", lambda: 64 * 2**30)
    assert _ahead.can_fork()
    monkeypatch.setattr(_ahead, "free_memory", lambda: 2**20)  # less than this process holds
    assert not _ahead.can_fork()
    monkeypatch.setattr(_ahead, "free_memory", lambda: None)  # the system cannot tell
    assert _ahead.can_fork()
    monkeypatch.setattr(_ahead._fork, "can_fork", lambda: False)
    assert not _ahead.can_fork()


def test_small_resumed_or_local_runs_are_scored_alone(tmp_path, helpers, monkeypatch):
    monkeypatch.setattr(_ahead, "AHEAD_FROM_UNITS", 500)
    run_sync(_run(tmp_path, "small", {"response_match_score": 0.5}, 499).execute())
    run_sync(_run(tmp_path, "memory", {"shy": 0.5}, 600, registry=registry_for(shy=Shy)).execute())
    assert helpers == []
    run_sync(_run(tmp_path, "big", {"response_match_score": 0.5}, 500).execute())
    assert len(helpers) == 1
    # interrupted alone, then resumed: the resumed run is scored alone too
    with monkeypatch.context() as alone:
        alone.setattr(_ahead, "can_fork", lambda: False)
        first = _run(tmp_path, "resumed", {"response_match_score": 0.5}, 600)
        StopAt(first, "c0150")
        assert run_sync(first.execute()).interrupted
    expected, actual = _sets(600)
    plan = plan_eval_sets([expected], actual, {"response_match_score": 0.5}, registry=Registry(), judge=None)
    resumed = open_run(plan, runs_dir=tmp_path / "resumed", argv=["test"], resume="latest")
    assert not run_sync(resumed.execute()).interrupted
    assert len(helpers) == 1


def test_the_docs_give_the_size_from_which_a_run_scores_ahead():
    from pathlib import Path

    docs = Path(__file__).resolve().parents[3] / "docs"
    size = f"{_ahead.AHEAD_FROM_UNITS:,} units or more"
    for page in ("architecture.md", "writing-a-criterion.md"):
        assert size in " ".join((docs / page).read_text(encoding="utf-8").split()), page
