"""``RecordedRun.result_summary``: a complete run's own ``summary.json`` when it covers every
record, else the summary recomputed from the records; both the same."""

from __future__ import annotations

import os
from pathlib import Path

import agenteval
from agenteval.runs import RecordedRun, list_runs

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
    assert written is not None
    doctored = written.model_copy(
        update={"summary": written.summary.model_copy(update={"not_evaluated_reasons": {"x": 1}})}
    )
    (run.folder / "summary.json").write_text(doctored.dump(), encoding="utf-8")
    assert RecordedRun.open(run.folder).result_summary() == doctored.summary  # trusted: newer
    later = (run.folder / "summary.json").stat().st_mtime_ns + 10**9
    os.utime(run.folder / "results.jsonl", ns=(later, later))
    assert RecordedRun.open(run.folder).result_summary() == written.summary  # recomputed
