"""``RecordedRun.result_summary``: a complete run's own ``summary.json`` when it covers every
record, else the summary recomputed from the records; both the same."""

from __future__ import annotations

import json
import os
from pathlib import Path

import agenteval
from agenteval import Status
from agenteval.runs import RecordedRun, SummaryDocument, list_runs

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
