"""``scores.jsonl``: written beside the index as the run goes, read by the listing readers
(``case_briefs(previews=False)``, ``runs show``, ``compare``) when the run's sealed summary
vouches for it, or (a run not finished: killed, or still going) when its lines lay every record
end to end; every other folder is read the index's way, with the same output."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from agenteval.cli import main
from agenteval.runs import RecordedRun, RunState
from agenteval.runs._scores import SCORES
from click.testing import CliRunner
from runs_tests_reader import _killed, _plan, _recorded  # test_reader.py's (conftest.py)


def _never(*args, **kwargs):
    raise AssertionError("the index was read")


def _blank(briefs) -> list:
    """``briefs`` without what ``scores.jsonl`` does not hold (previews, rubric texts)."""
    return [b._replace(user="", reply="", rubric_texts={}) for b in briefs]


def _listed(folder: Path) -> list:
    """The briefs as the index gives them, without what ``scores.jsonl`` does not hold."""
    return _blank(RecordedRun.open(folder).case_briefs())


@pytest.mark.parametrize(
    ("stop_after", "state"),
    [(None, RunState.COMPLETE), (12, RunState.INTERRUPTED)],
    ids=["complete", "interrupted"],
)
def test_a_finished_runs_briefs_come_from_its_scores_as_its_index_gives_them(
    tmp_path, monkeypatch, stop_after, state
):
    run = _recorded(_plan(1), tmp_path / "runs", stop_after)
    assert run.manifest.state is state and (run.folder / SCORES).stat().st_size > 0
    expected = _listed(run.folder)
    assert len({b.status for b in expected}) > 1 and len({b.recorded for b in expected}) == 1 + (
        stop_after is not None
    )
    monkeypatch.setattr(RecordedRun, "_walk", _never)
    monkeypatch.setattr(RecordedRun, "index_entries", _never)
    fast = RecordedRun.open(run.folder)
    assert list(fast.case_briefs(previews=False)) == expected
    # the records of the cases a listing prints are found without the index too
    key = (0, expected[0].case_id, 1)
    assert fast.record(key).case_id == expected[0].case_id and key in fast.keys()


def _swap_one_status(path: Path) -> None:
    """A hand edit that keeps the file's size: one PASSED made FAILED (or back)."""
    data = path.read_bytes()
    swapped = data.replace(b'"PASSED"', b'"FAILED"', 1)
    path.write_bytes(swapped if swapped != data else data.replace(b'"FAILED"', b'"PASSED"', 1))


@pytest.mark.parametrize("change", ["hand edit", "removed", "unsealed", "line lost"])
def test_scores_the_summary_does_not_vouch_for_are_not_read(tmp_path, change):
    run = _recorded(_plan(1, cases=8), tmp_path / "runs")
    expected = _listed(run.folder)
    path = run.folder / SCORES
    if change == "hand edit":
        _swap_one_status(path)
    elif change == "removed":  # an older engine's folder
        path.unlink()
    elif change == "unsealed":  # an older engine's summary: no size or sha256 of the file
        summary = run.folder / "summary.json"
        data = json.loads(summary.read_bytes())
        del data["scores_bytes"], data["scores_sha256"]
        from agenteval.runs._records import summary_digest

        data["sha256"] = summary_digest(data)
        summary.write_text(json.dumps(data))
    else:  # a line lost (rewritten with its seal): the records are no longer laid end to end
        lines = path.read_bytes().splitlines(keepends=True)
        path.write_bytes(b"".join(lines[1:]))
    again = RecordedRun.open(run.folder)
    assert again._scores() is None
    assert _blank(again.case_briefs(previews=False)) == expected


@pytest.mark.parametrize("stop_after", [None, 12], ids=["all-recorded", "some-recorded"])
def test_a_killed_runs_listing_comes_from_its_scores_when_they_lay_every_record_end_to_end(
    tmp_path, monkeypatch, stop_after
):
    run = _recorded(_plan(1), tmp_path / "runs", stop_after)
    killed = _killed(run)
    expected = _listed(run.folder)
    assert len({b.status for b in expected}) > 1
    real = RecordedRun._listed_scores
    used = []
    monkeypatch.setattr(RecordedRun, "_listed_scores", lambda self: used.append(real(self)) or used[-1])
    monkeypatch.setattr(RecordedRun, "index_entries", _never)
    monkeypatch.setattr(RecordedRun, "_walk", _never)  # nor walked for the records' places
    assert list(killed.case_briefs(previews=False)) == expected
    assert used[-1] is not None and len(used[-1]) == len(killed.keys())


def test_a_killed_runs_cut_last_record_is_counted_damaged_as_a_walk_counts_it(tmp_path, monkeypatch):
    run = _recorded(_plan(1, cases=8), tmp_path / "runs")
    _killed(run)
    with open(run.folder / "results.jsonl", "ab") as handle:
        handle.write(b'{"run_id": "cut')  # killed while writing a record
    scores = run.folder / SCORES
    os.utime(scores, ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))  # as if written after
    fast = RecordedRun.open(run.folder)
    assert fast._listed_scores() is not None
    listed, keys = list(fast.case_briefs(previews=False)), fast.keys()
    monkeypatch.setattr(RecordedRun, "_unsealed_scores", lambda self: None)
    walked = RecordedRun.open(run.folder)
    assert (listed, keys) == (_blank(walked.case_briefs(previews=False)), walked.keys())
    assert fast.damaged_lines == walked.damaged_lines == 1


def test_a_killed_runs_scores_without_every_records_line_are_not_read(tmp_path):
    run = _recorded(_plan(1, cases=8), tmp_path / "runs")
    expected = _listed(run.folder)
    _killed(run)
    path = run.folder / SCORES
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]))  # killed between a record's index line and this one
    again = RecordedRun.open(run.folder)
    assert again._listed_scores() is None
    assert _blank(again.case_briefs(previews=False)) == expected
    doctored = json.loads(lines[0])
    doctored[3] += 1  # a line pointing elsewhere than the index says
    path.write_bytes(json.dumps(doctored).encode() + b"\n" + b"".join(lines[1:]))
    assert RecordedRun.open(run.folder)._listed_scores() is None


@pytest.mark.parametrize(
    ("place", "value"),
    [
        (1, ["case-0"]),  # a case id that is not a string
        (0, "0"),
        (2, 1.0),
        (6, [["exact", "PASSED", 1.0, None, None]]),  # a criterion array cut short
        (6, [["exact", "PASSED", "1.0", None, None, []]]),
        (6, [["exact", "PASSED", 1.0, None, {"verdict": "PASS"}, []]]),
        (6, [["exact", "PASSED", 1.0, None, None, [["r1", 1.0]]]]),
    ],
)
def test_a_killed_runs_scores_line_of_the_wrong_shape_sends_the_listing_the_index_way(tmp_path, place, value):
    run = _recorded(_plan(1, cases=8), tmp_path / "runs")
    expected = _listed(run.folder)
    _killed(run)
    path = run.folder / SCORES
    lines = path.read_bytes().splitlines(keepends=True)
    doctored = json.loads(lines[2])
    doctored[place] = value
    path.write_bytes(b"".join(lines[:2]) + json.dumps(doctored).encode() + b"\n" + b"".join(lines[3:]))
    os.utime(path, ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))  # as if written after
    again = RecordedRun.open(run.folder)
    assert again._listed_scores() is None
    assert _blank(again.case_briefs(previews=False)) == expected


def test_a_run_still_going_is_read_from_its_index(tmp_path):
    run = _recorded(_plan(1, cases=6), tmp_path / "runs")
    (run.folder / "summary.json").unlink()  # as before the run's end
    assert RecordedRun.open(run.folder)._scores() is None


def test_a_resumed_run_continues_its_scores_when_they_cover_every_record(tmp_path):
    from agenteval._run import run_sync
    from agenteval._run._session import open_run

    runs = tmp_path / "runs"
    first = _recorded(_plan(1), runs, stop_after=12)
    resumed = open_run(_plan(1), runs_dir=runs, argv=["test"], agent_concurrency=2, resume="latest")
    run_sync(resumed.execute())
    run = RecordedRun.open(first.folder)
    assert run.manifest.state is RunState.COMPLETE and run._scores() is not None
    assert list(run.case_briefs(previews=False)) == _listed(run.folder)


def test_a_resumed_run_whose_scores_lost_a_line_writes_none(tmp_path):
    from agenteval._run import run_sync
    from agenteval._run._session import open_run

    runs = tmp_path / "runs"
    first = _recorded(_plan(1), runs, stop_after=12)
    path = first.folder / SCORES
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:-1]))  # killed before it
    resumed = open_run(_plan(1), runs_dir=runs, argv=["test"], agent_concurrency=2, resume="latest")
    run_sync(resumed.execute())
    run = RecordedRun.open(first.folder)
    assert not path.exists() and run._scores() is None
    assert len(list(run.case_briefs(previews=False))) == 30


@pytest.mark.parametrize("stop_after", [None, 12], ids=["complete", "interrupted"])
def test_runs_show_and_compare_print_the_same_from_the_scores_as_from_the_index(tmp_path, stop_after):
    run = _recorded(_plan(1), tmp_path / "runs", stop_after)
    twin = _recorded(_plan(1), tmp_path / "twin", stop_after)
    commands = [
        ["runs", "show", str(run.folder), "--show", "all"],
        ["runs", "show", str(run.folder)],
        ["runs", "show", str(run.folder), "--format", "json"],
        ["compare", str(run.folder), str(twin.folder)],
        ["compare", str(run.folder), str(twin.folder), "--format", "json"],
    ]
    fast = [CliRunner().invoke(main, argv) for argv in commands]
    for folder in (run.folder, twin.folder):
        (folder / SCORES).unlink()
    slow = [CliRunner().invoke(main, argv) for argv in commands]
    for argv, a, b in zip(commands, fast, slow, strict=True):
        assert (a.exit_code, a.output) == (b.exit_code, b.output), argv
        assert a.exit_code in (0, 1), a.output


@pytest.mark.parametrize("stop_after", [None, 12], ids=["complete", "interrupted"])
def test_the_listing_from_the_scores_is_what_the_briefs_say(tmp_path, monkeypatch, stop_after):
    run = _recorded(_plan(1), tmp_path / "runs", stop_after)
    briefs = sorted(RecordedRun.open(run.folder).case_briefs(), key=lambda b: b.row)
    expected = [(b.entry, b.case_id, b.status, b.inconclusive, b.unreached) for b in briefs]
    assert any(row[4] for row in expected) == (stop_after is not None)  # never-scored cases listed
    (run.folder / SCORES).rename(tmp_path / SCORES)
    assert list(RecordedRun.open(run.folder).case_listing()) == expected  # from the briefs
    (tmp_path / SCORES).rename(run.folder / SCORES)
    monkeypatch.setattr(RecordedRun, "case_briefs", _never)  # column by column: no brief made
    assert list(RecordedRun.open(run.folder).case_listing()) == expected


def test_a_multi_run_runs_listing_is_what_its_briefs_say_and_makes_none(tmp_path, monkeypatch):
    run = _recorded(_plan(3), tmp_path / "runs")
    expected = [(b.entry, b.case_id, b.status, b.inconclusive, b.unreached) for b in run.case_briefs()]
    assert len({row[2] for row in expected}) > 1
    monkeypatch.setattr(RecordedRun, "case_briefs", _never)  # every case's brief was written
    assert list(RecordedRun.open(run.folder).case_listing()) == expected


def test_a_killed_runs_records_checked_a_window_at_a_time_read_as_when_mapped_whole(tmp_path, monkeypatch):
    """The byte before each record is read through windows smaller than ``results.jsonl``
    (at most a window resident): the same rows, and a record moved in a later window is
    still found out."""
    import mmap

    from agenteval.runs import _reader

    run = _recorded(_plan(1, cases=40), tmp_path / "runs")
    _killed(run)
    results = run.folder / "results.jsonl"
    assert results.stat().st_size > 3 * mmap.ALLOCATIONGRANULARITY
    whole = RecordedRun.open(run.folder)._listed_scores()
    monkeypatch.setattr(_reader, "_WINDOW_BYTES", mmap.ALLOCATIONGRANULARITY)
    assert whole is not None and RecordedRun.open(run.folder)._listed_scores() == whole
    data = bytearray(results.read_bytes())
    last = whole[-1][3]  # a record's place: the byte before it is a newline
    assert last > 2 * mmap.ALLOCATIONGRANULARITY and data[last - 1 : last] == b"\n"
    data[last - 1 : last + 1] = data[last : last + 1] + b"\n"  # its line end moved in by a byte
    results.write_bytes(bytes(data))
    os.utime(run.folder / SCORES, ns=(time.time_ns() + 10**9, time.time_ns() + 10**9))  # as if after
    assert RecordedRun.open(run.folder)._listed_scores() is None
