"""``index.jsonl``: written beside ``results.jsonl``, trusted only where it matches it, and
``RecordedRun`` reads every record the same with it, without it, or with parts of it lost."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pydantic_core
import pytest
from agenteval import AgentRunRecord, CriterionResult, InvocationResult, PluginInfo, Status, VerdictInfo
from agenteval.models import Content, Invocation, Part, Rubric, RubricContent
from agenteval.runs import (
    CaseRecord,
    CriterionEntry,
    EvalSetEntry,
    Manifest,
    RecordedRun,
    RunWriter,
    new_run_id,
    utc_now,
)
from agenteval.runs._index import INDEX, PREVIEW_REPLY, criteria_well_formed, index_entry
from agenteval.runs._scores import rows_well_formed
from hypothesis import given, settings
from hypothesis import strategies as st

CASES = [f"case-{i}" for i in range(6)]


def _manifest() -> Manifest:
    entry = CriterionEntry(name="exact", distribution="d", version="1", entry_point="m:C", threshold=0.5)
    return Manifest(
        run_id=new_run_id(),
        started_at=utc_now(),
        engine_version="0",
        eval_sets=[EvalSetEntry(index=0, eval_set_id="s", case_ids=CASES, criteria=[entry])],
    )


def _turn(user: str, reply: str, rubrics: tuple[str, ...] = ()) -> Invocation:
    return Invocation(
        invocation_id="i1",
        user_content=Content(role="user", parts=[Part(text=user)]),
        final_response=Content(role="model", parts=[Part(text=reply)]),
        rubrics=[
            Rubric(rubric_id=r, rubric_content=RubricContent(text_property=f"text of {r}")) for r in rubrics
        ],
    )


def _record(
    run_id: str, case_id: str, score: float = 1.0, reply: str = "a reply", run_index: int = 1
) -> CaseRecord:
    status = Status.PASSED if score >= 0.5 else Status.FAILED
    result = CriterionResult(
        criterion="exact",
        threshold=0.5,
        score=score,
        status=status,
        reason_code=None if status is Status.PASSED else "below_threshold",
        plugin=PluginInfo(distribution="d", version="1", entry_point="m:C"),
        per_invocation=[
            InvocationResult(
                index=0,
                invocation_id="i1",
                score=score,
                status=status,
                details={
                    "rubrics": [{"rubric_id": "r1", "score": score, "verdict": "yes" if score else "no"}]
                },
            )
        ],
        verdict=VerdictInfo(
            verdict="PASS" if status is Status.PASSED else "FAIL", basis="single-run", reason="r"
        ),
    )
    return CaseRecord(
        run_id=run_id,
        eval_set_index=0,
        eval_set_id="s",
        case_id=case_id,
        run_index=run_index,
        status=status,
        scores={"exact": score},
        statuses={"exact": status},
        criteria=[result],
        expected=[_turn(f"question of {case_id}", "expected", rubrics=("r1",))],
        actual=AgentRunRecord(run=run_index, invocations=[_turn(f"question of {case_id}", reply)]),
    )


def _by_key(entries) -> dict:
    return {tuple(e["key"]): e for e in entries}


def _truth(folder: Path) -> dict:
    """The entries made from every record read the slow way (no index at all)."""
    bare = RecordedRun.open(folder)
    bare._offsets = None
    saved = (folder / INDEX).read_bytes() if (folder / INDEX).exists() else None
    if saved is not None:
        (folder / INDEX).unlink()
    try:
        return _by_key(bare.index_entries())
    finally:
        if saved is not None:
            (folder / INDEX).write_bytes(saved)
            os.utime(folder / INDEX)  # as fresh as before


def test_each_record_gets_an_index_line_that_points_at_it(tmp_path):
    writer = RunWriter.create(tmp_path, _manifest())
    records = [_record(writer.run_id, c, score=float(i % 2)) for i, c in enumerate(CASES[:3])]
    for each in records:
        writer.append(each)
    writer.close()
    lines = (writer.folder / INDEX).read_bytes().splitlines()
    results = (writer.folder / "results.jsonl").read_bytes()
    assert len(lines) == 3
    for each, line in zip(records, lines, strict=True):
        entry = json.loads(line)
        offset, length = entry["at"]
        assert CaseRecord.model_validate_json(results[offset : offset + length]) == each
        assert entry == json.loads(pydantic_core.to_json(index_entry(each, offset, length)))
    first = json.loads(lines[1])
    assert first["key"] == [0, "case-1", 1] and first["status"] == "PASSED"
    assert first["criteria"] == [["exact", "PASSED", 1.0, None, "PASS", [["r1", 1.0, "yes"]]]]
    assert first["preview"] == {"user": "question of case-1", "reply": "a reply"}
    assert first["rubric_texts"] == {"r1": "text of r1"}


def test_the_key_is_read_from_the_head_of_a_line_whatever_the_case_id_holds(tmp_path):
    from agenteval.runs._index import _where

    odd = 'a"],"at":[1,2],"key":[9,"x",1]}\\'
    writer = RunWriter.create(tmp_path, _manifest())
    writer.append(_record(writer.run_id, odd))
    writer.close()
    line = (writer.folder / INDEX).read_bytes()
    assert _where(line)[0] == (0, odd, 1)
    reordered = json.dumps({"at": [0, 5], "status": "PASSED", "key": [1, "b", 2]}).encode()  # another layout
    assert _where(reordered) == ((1, "b", 2), 0, 5, "PASSED")


def test_the_preview_is_clipped_and_scrubbed_and_odd_text_is_still_written(tmp_path, monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", "sk-secret-value-1234567890")
    writer = RunWriter.create(tmp_path, _manifest())
    writer.append(_record(writer.run_id, "case-0", reply="key sk-secret-value-1234567890 " + "x" * 1000))
    writer.append(_record(writer.run_id, "case-1", reply="lone \ud800 surrogate"))
    writer.close()
    text = (writer.folder / INDEX).read_text(encoding="utf-8")
    assert "sk-secret-value" not in text
    entries = _by_key(RecordedRun.open(writer.folder).index_entries())
    assert len(entries[(0, "case-0", 1)]["preview"]["reply"]) <= PREVIEW_REPLY
    assert "surrogate" in entries[(0, "case-1", 1)]["preview"]["reply"]


def test_reading_with_and_without_the_index_agrees(tmp_path):
    writer = RunWriter.create(tmp_path, _manifest())
    for i, case in enumerate(CASES):
        writer.append(_record(writer.run_id, case, score=float(i % 2)))
    writer.append(_record(writer.run_id, "case-2", score=1.0))  # a later record of a key wins
    writer.close()
    run = RecordedRun.open(writer.folder)
    entries = _by_key(run.index_entries())
    assert entries == _truth(writer.folder)
    assert entries[(0, "case-2", 1)]["status"] == "PASSED"
    assert len(entries) == len(CASES) and run.damaged_lines == 0


def test_a_record_whose_index_line_was_lost_is_still_read(tmp_path):
    writer = RunWriter.create(tmp_path, _manifest())
    for case in CASES[:4]:
        writer.append(_record(writer.run_id, case))
    writer.close()
    lines = (writer.folder / INDEX).read_bytes().splitlines(keepends=True)
    # The second line lost, and the last one cut short (a process killed while writing it).
    (writer.folder / INDEX).write_bytes(lines[0] + lines[2] + lines[3][:20])
    run = RecordedRun.open(writer.folder)
    assert sorted(run.keys()) == [(0, c, 1) for c in CASES[:4]]
    assert _by_key(run.index_entries()) == _truth(writer.folder)


def test_an_index_older_than_the_results_is_not_trusted(tmp_path):
    writer = RunWriter.create(tmp_path, _manifest())
    for case in CASES[:3]:
        writer.append(_record(writer.run_id, case))
    writer.close()
    results = writer.folder / "results.jsonl"
    # Another tool rewrites results.jsonl (one record dropped, so every offset moves).
    kept = results.read_bytes().splitlines(keepends=True)[1:]
    results.write_bytes(b"".join(kept))
    index_time = (writer.folder / INDEX).stat().st_mtime_ns
    os.utime(results, ns=(index_time + 10**9, index_time + 10**9))
    run = RecordedRun.open(writer.folder)
    assert sorted(run.keys()) == [(0, "case-1", 1), (0, "case-2", 1)]
    assert set(_by_key(run.index_entries())) == {(0, "case-1", 1), (0, "case-2", 1)}


def test_a_resumed_run_keeps_the_index_lines_that_match_and_indexes_what_it_adds(tmp_path):
    writer = RunWriter.create(tmp_path, _manifest())
    for case in CASES[:3]:
        writer.append(_record(writer.run_id, case))
    writer.close()
    results = writer.folder / "results.jsonl"
    lines = results.read_bytes().splitlines(keepends=True)
    extra = _record(writer.run_id, "case-4").dump().encode()
    results.write_bytes(lines[0] + lines[2] + extra)  # another tool dropped case-1, added case-4
    later = (writer.folder / INDEX).stat().st_mtime_ns + 10**9
    os.utime(results, ns=(later, later))
    again = RunWriter.reopen(writer.folder, writer.manifest)
    again.append(_record(writer.run_id, "case-5", score=0.0))
    again.close()
    kept = [json.loads(line)["key"][1] for line in (writer.folder / INDEX).read_bytes().splitlines()]
    assert kept == ["case-0", "case-5"]  # case-2's line pointed where case-1 no longer is
    run = RecordedRun.open(writer.folder)
    entries = _by_key(run.index_entries())
    assert set(entries) == {(0, c, 1) for c in ("case-0", "case-2", "case-4", "case-5")}
    assert entries == _truth(writer.folder)


@settings(deadline=None, max_examples=40)
@given(
    writes=st.lists(st.tuples(st.sampled_from(CASES), st.booleans(), st.booleans()), min_size=1, max_size=12),
    lost=st.sets(st.integers(0, 11)),
    cut=st.booleans(),
)
def test_whatever_part_of_the_index_is_lost_the_records_read_the_same(tmp_path_factory, writes, lost, cut):
    """Property: appends (some keys twice, some junk lines between), then any index lines
    lost and the last one possibly cut: keys, offsets and entries equal a read without index."""
    writer = RunWriter.create(tmp_path_factory.mktemp("runs"), _manifest())
    for case, passed, junk in writes:
        if junk:
            writer._results.write(b'{"schema": "agenteval.record/1", "cut"\n')
        writer.append(_record(writer.run_id, case, score=1.0 if passed else 0.0))
    writer.close()
    lines = (writer.folder / INDEX).read_bytes().splitlines(keepends=True)
    kept = [line for i, line in enumerate(lines) if i not in lost]
    if cut and kept:
        kept[-1] = kept[-1][: len(kept[-1]) // 2]
    (writer.folder / INDEX).write_bytes(b"".join(kept))
    run = RecordedRun.open(writer.folder)
    run._index()
    index_time = (writer.folder / INDEX).stat().st_mtime_ns
    os.utime(writer.folder / "results.jsonl", ns=(index_time + 10**9, index_time + 10**9))
    bare = RecordedRun.open(writer.folder)  # the index not trusted: every line read
    bare._index()
    os.utime(writer.folder / "results.jsonl", ns=(index_time, index_time))
    assert run._index() == bare._offsets
    assert run.damaged_lines == bare.damaged_lines == sum(junk for _, _, junk in writes)
    entries = _by_key(run.index_entries())
    assert set(entries) == {(0, case, 1) for case, _, _ in writes}
    for key, entry in entries.items():
        assert entry["at"] == list(bare._offsets[key])
        assert entry["status"] == bare.record(key).status.value


def test_a_whole_index_is_read_instead_of_the_records(tmp_path, monkeypatch):
    writer = RunWriter.create(tmp_path, _manifest())
    for case in CASES:
        writer.append(_record(writer.run_id, case))
    writer.close()

    def never(*args, **kwargs):
        raise AssertionError("a record was read although the index covers it")

    monkeypatch.setattr(RecordedRun, "record", never)
    monkeypatch.setattr(RecordedRun, "_scan", lambda self, start, stop, offsets, unindexed: 0)
    run = RecordedRun.open(writer.folder)
    assert len(run.keys()) == len(CASES)
    assert len(list(run.index_entries())) == len(CASES)


def test_an_index_changed_or_removed_while_it_is_read_falls_back_to_the_records(tmp_path):
    writer = RunWriter.create(tmp_path, _manifest())
    for case in CASES:
        writer.append(_record(writer.run_id, case))
    writer.close()
    run = RecordedRun.open(writer.folder)
    run._index()
    path = writer.folder / INDEX
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[1] + lines[0] + b"".join(lines[2:]))  # same positions, other lines
    assert _by_key(run.index_entries()) == _truth(writer.folder)
    path.unlink()
    assert set(_by_key(run.index_entries())) == {(0, c, 1) for c in CASES}


def test_an_index_line_that_does_not_end_where_a_record_ends_is_not_trusted(tmp_path):
    writer = RunWriter.create(tmp_path, _manifest())
    for case in CASES[:3]:
        writer.append(_record(writer.run_id, case))
    writer.close()
    path = writer.folder / INDEX
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    lines[-1]["at"][1] -= 1  # the last record's length off by one
    path.write_bytes(b"".join(pydantic_core.to_json(line) + b"\n" for line in lines))
    run = RecordedRun.open(writer.folder)
    assert run._index() == _truth_offsets(writer.folder)
    assert _by_key(run.index_entries()) == _truth(writer.folder)
    assert run._unindexed == {(0, "case-2", 1)}


def _truth_offsets(folder: Path) -> dict:
    index = folder / INDEX
    saved = index.read_bytes()
    index.unlink()
    try:
        return RecordedRun.open(folder)._index()
    finally:
        index.write_bytes(saved)


def test_a_key_written_twice_comes_in_file_order_on_the_first_read_and_once_after(tmp_path):
    writer = RunWriter.create(tmp_path, _manifest())
    writer.append(_record(writer.run_id, "case-0", score=0.0))
    writer.append(_record(writer.run_id, "case-1"))
    writer.append(_record(writer.run_id, "case-0", score=1.0))
    writer.close()
    run = RecordedRun.open(writer.folder)
    first = [(e["key"][1], e["status"]) for e in run.index_entries()]
    assert first == [("case-0", "FAILED"), ("case-1", "PASSED"), ("case-0", "PASSED")]
    again = sorted((e["key"][1], e["status"]) for e in run.index_entries())
    assert again == [("case-0", "PASSED"), ("case-1", "PASSED")]


def test_resuming_a_killed_run_keeps_its_index_trusted(tmp_path):
    writer = RunWriter.create(tmp_path, _manifest())
    for case in CASES[:3]:
        writer.append(_record(writer.run_id, case))
    writer.close()
    with open(writer.folder / "results.jsonl", "ab") as handle:  # killed while writing a record
        handle.write(_record(writer.run_id, "case-3").dump().encode()[:50])
    RunWriter.reopen(writer.folder, writer.manifest).close()  # nothing left to do
    run = RecordedRun.open(writer.folder)
    assert sorted(run.keys()) == [(0, c, 1) for c in CASES[:3]]
    assert run._unindexed == set() and run.damaged_lines == 0  # every record found by the index


def _stale_then_new(tmp_path: Path) -> tuple[Path, list[CaseRecord]]:
    """A run folder as an older engine left it when ``results.jsonl`` was lost and the run
    resumed: the index holds the first run's lines (every case PASSED, short records) and
    then the resumed run's (every case FAILED, longer records at the same offsets)."""
    writer = RunWriter.create(tmp_path, _manifest())
    for case in CASES:
        writer.append(_record(writer.run_id, case, score=1.0))
    writer.close()
    (writer.folder / "results.jsonl").unlink()
    stale = (writer.folder / INDEX).read_bytes()
    again = RunWriter.create(tmp_path / "again", writer.manifest)
    records = [_record(writer.run_id, case, score=0.0, reply="a longer reply " * 20) for case in CASES]
    for each in records:
        again.append(each)
    again.close()
    os.replace(again.folder / "results.jsonl", writer.folder / "results.jsonl")
    (writer.folder / INDEX).write_bytes(stale + (again.folder / INDEX).read_bytes())
    manifest = json.loads((writer.folder / "manifest.json").read_text(encoding="utf-8"))
    del manifest["index_version"]  # an older engine's manifest
    (writer.folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return writer.folder, records


def test_index_lines_of_lost_records_are_not_taken_for_the_new_ones(tmp_path):
    folder, records = _stale_then_new(tmp_path)
    run = RecordedRun.open(folder)
    assert {e["key"][1]: e["status"] for e in run.index_entries()} == dict.fromkeys(CASES, "FAILED")
    assert [case.status for _, case in run.case_results()] == [Status.FAILED] * len(CASES)
    assert _by_key(RecordedRun.open(folder).index_entries()) == _truth(folder)


def test_resuming_a_run_whose_records_were_lost_drops_its_index(tmp_path):
    writer = RunWriter.create(tmp_path, _manifest())
    for case in CASES[:3]:
        writer.append(_record(writer.run_id, case))
    writer.close()
    (writer.folder / "results.jsonl").unlink()
    again = RunWriter.reopen(writer.folder, writer.manifest)
    again.append(_record(writer.run_id, "case-1", score=0.0))
    again.close()
    lines = (writer.folder / INDEX).read_bytes().splitlines()
    assert [json.loads(line)["key"][1] for line in lines] == ["case-1"]
    run = RecordedRun.open(writer.folder)
    assert run._unindexed == set() and {e["key"][1]: e["status"] for e in run.index_entries()} == {
        "case-1": "FAILED"
    }


def test_without_positional_reads_the_index_is_read_the_same(tmp_path, monkeypatch):
    writer = RunWriter.create(tmp_path, _manifest())
    for case in CASES[:3]:
        writer.append(_record(writer.run_id, case))
    writer.close()
    expected = _by_key(RecordedRun.open(writer.folder).index_entries())
    monkeypatch.delattr(os, "pread")  # as on Windows
    run = RecordedRun.open(writer.folder)
    assert _by_key(run.index_entries()) == expected and run._unindexed == set()


@pytest.mark.parametrize(
    "damage",
    [
        {"status": "BOGUS"},
        {"criteria": "not a list"},
        {"criteria": [["exact", "PASSED", "0.5", None, None, []]]},
        {"criteria": [["exact", "PASSED", 1.0, None, None, [["r1"]]]]},
        {"preview": None},
        {"preview": {"user": 5, "reply": ""}},
        {"key": [0, ["case-0"], 1]},
        {"key": [0, "case-0", 1.0]},
        {"at": [0, "9"]},
        {"reason_code": 5},
        {"rubric_texts": {"r1": ["text"]}},
        {"criteria": [["exact", "PASSED", 1.0, None, None]]},
        {"criteria": [["exact", "PASSED", 1.0, [], None, []]]},
        {"criteria": [["exact", "PASSED", 1.0, None, {"verdict": "PASS"}, []]]},
        {"criteria": [["exact", "PASSED", 1.0, None, None, [[1, 1.0, "yes"]]]]},
    ],
)
@pytest.mark.parametrize("placed_first", [False, True])
def test_an_index_line_of_the_wrong_shape_is_replaced_by_its_record(tmp_path, damage, placed_first):
    """Whichever way the index is read: in the pass that places the records, or after
    another reader placed them (``placed_first``: the lines then read by position)."""
    writer = RunWriter.create(tmp_path, _manifest())
    for case in CASES[:2]:
        writer.append(_record(writer.run_id, case))
    writer.close()
    path = writer.folder / INDEX
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    lines[0].update(damage)
    path.write_bytes(b"".join(pydantic_core.to_json(line) + b"\n" for line in lines))
    run = RecordedRun.open(writer.folder)
    if placed_first:
        run._index()
    assert _by_key(run.index_entries()) == _truth(writer.folder)
    if not placed_first:
        assert run._unindexed == {(0, "case-0", 1)}


_STATUS_VALUES = [status.value for status in Status]


def _plainly_well_formed(criteria) -> bool:
    """``criteria_well_formed``'s rule item by item (the reference its column checks keep to)."""
    if type(criteria) is not list:
        return False
    for item in criteria:
        if type(item) is not list or len(item) != 6:
            return False
        name, status, score, code, verdict, rubrics = item
        if type(name) is not str or type(status) is not str or status not in _STATUS_VALUES:
            return False
        if score is not None and type(score) not in (int, float):
            return False
        if not all(v is None or type(v) is str for v in (code, verdict)) or type(rubrics) is not list:
            return False
        if not all(type(r) is list and len(r) == 3 and type(r[0]) is str for r in rubrics):
            return False
    return True


_odd = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=3))
_anything = st.recursive(_odd, lambda inner: st.lists(inner, max_size=4), max_leaves=12)
_rubric = st.one_of(st.tuples(st.text(max_size=3), _odd, _odd).map(list), _anything)
_criterion = st.one_of(
    st.tuples(
        st.one_of(st.text(max_size=4), _odd),
        st.one_of(st.sampled_from(_STATUS_VALUES), _anything),
        st.one_of(st.none(), st.integers(), st.floats(allow_nan=False), _odd),
        st.one_of(st.none(), st.text(max_size=3), _odd),
        st.one_of(st.none(), st.sampled_from(["PASS", "FAIL"]), _anything),
        st.one_of(st.lists(_rubric, max_size=3), _anything),
    ).map(list),
    st.lists(_odd, min_size=5, max_size=7),
    _anything,
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.lists(_criterion, max_size=4), _anything), st.sampled_from([0, 8]))
def test_criteria_checked_by_column_or_item_by_item_keep_to_the_rule(criteria, few):
    """Both ways (a line's few criteria item by item, more by column) keep to the rule."""
    from unittest import mock

    from agenteval.runs import _index

    with mock.patch.object(_index, "_FEW", few):
        assert criteria_well_formed(criteria) is _plainly_well_formed(criteria)
        if type(criteria) is list:  # with each one's runs' scores added: the same answer
            with_runs = [[*item, [1.0]] if type(item) is list else item for item in criteria]
            assert criteria_well_formed(with_runs, run_scores=True) is _plainly_well_formed(criteria)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(
                st.one_of(st.integers(0, 3), _odd),
                st.one_of(st.text(max_size=3), _odd),
                st.one_of(st.integers(1, 3), _odd),
                st.integers(0, 9),
                st.integers(1, 9),
                st.one_of(st.sampled_from(_STATUS_VALUES), _anything),
                st.one_of(st.lists(_criterion, max_size=3), _anything),
            ).map(list),
            _anything,
        ),
        max_size=5,
    )
)
def test_scores_rows_checked_by_column_keep_to_the_rule_row_by_row(rows):
    def plainly(row) -> bool:
        return (
            type(row) is list
            and len(row) == 7
            and type(row[0]) is int
            and type(row[1]) is str
            and type(row[2]) is int
            and type(row[5]) is str
            and row[5] in _STATUS_VALUES
            and _plainly_well_formed(row[6])
        )

    assert rows_well_formed(rows, _STATUS_VALUES) is all(map(plainly, rows))
