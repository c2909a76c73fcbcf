"""A comparison side of a run of several runs per case is read from its written briefs
(``briefs.jsonl``) as the briefs give it, and compares as a side combined from the records."""

from __future__ import annotations

from agenteval.runs import RecordedRun
from agenteval.runs._comparison import _from_run, compare_sides
from runs_tests_reader import _plan, _recorded


def _never(*args, **kwargs):
    raise AssertionError("a brief was made or a record read")


def test_a_multi_run_side_from_the_written_briefs_equals_the_side_from_the_records(tmp_path, monkeypatch):
    run = _recorded(_plan(3), tmp_path / "runs")
    briefs = run.folder / "briefs.jsonl"
    briefs.rename(tmp_path / "briefs.jsonl")
    slow = _from_run(RecordedRun.open(run.folder), "A")  # every case combined from its records
    (tmp_path / "briefs.jsonl").rename(briefs)
    with monkeypatch.context() as patched:
        patched.setattr(RecordedRun, "case_briefs", _never)
        patched.setattr(RecordedRun, "_read_at", _never)
        fast = _from_run(RecordedRun.open(run.folder), "A")
    assert (fast.scores, fast.statuses, fast.criteria) == (slow.scores, slow.statuses, slow.criteria)
    assert list(fast.scores) == list(slow.scores)  # the plan's order
    assert {len(runs) for scores in fast.scores.values() for runs in scores.values()} == {3}
    assert compare_sides(fast, slow).to_json() == compare_sides(slow, slow).to_json()


def test_a_multi_run_side_with_a_case_not_briefed_is_combined_from_the_records(tmp_path):
    run = _recorded(_plan(3), tmp_path / "runs", stop_after=40)  # interrupted: some cases unfinished
    side = _from_run(RecordedRun.open(run.folder), "A")
    briefs = run.folder / "briefs.jsonl"
    briefs.rename(tmp_path / "briefs.jsonl")
    slow = _from_run(RecordedRun.open(run.folder), "A")
    assert (side.scores, side.statuses) == (slow.scores, slow.statuses)
    assert len(side.statuses) == 30 and len(side.scores) < 30
