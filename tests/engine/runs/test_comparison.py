"""A comparison side read from a run folder by column (``_Columns``: each criterion's statuses
and run scores, no dict made by case) compares exactly as the same side by case, for finished,
interrupted and killed runs of one and of three runs per case; a side whose dicts were asked
for (and perhaps changed) compares by them."""

from __future__ import annotations

import pytest
from agenteval._results import Status
from agenteval.runs import RecordedRun
from agenteval.runs._comparison import Side, _from_run, _RunSide, compare_sides
from runs_tests_reader import _killed, _plan, _recorded  # test_reader.py's (conftest.py)


def _by_case(run: RecordedRun, label: str) -> Side:
    """The side of ``run`` by case (its dicts made, no column read)."""
    side = _from_run(RecordedRun.open(run.folder), label)
    return Side(label, side.source, side.scores, side.statuses, side.criteria)


def _run(kind: str, runs: int, folder, shifted: bool = False) -> RecordedRun:
    """A run of ``_plan``; ``shifted``: each case answers as its second run would (other verdicts)."""
    plan = _plan(runs)
    if shifted:
        plan.agent.calls.update({f"c{i}": 1 for i in range(30)})
    run = _recorded(plan, folder, None if kind == "complete" else 12)
    return _killed(run) if kind == "killed" else run


@pytest.mark.parametrize("runs", [1, 3], ids=["one run", "three runs"])
@pytest.mark.parametrize("kind", ["complete", "interrupted", "killed"])
def test_a_side_by_column_compares_as_the_side_by_case(tmp_path, runs, kind):
    a = _run("complete", 1, tmp_path / "a", shifted=True)  # verdicts flip, one run or three
    b = _run(kind, runs, tmp_path / "b")
    read = _from_run(RecordedRun.open(b.folder), "B")
    # by column: every one-run kind (its scores.jsonl), a finished multi-run one (its briefs)
    assert (isinstance(read, _RunSide) and read.columns is not None) == (runs == 1 or kind == "complete")
    for first, second in ((a, b), (b, a), (a, a)):
        fast = compare_sides(
            _from_run(RecordedRun.open(first.folder), "A"), _from_run(RecordedRun.open(second.folder), "B")
        )
        slow = compare_sides(_by_case(first, "A"), _by_case(second, "B"))
        assert fast.to_json() == slow.to_json()
        assert fast.paired == slow.paired and fast.only_a == slow.only_a and fast.only_b == slow.only_b
    flipped = compare_sides(
        _from_run(RecordedRun.open(a.folder), "A"), _from_run(RecordedRun.open(b.folder), "B")
    )
    assert flipped.flips  # the varying agent's runs differ: the flips' path is taken


def test_a_side_whose_dicts_were_asked_for_compares_by_them(tmp_path):
    run = _run("complete", 1, tmp_path / "a")
    a, b = _from_run(run, "A"), _from_run(RecordedRun.open(run.folder), "B")
    assert isinstance(b, _RunSide) and b.columns is not None
    assert not compare_sides(a, b).flips
    key = next(iter(b.scores))  # made now: the columns are no longer read
    assert b.columns is None
    b.statuses[key] = {name: Status.ERRORED for name in b.statuses[key]}
    assert {(flip.case_id, flip.status_b) for flip in compare_sides(a, b).flips} == {(key[1], Status.ERRORED)}


def test_brief_criteria_are_the_written_lines_criteria_and_none_for_an_odd_line(tmp_path, monkeypatch):
    run = _run("complete", 3, tmp_path / "a")
    sets, cases, criteria = RecordedRun.open(run.folder)._brief_criteria()
    planned = RecordedRun.open(run.folder)._planned_brief_lines()
    assert list(zip(sets, cases, strict=True)) == [key for key, _, _ in planned]
    assert criteria == [line["criteria"] for _, _, line in planned]
    data = RecordedRun.open(run.folder)._briefs_data()
    lines = data.splitlines(keepends=True)
    shuffled = b"".join(reversed(lines))  # read as well: by key
    assert RecordedRun.open(run.folder)._brief_criteria() == (sets, cases, criteria)
    monkeypatch.setattr(RecordedRun, "_briefs_data", lambda self: shuffled)
    assert RecordedRun.open(run.folder)._brief_criteria() == (sets, cases, criteria)
    for odd in (data.replace(b',"preview":', b',"p":', 1), b"[]\n" + data, data[:-1], b"".join(lines[1:])):
        monkeypatch.setattr(RecordedRun, "_briefs_data", lambda self, odd=odd: odd)
        assert RecordedRun.open(run.folder)._brief_criteria() is None
        side = _from_run(RecordedRun.open(run.folder), "A")
        assert not isinstance(side, _RunSide)
