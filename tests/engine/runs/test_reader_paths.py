"""A run of several runs per case read the short ways: a comparison side from its written briefs
(``briefs.jsonl``) without making a brief, a listing from the start of each brief line without
parsing one; each as the records give it, and an odd file read the long way."""

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


def test_a_multi_run_listing_finds_each_cases_marks_without_parsing_a_line(tmp_path, monkeypatch):
    """The listing takes each case's status and marks from the start of its brief line
    (``BRIEF_MARKS``), and a reader of a few cases parses those cases' own lines only (their
    records' places and hints); both as the records give them."""
    run = _recorded(_plan(3), tmp_path / "runs")
    briefs = run.folder / "briefs.jsonl"
    briefs.rename(tmp_path / "briefs.jsonl")
    plain = RecordedRun.open(run.folder)  # from the records
    expected = list(plain.case_listing())
    entry = plain.manifest.eval_sets[0]
    results = {c: plain.case_result(entry, c, plain.case_runs(entry, c)) for c in entry.case_ids}
    (tmp_path / "briefs.jsonl").rename(briefs)
    monkeypatch.setattr(RecordedRun, "_read_briefs", _never)  # no line parsed whole, nor its head
    monkeypatch.setattr(RecordedRun, "_index", _never)  # nor a record's place looked up elsewhere
    fast = RecordedRun.open(run.folder)
    assert list(fast.case_listing()) == expected
    assert {c: fast.case_result(entry, c, fast.case_runs(entry, c)) for c in entry.case_ids} == results


def test_a_multi_run_listing_decodes_escaped_case_ids_and_reads_odd_lines_whole(tmp_path):
    import json

    from agenteval.runs._records import summary_digest

    run = _recorded(_plan(3), tmp_path / "runs")
    expected = list(RecordedRun.open(run.folder).case_listing())
    path = run.folder / "briefs.jsonl"

    def reseal(data: bytes) -> RecordedRun:
        path.write_bytes(data)
        summary = json.loads((run.folder / "summary.json").read_text(encoding="utf-8"))
        summary["briefs_bytes"] = len(data)
        summary["sha256"] = summary_digest(summary)
        (run.folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
        return RecordedRun.open(run.folder)

    lines = path.read_bytes().splitlines(keepends=True)
    # "c1" spelled with JSON escapes: the same id
    escaped = [line.replace(b'"c1"]', b'"\\u0063\\u0031"]', 1) for line in lines]
    assert escaped != lines
    again = reseal(b"".join(escaped))
    assert again._brief_marks() is not None and list(again.case_listing()) == expected
    spaced = [line.replace(b'"status":', b'"status": ', 1) for line in lines]  # not as written
    odd = reseal(b"".join(spaced))
    assert odd._brief_marks() is None and list(odd.case_listing()) == expected


def test_a_reader_of_many_multi_run_cases_parses_the_heads_of_them_all_at_once(tmp_path, monkeypatch):
    from agenteval.runs import _reader

    run = _recorded(_plan(3), tmp_path / "runs")
    plain = RecordedRun.open(run.folder)
    entry = plain.manifest.eval_sets[0]
    expected = {c: plain.case_result(entry, c, plain.case_runs(entry, c)) for c in entry.case_ids}
    monkeypatch.setattr(_reader, "_LINE_READS", 2)
    listed = RecordedRun.open(run.folder)
    list(listed.case_listing())
    assert {c: listed.case_result(entry, c, listed.case_runs(entry, c)) for c in entry.case_ids} == expected
    assert listed._brief_line_reads == 2 and listed._brief_refs is not None  # then all at once
