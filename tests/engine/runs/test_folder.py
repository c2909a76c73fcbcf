"""The run folder: written as the run goes, read back whatever state it was left in."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest
from agenteval import Status
from agenteval.errors import ConfigError, RecordingError
from agenteval.runs import (
    CaseRecord,
    CriterionEntry,
    EvalSetEntry,
    Manifest,
    RecordedRun,
    RunState,
    RunWriter,
    complete_end,
    find_run,
    list_runs,
    new_run_id,
    utc_now,
)
from hypothesis import given, settings
from hypothesis import strategies as st


def manifest(run_id: str | None = None, cases=("a", "b", "c"), num_runs: int = 1) -> Manifest:
    entry = CriterionEntry(
        name="exact", distribution="d", version="1", entry_point="m:C", threshold=0.5, params={}
    )
    return Manifest(
        run_id=run_id or new_run_id(),
        started_at=utc_now(),
        engine_version="0",
        eval_sets=[EvalSetEntry(index=0, eval_set_id="s", case_ids=list(cases), criteria=[entry])],
        num_runs=num_runs,
    )


def record(run_id: str, case_id: str, score: float = 1.0, run_index: int = 1) -> CaseRecord:
    from agenteval import CriterionResult, PluginInfo

    result = CriterionResult(
        criterion="exact",
        threshold=0.5,
        score=score,
        status=Status.PASSED if score >= 0.5 else Status.FAILED,
        plugin=PluginInfo(distribution="d", version="1", entry_point="m:C"),
    )
    return CaseRecord(
        run_id=run_id,
        eval_set_index=0,
        eval_set_id="s",
        case_id=case_id,
        run_index=run_index,
        status=result.status,
        scores={"exact": score},
        statuses={"exact": result.status},
        criteria=[result],
    )


def test_run_ids_sort_by_time_and_never_collide():
    ids = [new_run_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    assert sorted(ids, key=lambda i: i.split("-")[0]) == ids


def test_records_are_on_disk_as_soon_as_they_are_appended(tmp_path):
    writer = RunWriter.create(tmp_path, manifest())
    writer.append(record(writer.run_id, "a"))
    # Not closed: another reader already sees the record (flushed).
    run = RecordedRun.open(writer.folder)
    assert [r.case_id for r in run.records()] == ["a"]
    assert run.manifest.state is RunState.RUNNING
    writer.close()


def test_reader_skips_a_truncated_last_line_and_the_last_record_of_a_key_wins(tmp_path):
    writer = RunWriter.create(tmp_path, manifest())
    for rec in (record(writer.run_id, "a", 0.0), record(writer.run_id, "b"), record(writer.run_id, "a", 1.0)):
        writer.append(rec)
    writer.close()
    results = writer.folder / "results.jsonl"
    with open(results, "a", encoding="utf-8") as handle:
        handle.write(record(writer.run_id, "c").dump()[:40])  # a killed writer's partial line
    run = RecordedRun.open(writer.folder)
    assert [(r.case_id, r.scores["exact"]) for r in run.records()] == [("b", 1.0), ("a", 1.0)]
    assert run.damaged_lines == 1
    cases = {case.eval_id: case for _, case in run.case_results()}
    assert cases["a"].status is Status.PASSED
    assert cases["c"].status is Status.NOT_EVALUATED
    assert cases["c"].criteria[0].reason_code == "interrupted"


def test_a_damaged_line_in_the_middle_is_skipped_and_counted(tmp_path):
    writer = RunWriter.create(tmp_path, manifest())
    writer.append(record(writer.run_id, "a"))
    writer._results.write(b"{not json\n")
    writer.append(record(writer.run_id, "b"))
    writer.close()
    run = RecordedRun.open(writer.folder)
    assert [r.case_id for r in run.records()] == ["a", "b"] and run.damaged_lines == 1


def test_reopening_cuts_a_partial_line_so_new_records_start_clean(tmp_path):
    writer = RunWriter.create(tmp_path, manifest())
    writer.append(record(writer.run_id, "a"))
    writer.close()
    with open(writer.folder / "results.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"schema": "agenteval.rec')
    again = RunWriter.reopen(writer.folder, writer.manifest)
    again.append(record(writer.run_id, "b"))
    again.close()
    lines = (writer.folder / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    assert [r.case_id for r in RecordedRun.open(writer.folder).records()] == ["a", "b"]


def test_one_folder_per_run_and_one_writer_per_folder(tmp_path):
    first = RunWriter.create(tmp_path, manifest())
    second = RunWriter.create(tmp_path, manifest())
    assert first.folder != second.folder
    with pytest.raises(ConfigError, match="in use by another agenteval process"):
        RunWriter.reopen(first.folder, first.manifest)
    first.close()
    RunWriter.reopen(first.folder, first.manifest).close()  # free again once closed
    second.close()


def test_the_manifest_is_replaced_atomically(tmp_path):
    writer = RunWriter.create(tmp_path, manifest())
    writer.manifest.state = RunState.COMPLETE
    writer.write_manifest()
    assert RecordedRun.open(writer.folder).manifest.state is RunState.COMPLETE
    assert [p.name for p in writer.folder.iterdir() if p.name.endswith(".tmp")] == []
    writer.close()


def test_a_runs_folder_that_is_a_file_is_a_usage_error(tmp_path):
    blocker = tmp_path / "runs"
    blocker.write_text("not a folder")
    with pytest.raises(ConfigError) as info:
        RunWriter.create(blocker, manifest())
    assert "cannot write the run folder" in str(info.value) and "--no-record" in str(info.value)


class _FullDisk:
    def tell(self) -> int:
        return 0

    def write(self, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        raise OSError(errno.EBADF, "closed")

    def close(self) -> None:
        pass


def test_a_full_disk_is_a_recording_error_that_says_so(tmp_path):
    writer = RunWriter.create(tmp_path, manifest())
    real, writer._results = writer._results, _FullDisk()
    real.close()
    with pytest.raises(RecordingError, match="the disk is full"):
        writer.append(record(writer.run_id, "a"))
    writer.close()


def test_damaged_or_missing_manifests_are_clear_errors(tmp_path):
    with pytest.raises(ConfigError, match="not an agenteval run folder"):
        RecordedRun.open(tmp_path)
    (tmp_path / "manifest.json").write_text("{", encoding="utf-8")
    with pytest.raises(ConfigError, match="damaged"):
        RecordedRun.open(tmp_path)


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"confidence": 1e308}, "confidence: Input should be less than 1"),
        ({"confidence": 0.0}, "confidence: Input should be greater than 0"),
        ({"set_confidence": 1.0}, "set_confidence: Input should be less than 1"),
        ({"num_runs": 0}, "num_runs: Input should be greater than or equal to 1"),
        ({"threshold": None}, "criterion 'exact' gates (not informational) but has no threshold"),
        ({"min_score": 2.0}, "criterion 'exact': min_score 2.0 is above max_score 1.0"),
        ({"shard": {"index": 1, "count": 2, "plan_case_ids": [["a"]]}}, "shard: not an index and count"),
        ({"case_ids": ["a", "b", "a"]}, "eval set 's' lists case(s) twice: 'a'"),
        ({"shard": {"index": 3, "count": 2, "plan_fingerprint": "f", "plan_case_ids": []}}, "shard: not"),
        ({"shard": {"index": 1, "count": 2, "plan_fingerprint": "f", "plan_case_ids": [[1]]}}, "shard: not"),
    ],
)
def test_a_manifest_no_run_could_have_written_is_damaged_and_says_where(tmp_path, change, said):
    """Settings and criteria a run never writes (a hand edit) would fail deep in a reader's
    statistics: the folder is refused when opened, naming the field."""
    writer = RunWriter.create(tmp_path, manifest())
    writer.close()
    path = writer.folder / "manifest.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    target = data
    if {"threshold", "min_score"} & set(change):
        target = data["eval_sets"][0]["criteria"][0]
    elif "case_ids" in change:
        target = data["eval_sets"][0]
    target.update(change)
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ConfigError, match="damaged") as raised:
        RecordedRun.open(writer.folder)
    assert said in str(raised.value)


def test_finding_runs_by_id_prefix_and_latest(tmp_path):
    assert list_runs(tmp_path / "nowhere") == []
    first = RunWriter.create(tmp_path, manifest(run_id="20260101T000000000000Z-aaaaaa"))
    second = RunWriter.create(tmp_path, manifest(run_id="20260102T000000000000Z-bbbbbb"))
    (tmp_path / "junk").mkdir()  # not a run: left out
    for writer in (first, second):
        writer.close()
    assert [r.run_id for r in list_runs(tmp_path)] == [first.run_id, second.run_id]
    assert find_run(tmp_path).run_id == second.run_id
    assert find_run(tmp_path, "20260101").run_id == first.run_id
    assert find_run(tmp_path, str(second.folder)).run_id == second.run_id
    with pytest.raises(ConfigError, match="matches several runs"):
        find_run(tmp_path, "2026")
    with pytest.raises(ConfigError, match="no run 'zzz'"):
        find_run(tmp_path, "zzz")
    with pytest.raises(ConfigError, match="no recorded runs"):
        find_run(Path(tmp_path / "empty"))
    # A path that is not there, and an id with glob characters, are told apart from a pattern.
    with pytest.raises(ConfigError, match="not a run folder"):
        find_run(tmp_path, str(tmp_path / "nowhere" / "at-all"))
    with pytest.raises(ConfigError, match=r"no run '2026\*'"):
        find_run(tmp_path, "2026*")


def test_several_runs_of_a_case_are_combined_from_their_records(tmp_path):
    writer = RunWriter.create(tmp_path, manifest(cases=("a",), num_runs=2))
    writer.append(record(writer.run_id, "a", 1.0, run_index=1))
    writer.append(record(writer.run_id, "a", 0.0, run_index=2))
    writer.close()
    [(_, case)] = list(RecordedRun.open(writer.folder).case_results())
    [criterion] = case.criteria
    assert criterion.score == 0.5 and criterion.status is Status.PASSED
    assert [r.score for r in criterion.runs] == [1.0, 0.0]


def test_a_case_not_recorded_is_pending_while_its_writer_lives_and_interrupted_after(tmp_path):
    writer = RunWriter.create(tmp_path, manifest(cases=("a", "b")))
    writer.append(record(writer.run_id, "a", 1.0))
    live = RecordedRun.open(writer.folder)
    assert live.manifest.state is RunState.RUNNING and live.in_progress
    codes = {case.eval_id: case.criteria[0].reason_code for _, case in live.case_results()}
    assert codes == {"a": None, "b": "pending"}
    writer.close()  # the lock goes, the manifest still says running: a kill -9
    dead = RecordedRun.open(writer.folder)
    assert dead.manifest.state is RunState.RUNNING and not dead.in_progress
    [(_, b)] = [(e, c) for e, c in dead.case_results() if c.eval_id == "b"]
    assert b.criteria[0].reason_code == "interrupted" and b.status is Status.NOT_EVALUATED


def _lines_as_before(written: CaseRecord, scrub=lambda text: text) -> bytes:
    """The line the writer wrote before it encoded records straight to bytes."""
    from agenteval._jsonsafe import dump_model

    return scrub(dump_model(written, by_alias=True) + "\n").encode("utf-8", "surrogatepass")


def test_a_record_line_is_the_bytes_its_dump_gives(tmp_path):
    from agenteval.runs._records import record_line

    m = manifest()
    writer = RunWriter.create(tmp_path, m)
    kept = record(m.run_id, "a")
    # a lone surrogate in the agent's reply: the fast encoder refuses it, the fallback shows it
    odd = kept.model_copy(update={"reason": "bad \ud800 text"})
    # no turns: the line is the whole dump less the turns' nulls; the fallback writes it whole
    lines = [_lines_as_before(kept).replace(b'"expected":null,"actual":null,', b""), _lines_as_before(odd)]
    assert b'"expected"' not in lines[0] and b'"expected":null' in lines[1]
    for each, line in zip((kept, odd), lines, strict=True):
        assert record_line(each) == line
        assert each.dump().encode("utf-8", "surrogatepass") == line
        writer.append(each)
    writer.close()
    data = (writer.folder / "results.jsonl").read_bytes()
    assert data == b"".join(lines)
    assert b"\\ud800" in data


def test_credentials_are_scrubbed_from_every_line_written(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_API_KEY", "sk-secret-value-1234")
    m = manifest()
    writer = RunWriter.create(tmp_path, m)
    leaked = record(m.run_id, "a").model_copy(
        update={"reason": "used sk-secret-value-1234", "case_id": "sk-secret-value-1234"}
    )
    writer.append(leaked)
    writer.close()
    for name in ("results.jsonl", "index.jsonl", "scores.jsonl"):
        text = (writer.folder / name).read_text(encoding="utf-8")
        assert "sk-secret-value-1234" not in text and "[redacted]" in text


def test_records_read_as_far_as_their_scores_keep_what_a_report_of_them_needs(tmp_path):
    """``records(scored=True)``: the same records as ``records()``, each with its key, criteria,
    origin, duration and its actual turns' ids, but no turn's content."""
    from agenteval.cli import main
    from click.testing import CliRunner

    example = Path(__file__).resolve().parents[3] / "examples" / "travel"
    args = ["run", str(example), "--actual", str(example / "travel.actual.json"), "--runs-dir", str(tmp_path)]
    assert CliRunner().invoke(main, args).exit_code == 1
    [run] = list_runs(tmp_path)
    whole, scored = list(run.records()), list(run.records(scored=True))
    assert len(scored) == len(whole) == 3
    for full, light in zip(whole, scored, strict=True):
        fields = ("run_id", "eval_set_index", "eval_set_id", "case_id", "run_index", "status", "origin")
        fields += ("duration_s",)
        assert [getattr(light, f) for f in fields] == [getattr(full, f) for f in fields]
        assert light.criteria == full.criteria
        ids = [turn.invocation_id for turn in full.actual.invocations]
        assert ids and all(ids) and [turn.invocation_id for turn in light.actual.invocations] == ids
        assert not hasattr(light, "expected") and not hasattr(light.actual.invocations[0], "user_content")


def test_the_complete_end_is_past_the_last_complete_line(tmp_path):
    path = tmp_path / "results.jsonl"
    assert complete_end(path) == 0  # no file
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n{"c": ')
    assert complete_end(path) == len(b'{"a": 1}\n{"b": 2}\n')  # a line being written is not read
    path.write_bytes(b"x" * 200_000 + b"\n" + b"y" * 100_000)  # found further back than one step
    assert complete_end(path) == 200_001
    path.write_bytes(b"no line end at all")
    assert complete_end(path) == 0


@settings(max_examples=60, deadline=None)
@given(data=st.binary(max_size=200), step=st.integers(min_value=1, max_value=9))
def test_the_complete_end_is_found_from_any_block_size(tmp_path_factory, data, step):
    from unittest import mock

    from agenteval.runs import _folder

    path = tmp_path_factory.mktemp("end") / "lines.jsonl"
    path.write_bytes(data)
    with mock.patch.object(_folder, "_TAIL_STEP", step):
        assert complete_end(path) == data.rfind(b"\n") + 1
