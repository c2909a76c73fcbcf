"""``RecordedRun.result_summary``: a finished run's own sealed ``summary.json`` when it covers
the records as they are, else the summary recomputed from the records; both the same."""

from __future__ import annotations

import asyncio
import json
import mmap
import os
from collections.abc import Callable
from pathlib import Path
from typing import Optional
from unittest import mock

import agenteval
import pytest
from agenteval import Status
from agenteval._resolve import resolve_criteria
from agenteval._run import Plan, PlannedSet, as_config, run_sync
from agenteval._run._planners import criterion_entry
from agenteval._run._session import open_run
from agenteval.models import EvalSet
from agenteval.plugins import Agent, AgentSession
from agenteval.runs import CaseRecord, RecordedRun, RunState, SummaryDocument, list_runs
from agenteval.runs._records import summary_digest
from agenteval.testing import make_case, make_invocation, registry_for
from hypothesis import given, settings
from hypothesis import strategies as st

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "travel"


def _complete_run(runs: Path) -> RecordedRun:
    config = agenteval.load_config(EXAMPLE / "test_config.json")
    agenteval.evaluate(EXAMPLE / "travel.evalset.json", EXAMPLE / "travel.actual.json", config, runs_dir=runs)
    [run] = list_runs(runs)
    return run


def test_a_complete_runs_written_summary_is_what_the_records_give(tmp_path, monkeypatch):
    run = _complete_run(tmp_path / "runs")
    recomputed = run._summary(run.case_results())
    never = lambda *args, **kwargs: (_ for _ in ()).throw(AssertionError("the records were read"))  # noqa: E731
    monkeypatch.setattr(RecordedRun, "case_results", never)
    assert RecordedRun.open(run.folder).result_summary() == recomputed


def test_a_listed_case_is_read_where_the_listing_found_it_without_keying_every_record(tmp_path, monkeypatch):
    run = _complete_run(tmp_path / "runs")
    keys = [(entry.index, case_id, 1) for entry in run.manifest.eval_sets for case_id in entry.case_ids]
    expected = [RecordedRun.open(run.folder).record(key) for key in keys]
    listed = RecordedRun.open(run.folder)
    list(listed.case_listing())  # from scores.jsonl
    never = lambda *args, **kwargs: (_ for _ in ()).throw(AssertionError("every record keyed"))  # noqa: E731
    monkeypatch.setattr(RecordedRun, "_index", never)
    assert [listed.record(key) for key in keys] == expected
    assert all(record is not None for record in expected)


def test_a_record_read_as_far_as_its_scores_has_its_criteria_and_no_turn(tmp_path):
    run = _complete_run(tmp_path / "runs")
    keys = [(entry.index, case_id, 1) for entry in run.manifest.eval_sets for case_id in entry.case_ids]
    for key in keys:
        whole, scored = run.record(key), run.record(key, scored=True)
        assert whole is not None and scored is not None
        assert (scored.run_id, scored.criteria) == (whole.run_id, whole.criteria)
        assert not hasattr(scored, "expected") and scored.actual is None
    assert run.record((0, "no such case", 1), scored=True) is None


def test_a_summary_older_than_the_records_is_recomputed(tmp_path):
    run = _complete_run(tmp_path / "runs")
    written = run.summary()
    assert written is not None and written.sha256 is not None
    doctored = written.model_copy(
        update={"summary": written.summary.model_copy(update={"not_evaluated_reasons": {"x": 1}})}
    )
    (run.folder / "summary.json").write_text(doctored.sealed(), encoding="utf-8")
    assert RecordedRun.open(run.folder).result_summary() == doctored.summary  # sealed, of these records
    later = (run.folder / "summary.json").stat().st_mtime_ns + 10**9
    os.utime(run.folder / "results.jsonl", ns=(later, later))
    assert RecordedRun.open(run.folder).result_summary() == written.summary  # recomputed


def _doctored(run: RecordedRun) -> tuple[SummaryDocument, SummaryDocument]:
    written = run.summary()
    assert written is not None
    return written, written.model_copy(
        update={"summary": written.summary.model_copy(update={"status": Status.PASSED})}
    )


def test_a_summary_changed_by_hand_does_not_check_and_is_recomputed(tmp_path):
    run = _complete_run(tmp_path / "runs")
    written, doctored = _doctored(run)
    assert written.summary.status is not Status.PASSED
    path = run.folder / "summary.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["summary"]["status"] = "PASSED"
    path.write_text(json.dumps(data), encoding="utf-8")  # by hand: the seal is the old one
    assert RecordedRun.open(run.folder).summary() is None
    assert RecordedRun.open(run.folder).result_summary() == written.summary
    path.write_text(doctored.sealed(), encoding="utf-8")  # spacing aside, what a writer writes
    path.write_text(json.dumps(json.loads(path.read_text(encoding="utf-8"))), encoding="utf-8")
    assert RecordedRun.open(run.folder).summary().summary == doctored.summary


def test_a_summary_of_other_records_or_without_a_seal_is_recomputed(tmp_path):
    run = _complete_run(tmp_path / "runs")
    written, doctored = _doctored(run)
    path = run.folder / "summary.json"
    grown = doctored.model_copy(update={"results_bytes": (doctored.results_bytes or 0) + 1})
    path.write_text(grown.sealed(), encoding="utf-8")
    assert RecordedRun.open(run.folder).result_summary() == written.summary
    path.write_text(
        doctored.model_copy(update={"sha256": None}).dump(), encoding="utf-8"
    )  # an older engine's
    assert RecordedRun.open(run.folder).result_summary() == written.summary


# -- interrupted and multi-run runs: their sealed summary is what the records give -------------


class _Reply(agenteval.Evaluator):
    """1.0 when the reply starts with "1", else 0.0 (a slow criterion: a run can be stopped)."""

    info = agenteval.EvaluatorInfo(description="The reply starts with 1.")

    async def evaluate(self, ctx):
        await asyncio.sleep(0.002)
        return agenteval.Score(value=1.0 if ctx.actual[-1].final_text().startswith("1") else 0.0)


class _VaryingAgent(Agent):
    """Case ``c<i>``'s k-th run answers "1" when bit k % 3 of i % 8 is set, then k spaces (no
    two runs of a case alike), so cases pass and fail."""

    def __init__(self) -> None:
        super().__init__("varying")
        self.calls: dict[str, int] = {}

    async def session(self, case):
        k = self.calls.get(case.eval_id, 0)
        self.calls[case.eval_id] = k + 1
        return _Session(("1" if (int(case.eval_id[1:]) % 8) >> (k % 3) & 1 else "0") + " " * k)


class _Session(AgentSession):
    def __init__(self, reply: str) -> None:
        self.reply = reply

    async def turn(self, user_content):
        return make_invocation("q", self.reply).model_copy(update={"user_content": user_content})


def _plan(num_runs: int, cases: int = 30, sets: int = 1) -> Plan:
    """``cases`` cases ``c0``… split over ``sets`` eval sets."""
    registry = registry_for(reply=_Reply)
    config = as_config({"reply": {"threshold": 0.6}})
    resolved = resolve_criteria([(c, "criteria") for c in config.criteria], registry, [])
    planned = []
    for index in range(sets):
        eval_set = EvalSet(
            eval_set_id=f"s{index}" if index else "s",
            eval_cases=[
                make_case([make_invocation("q", "1")], eval_id=f"c{i}") for i in range(index, cases, sets)
            ],
        )
        entries = [criterion_entry(r) for r in resolved]
        planned.append(PlannedSet.of(index, eval_set, eval_set.eval_cases, resolved, entries))
    return Plan(sets=tuple(planned), agent=_VaryingAgent(), agent_target="varying", num_runs=num_runs)


#: The cases an interrupted run has finished, at least, when it is stopped.
_FINISHED_FIRST = 4


def _recorded(
    plan: Plan, runs: Path, stop_after: Optional[int] = None, until: Callable[[], bool] = lambda: True
) -> RecordedRun:
    run = open_run(plan, runs_dir=runs, argv=["test"], agent_concurrency=2)

    async def go():
        task = asyncio.ensure_future(run.execute())
        if stop_after is not None:
            # ``stop_after`` agent calls made and a few cases finished: the agent's calls can run
            # ahead of the scoring, and a run stopped before any case finished records too few to
            # show (a run and its twin might then share no case); and ``until()`` holds
            while (
                sum(plan.agent.calls.values()) < stop_after
                or run.progress.done < _FINISHED_FIRST
                or not until()
            ):
                await asyncio.sleep(0.002)
            run.interrupt("SIGINT")
        return await task

    run_sync(go())
    [recorded] = list_runs(runs)
    return recorded


@pytest.mark.parametrize(
    ("num_runs", "stop_after", "state"),
    [(3, None, RunState.COMPLETE), (1, 12, RunState.INTERRUPTED), (3, 40, RunState.INTERRUPTED)],
    ids=["3-runs", "interrupted", "3-runs-interrupted"],
)
def test_an_interrupted_or_multi_run_runs_sealed_summary_is_what_the_records_give(
    tmp_path, monkeypatch, num_runs, stop_after, state
):
    run = _recorded(_plan(num_runs), tmp_path / "runs", stop_after)
    assert run.manifest.state is state
    recomputed = run._summary(run.case_results())
    assert len({c.status for _, c in run.case_results()}) > 1  # not all alike
    never = lambda *args, **kwargs: (_ for _ in ()).throw(AssertionError("the records were read"))  # noqa: E731
    monkeypatch.setattr(RecordedRun, "case_results", never)
    assert RecordedRun.open(run.folder).result_summary() == recomputed


@pytest.mark.parametrize(("stop_after", "state"), [(None, RunState.COMPLETE), (40, RunState.INTERRUPTED)])
def test_a_multi_run_runs_briefs_are_what_its_records_give_and_read_no_record(
    tmp_path, monkeypatch, stop_after, state
):
    run = _recorded(_plan(3), tmp_path / "runs", stop_after)
    assert run.manifest.state is state and (run.folder / "briefs.jsonl").exists()
    written = list(RecordedRun.open(run.folder).case_briefs())
    (run.folder / "briefs.jsonl").rename(tmp_path / "briefs.jsonl")
    combined = list(RecordedRun.open(run.folder).case_briefs())  # from the records
    assert written == combined
    assert len({b.status for b in written}) > 1 and [b.row for b in written] == list(range(30))
    (tmp_path / "briefs.jsonl").rename(run.folder / "briefs.jsonl")
    if state is RunState.COMPLETE:  # every case finished: its brief was written
        never = lambda *args, **kwargs: (_ for _ in ()).throw(AssertionError("a record was read"))  # noqa: E731
        monkeypatch.setattr(RecordedRun, "_read_at", never)
        monkeypatch.setattr(RecordedRun, "_walk", never)  # nor the index walked for offsets
    assert list(RecordedRun.open(run.folder).case_briefs()) == written


def test_a_multi_run_runs_first_briefs_parse_their_lines_only(tmp_path, monkeypatch):
    """The briefs of several runs per case are parsed as their cases come: a reader of the
    first cases (the viewer's first rows) parses their lines, not the whole file."""
    import agenteval.runs._reader as reader_module

    run = _recorded(_plan(3), tmp_path / "runs")
    expected = list(RecordedRun.open(run.folder).case_briefs())
    parsed = []
    real = reader_module._brief_line
    monkeypatch.setattr(
        reader_module, "_brief_line", lambda line, previews: parsed.append(1) or real(line, previews)
    )
    never = lambda *args, **kwargs: (_ for _ in ()).throw(AssertionError("parsed at once"))  # noqa: E731
    monkeypatch.setattr(RecordedRun, "_read_briefs", never)
    first = RecordedRun.open(run.folder).case_briefs()
    assert [next(first) for _ in range(3)] == expected[:3] and len(parsed) == 3


def test_a_multi_run_brief_line_not_as_written_is_combined_from_its_records_alone(tmp_path, monkeypatch):
    """A hand edit that keeps the file's size (the seal) leaves a line without its criteria:
    that case's brief comes from its records, found by the index; every other case's from
    its line; all as the records give them."""
    run = _recorded(_plan(3), tmp_path / "runs")
    path = run.folder / "briefs.jsonl"
    expected = list(RecordedRun.open(run.folder).case_briefs())
    lines = path.read_bytes().split(b"\n")
    lines[4] = lines[4].replace(b'"criteria":', b'"cRiteria":', 1)
    path.write_bytes(b"\n".join(lines))
    combined = []
    result = RecordedRun.case_result
    monkeypatch.setattr(
        RecordedRun,
        "case_result",
        lambda self, e, c, *a, **k: combined.append(c) or result(self, e, c, *a, **k),
    )
    assert list(RecordedRun.open(run.folder).case_briefs()) == expected
    assert combined == [json.loads(lines[4])["key"][1]]


@pytest.mark.parametrize("origin", ["recorded", "agent"])
def test_a_multi_run_runs_scored_records_come_from_the_briefs_places_without_its_index(
    tmp_path, monkeypatch, origin
):
    """``case_records(scored=True)`` of several runs per case: where every case's brief says
    where its recorded runs are, no index is made (``scores.jsonl``'s lines, parsed and kept,
    were half a gigabyte at 100k cases of 3 runs); an agent's runs (read with their turns)
    make it, as before."""
    if origin == "recorded":
        from agenteval.cli import main
        from click.testing import CliRunner

        actual = str(EXAMPLE / "travel.actual.json")
        args = ["run", str(EXAMPLE), "--actual", actual, "--actual", actual, "--runs-dir", str(tmp_path)]
        assert CliRunner().invoke(main, args).exit_code in (0, 1)
        [run] = list_runs(tmp_path)
    else:
        run = _recorded(_plan(3), tmp_path / "runs")
    assert run.manifest.num_runs > 1 and (run.folder / "briefs.jsonl").exists()

    def criteria(reader: RecordedRun) -> list:
        return [
            (e.index, c, [r.criteria if r else None for r in rs])
            for e, c, rs in reader.case_records(scored=True)
        ]

    with_index = RecordedRun.open(run.folder)
    with_index._index()
    expected = criteria(with_index)
    made = []
    index = RecordedRun._index
    monkeypatch.setattr(RecordedRun, "_index", lambda self: made.append(1) or index(self))
    assert criteria(RecordedRun.open(run.folder)) == expected and expected
    assert bool(made) is (origin == "agent")


def test_a_multi_run_case_is_read_where_its_brief_says_with_the_hints_the_run_gave(tmp_path, monkeypatch):
    """A case's brief holds where each of its runs was written and its INCONCLUSIVE verdicts'
    hints: a reader of the case seeks there (no other record's place looked up) and takes the
    hints back (no search for how many runs would settle it); the result is the one its
    records give."""
    import agenteval._stats._verdict as verdict_module

    run = _recorded(_plan(3), tmp_path / "runs")
    lines = [json.loads(line) for line in (run.folder / "briefs.jsonl").read_bytes().splitlines()]
    assert all(len(line["at"]) == 3 for line in lines)
    assert any(line.get("hints") for line in lines)  # the plan leaves some cases INCONCLUSIVE
    (run.folder / "briefs.jsonl").rename(tmp_path / "briefs.jsonl")
    plain = RecordedRun.open(run.folder)  # no brief: the index, and every hint searched for
    entry = plain.manifest.eval_sets[0]
    expected = {c: plain.case_result(entry, c, plain.case_runs(entry, c)) for c in entry.case_ids}
    (tmp_path / "briefs.jsonl").rename(run.folder / "briefs.jsonl")
    never = lambda *args, **kwargs: (_ for _ in ()).throw(AssertionError("looked up"))  # noqa: E731
    monkeypatch.setattr(RecordedRun, "_index", never)
    monkeypatch.setattr(verdict_module, "_units_to_settle", never)
    briefed = RecordedRun.open(run.folder)
    assert {c: briefed.case_result(entry, c, briefed.case_runs(entry, c)) for c in entry.case_ids} == expected
    assert any(r.verdict.hint for case in expected.values() for r in case.criteria if r.verdict)


def test_a_multi_run_listing_reads_the_heads_of_the_briefs_and_an_older_engines_whole(tmp_path, monkeypatch):
    """A listing and a reader of a few cases parse only the head of each brief line (key,
    status, marks, places, hints); a file of an older engine (no head: ``marks`` not written,
    ``criteria`` first) is read whole; both list what the records give."""
    run = _recorded(_plan(3), tmp_path / "runs")
    path = run.folder / "briefs.jsonl"
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    assert all(list(line)[:3] == ["key", "status", "marks"] for line in lines)
    (run.folder / "briefs.jsonl").rename(tmp_path / "briefs.jsonl")
    expected = list(RecordedRun.open(run.folder).case_listing())  # from the records
    (tmp_path / "briefs.jsonl").rename(path)
    assert len({row[2:] for row in expected}) > 1  # not all alike
    with monkeypatch.context() as patched:
        real = RecordedRun._read_briefs

        def cut_only(self, tail=None):
            assert tail is not None, "read whole"
            return real(self, tail)

        patched.setattr(RecordedRun, "_read_briefs", cut_only)
        heads = RecordedRun.open(run.folder)
        assert list(heads.case_listing()) == expected
        entry = heads.manifest.eval_sets[0]
        heads.case_result(entry, "c1", heads.case_runs(entry, "c1"))  # places and hints from the heads
        # without previews, the lines are read without them: the rest of each brief is the same
        plain = [b._replace(user="", reply="", rubric_texts={}) for b in heads.case_briefs(previews=False)]
    whole = list(RecordedRun.open(run.folder).case_briefs())
    assert plain == [b._replace(user="", reply="", rubric_texts={}) for b in whole]
    assert all(b.user for b in whole) and not any(b.user for b in heads.case_briefs(previews=False))
    older = [
        {
            "key": line["key"],
            "status": line["status"],
            "criteria": line["criteria"],
            "preview": line["preview"],
        }
        for line in lines
    ]
    data = b"".join(json.dumps(line, separators=(",", ":")).encode() + b"\n" for line in older)
    path.write_bytes(data)
    summary = json.loads((run.folder / "summary.json").read_text(encoding="utf-8"))
    summary["briefs_bytes"] = len(data)  # sealed again over the older file, as its run sealed it
    summary["sha256"] = summary_digest(summary)
    (run.folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    older_run = RecordedRun.open(run.folder)
    assert older_run._brief_heads() and "marks" not in next(iter(older_run._brief_heads().values()))
    assert list(older_run.case_listing()) == expected


def test_briefs_not_covered_by_the_summary_are_not_read(tmp_path):
    run = _recorded(_plan(3, cases=8), tmp_path / "runs")
    path = run.folder / "briefs.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    doctored = json.loads(lines[0])
    doctored["status"] = "PASSED" if doctored["status"] != "PASSED" else "FAILED"
    path.write_bytes(json.dumps(doctored).encode() + b"\n" + b"".join(lines[1:]))  # another size
    briefs = {b.case_id: b.status.value for b in RecordedRun.open(run.folder).case_briefs()}
    assert briefs[doctored["key"][1]] != doctored["status"]


def test_a_resumed_multi_run_run_lists_the_cases_of_both_sessions_as_its_records_give(tmp_path):
    runs = tmp_path / "runs"
    first = _recorded(_plan(3), runs, stop_after=40)
    before = (first.folder / "briefs.jsonl").read_bytes().count(b"\n")
    assert first.manifest.state is RunState.INTERRUPTED and before > 0
    resumed = open_run(_plan(3), runs_dir=runs, argv=["test"], agent_concurrency=2, resume="latest")
    run_sync(resumed.execute())
    run = RecordedRun.open(first.folder)
    assert run.manifest.state is RunState.COMPLETE
    # the earlier session's briefs were dropped; the resumed run counts every case again,
    # each once
    keys = [json.loads(line)["key"][1] for line in (run.folder / "briefs.jsonl").read_bytes().splitlines()]
    assert sorted(keys) == sorted(f"c{i}" for i in range(30))
    listed = list(run.case_briefs())
    # a case with runs of both sessions has no places in its brief: its records are found anyway
    entry = run.manifest.eval_sets[0]
    runs = [run.case_runs(entry, case_id) for case_id in entry.case_ids]
    assert runs == [[run.record((0, case_id, i)) for i in (1, 2, 3)] for case_id in entry.case_ids]
    (run.folder / "briefs.jsonl").unlink()
    assert listed == list(RecordedRun.open(run.folder).case_briefs())


@pytest.mark.parametrize(("num_runs", "stop_after"), [(1, 12), (3, 40)], ids=["one-run", "3-runs"])
def test_a_killed_runs_summary_is_what_its_whole_records_give_and_reads_only_their_scores(
    tmp_path, monkeypatch, num_runs, stop_after
):
    run = _recorded(_plan(num_runs), tmp_path / "runs", stop_after)
    sealed = run.summary()  # what the run wrote when it stopped there
    assert sealed is not None and sealed.state is RunState.INTERRUPTED
    killed = _killed(run)
    whole = killed._summary(killed.case_results())
    assert whole.cases[Status.NOT_EVALUATED] and whole.cases[Status.PASSED]  # finished and not
    never = lambda *args, **kwargs: (_ for _ in ()).throw(AssertionError("a whole record was read"))  # noqa: E731
    monkeypatch.setattr(CaseRecord, "model_validate_json", never)
    assert RecordedRun.open(run.folder).result_summary() == whole == sealed.summary


def _killed(run: RecordedRun) -> RecordedRun:
    """``run`` as a ``kill -9`` leaves it: no summary, a manifest that still says running."""
    (run.folder / "summary.json").unlink()
    manifest = json.loads((run.folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["state"] = "running"
    (run.folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    killed = RecordedRun.open(run.folder)
    assert not killed.in_progress
    return killed


def _reads(monkeypatch) -> list:
    """The records read from now on (their places)."""
    read: list = []
    real = RecordedRun._read_at

    def counted(self, handle, where, *args):
        read.append(where)
        return real(self, handle, where, *args)

    monkeypatch.setattr(RecordedRun, "_read_at", counted)
    return read


@pytest.mark.parametrize("num_runs", [1, 3], ids=["one-run", "3-runs"])
def test_a_killed_complete_runs_summary_is_the_one_it_wrote_from_its_saved_eval_sets_alone(
    tmp_path, monkeypatch, num_runs
):
    run = _recorded(_plan(num_runs, cases=24, sets=3), tmp_path / "runs")
    sealed = run.summary()
    assert sealed is not None and sealed.state is RunState.COMPLETE
    lines = (run.folder / "set_summaries.jsonl").read_bytes().splitlines()
    assert sorted(json.loads(line)["eval_set_index"] for line in lines) == [0, 1, 2]
    killed = _killed(run)
    read = _reads(monkeypatch)
    summary = killed.result_summary()
    assert read == []  # every eval set saved: no record read
    assert summary.model_dump_json() == sealed.summary.model_dump_json()
    assert len(summary.eval_sets) == 3 and summary.cases[Status.PASSED] and summary.cases[Status.FAILED]


@pytest.mark.parametrize(("num_runs", "stop_after"), [(1, 20), (3, 50)], ids=["one-run", "3-runs"])
def test_a_killed_runs_summary_reads_the_records_of_the_unfinished_eval_sets_only(
    tmp_path, monkeypatch, num_runs, stop_after
):
    # the sets in plan order: the first finishes before the interruption (its summary line is
    # written: with the agent's calls ahead of the scoring, a count of calls does not say so),
    # the last does not
    first_set_done = lambda: any((tmp_path / "runs").glob("*/set_summaries.jsonl"))  # noqa: E731
    run = _recorded(_plan(num_runs, cases=24, sets=3), tmp_path / "runs", stop_after, first_set_done)
    sealed = run.summary()
    assert sealed is not None and sealed.state is RunState.INTERRUPTED
    saved = [json.loads(line) for line in (run.folder / "set_summaries.jsonl").read_bytes().splitlines()]
    assert saved and len(saved) < 3
    killed = _killed(run)
    whole = killed._summary(killed.case_results())
    read = _reads(monkeypatch)
    summary = RecordedRun.open(run.folder).result_summary()
    assert summary.model_dump_json() == whole.model_dump_json() == sealed.summary.model_dump_json()
    assert len(read) <= len(killed.keys()) - 8 * len(saved) * num_runs
    # the unfinished sets' records are read (the interruption may have come before any was
    # written: then there is none to read)
    finished = {line["eval_set_index"] for line in saved}
    records = (run.folder / "results.jsonl").read_bytes().splitlines()
    unfinished = [r for r in map(json.loads, records) if r["eval_set_index"] not in finished]
    assert (len(read) > 0) == bool(unfinished)


def test_a_stale_or_damaged_saved_eval_set_is_read_from_its_records(tmp_path, monkeypatch):
    run = _recorded(_plan(1, cases=24, sets=3), tmp_path / "runs")
    sealed = run.summary()
    assert sealed is not None
    path = run.folder / "set_summaries.jsonl"
    first, second, third = path.read_bytes().splitlines()
    stale = json.loads(first)
    stale["results_bytes"] = 10  # its records were written after it: a resume wrote them again
    damaged = json.loads(second)
    damaged["state"]["cases"] = {"NOT_A_STATUS": 1}
    doctored = json.loads(third)
    doctored["state"]["cases"] = {"PASSED": 1000}  # checks: it is what the run saved that counts
    path.write_bytes(
        b"\n".join([json.dumps(stale).encode(), json.dumps(damaged).encode(), third[:-5]]) + b"\n"
    )
    killed = _killed(run)
    read = _reads(monkeypatch)
    assert killed.result_summary().model_dump_json() == sealed.summary.model_dump_json()
    assert len(read) == 24  # all three sets read from their records
    path.write_bytes(json.dumps(doctored).encode() + b"\n")
    assert RecordedRun.open(run.folder).result_summary().cases[Status.PASSED] >= 1000


@pytest.mark.parametrize("num_runs", [1, 3])
def test_a_record_whose_criteria_are_not_its_sets_reads_as_a_damaged_line(tmp_path, num_runs):
    """A hand edit that keeps the record valid JSON but gives it another criterion list: the
    record is skipped as a damaged line is (its run never recorded), not fed to the verdicts."""
    run = _recorded(_plan(num_runs, cases=4), tmp_path / "runs")
    path = run.folder / "results.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    first = json.loads(lines[0])
    first["criteria"].append(first["criteria"][0])  # the same criterion twice
    lines[0] = json.dumps(first).encode() + b"\n"
    path.write_bytes(b"".join(lines))
    (run.folder / "summary.json").unlink()
    again = RecordedRun.open(run.folder)
    results = {case.eval_id: case for _, case in again.case_results()}
    (criterion,) = results[first["case_id"]].criteria
    if num_runs == 1:
        assert (criterion.status, criterion.reason_code) == (Status.NOT_EVALUATED, "interrupted")
    else:  # two runs of three stand
        edited = criterion.runs[first["run_index"] - 1]
        assert len(criterion.runs) == 3 and edited.reason_code == "interrupted"
    assert len(results) == 4


def _replayed(runs: Path, cases: int = 12) -> RecordedRun:
    """A complete run of three recorded runs per case (as from three ``--actual`` files): case
    ``c<i>``'s runs answer "1" alike when i % 3 == 0 (one output repeated), "1" with 0, 1 and 2
    spaces after it when i % 3 == 1 (the same scores, other outputs), else "1", "0", "1"."""
    plan = _plan(3, cases=cases)
    replies = (["1", "1", "1"], ["1", "1 ", "1  "], ["1", "0", "1"])
    recorded = {
        (0, f"c{i}"): [[make_invocation("q", reply)] for reply in replies[i % 3]] for i in range(cases)
    }
    plan = Plan(sets=plan.sets, recorded=recorded, num_runs=3)
    evaluation = open_run(plan, runs_dir=runs, argv=["test"])
    run_sync(evaluation.execute())
    return RecordedRun.open(evaluation.writer.folder)


def test_a_multi_run_report_reads_the_turns_of_a_briefed_case_only_where_a_verdict_needs_them(
    tmp_path, monkeypatch
):
    """A reader of every case's result (the JSON document) reads a case whose brief the seal
    covers without its runs' turns (most of a record), and reads the turns back only for a
    verdict that depends on whether the runs' outputs were identical: the document is the
    one read from every whole record."""
    from agenteval._reporting import json_chunks

    run = _replayed(tmp_path / "runs")
    (run.folder / "briefs.jsonl").rename(tmp_path / "briefs.jsonl")
    whole = "".join(json_chunks(RecordedRun.open(run.folder)))  # no brief: every record whole
    (tmp_path / "briefs.jsonl").rename(run.folder / "briefs.jsonl")
    assert '"basis": "identical-runs"' in whole and '"basis": "runs"' in whole
    asked: list = []
    real = RecordedRun._same_outputs

    def counted(self, places, records):
        asked.append(places)
        return real(self, places, records)

    with monkeypatch.context() as patched:
        patched.setattr(RecordedRun, "_same_outputs", counted)
        assert "".join(json_chunks(RecordedRun.open(run.folder))) == whole
    assert len(asked) == 8  # the cases whose runs scored alike (i % 3 < 2): no other
    # turns not as a run writer writes them are compared through the models
    import agenteval.runs._reader as reader_module

    def other_shape(actual):
        raise KeyError("finalResponse")

    monkeypatch.setattr(reader_module, "_outputs", other_shape)
    assert "".join(json_chunks(RecordedRun.open(run.folder))) == whole


@pytest.mark.parametrize("exclude_none", [False, True], ids=["every field", "unset fields left out"])
def test_what_a_run_is_compared_on_is_what_same_outputs_compares(exclude_none):
    """``_outputs`` of a record's turns as plain JSON (events or legacy form, tool calls,
    texts of several parts, no turn, an error code) equal exactly where ``same_outputs`` says,
    whether the line has every field (older engines) or leaves the turns' unset ones out."""
    from agenteval._results import AgentRunRecord
    from agenteval._verdicts import same_outputs
    from agenteval.models import Content, Part
    from agenteval.runs._reader import _outputs

    def turn(text, calls=(), form="events", parts=None):
        invocation = make_invocation("q", text, list(calls), form=form if calls or form != "none" else None)
        if parts is not None:
            invocation = invocation.model_copy(update={"final_response": Content(role="model", parts=parts)})
        return invocation

    runs = [
        [turn("a", [("f", {"x": 1})])],
        [turn("a", [("f", {"x": 1})])],
        [turn("a", [("f", {"x": 2})])],
        [turn("a", [("g", {"x": 1})])],
        [turn("a", [("f", {"x": 1})], form="legacy")],
        [turn("a", [("f", {"x": 1}), ("f", None)])],
        [turn("b", [("f", {"x": 1})])],
        [turn("", parts=[Part(text="a"), Part(text=""), Part(text="b")])],
        [turn("a\nb")],
        [turn("a\nb", form="none")],
        [turn(None, form="legacy")],
        [turn("a"), turn("c")],
        [],
    ]
    records = [AgentRunRecord(run=1, invocations=turns) for turns in runs]
    records.append(AgentRunRecord(run=1, invocations=runs[0], error_code="agent_timeout"))
    lines = [r.model_dump_json(by_alias=True, exclude_none=exclude_none) for r in records]
    plain = [_outputs(json.loads(line)) for line in lines]
    for a, first in zip(records, plain, strict=True):
        for b, second in zip(records, plain, strict=True):
            assert (first is not None and second is not None and first == second) == same_outputs([a, b])


def test_a_multi_run_case_made_by_the_agent_is_read_with_its_turns(tmp_path, monkeypatch):
    """The agent's turns are the case's ``agent_runs``: its records are read whole."""
    from agenteval._reporting import json_chunks

    run = _recorded(_plan(3, cases=6), tmp_path / "runs")
    (run.folder / "briefs.jsonl").rename(tmp_path / "briefs.jsonl")
    whole = "".join(json_chunks(RecordedRun.open(run.folder)))
    (tmp_path / "briefs.jsonl").rename(run.folder / "briefs.jsonl")
    assert '"agent_runs": [\n' in whole
    assert "".join(json_chunks(RecordedRun.open(run.folder))) == whole


@settings(max_examples=60, deadline=None)
@given(
    data=st.binary(max_size=3 * mmap.ALLOCATIONGRANULARITY),
    picks=st.sets(st.integers(min_value=0, max_value=3 * mmap.ALLOCATIONGRANULARITY), max_size=40),
    window=st.sampled_from([1, 2, 3]),
)
def test_the_bytes_read_a_window_at_a_time_are_the_files_bytes(tmp_path_factory, data, picks, window):
    """``_bytes_at`` (a killed run's check of the byte before each record) gives the bytes at
    the offsets however the windows cut the file."""
    from agenteval.runs import _reader

    path = tmp_path_factory.mktemp("bytes") / "results.jsonl"
    path.write_bytes(data)
    offsets = sorted(p for p in picks if p < len(data))
    with (
        open(path, "rb") as handle,
        mock.patch.object(_reader, "_WINDOW_BYTES", window * mmap.ALLOCATIONGRANULARITY),
    ):
        assert _reader._bytes_at(handle, len(data), offsets) == bytes(data[o] for o in offsets)
