"""The bounded reporters (``markdown``, ``github``) sum a run up from its index and read the
records of the cases they print only: their output is the same bytes as when every case is
read in full, on runs with failing, errored, inconclusive, unrecorded and multi-run cases,
and the records they read are bounded by what they print, whatever the run's size."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from agenteval._reporting import resolve_reporters
from agenteval.plugins import ReportContext
from agenteval.runs import CaseBrief, RecordedRun, RunState, RunWriter, new_run_id
from agenteval.runs._briefs import brief_from_result
from agenteval_builtin.reporters import _common

from .test_reporters import _run


def _copy(source: RecordedRun, target: Path, *, runs: int, copies: int, recorded: int) -> RecordedRun:
    """A run folder of ``copies`` times ``source``'s cases under new ids, ``runs`` runs each,
    the first ``recorded`` cases recorded (the rest never: the run was interrupted)."""
    records = list(source.records())
    entry = source.manifest.eval_sets[0]
    run_id = new_run_id()
    ids = [f"{record.case_id}_{n}" for n in range(copies) for record in records]
    entry = entry.model_copy(update={"case_ids": ids})
    state = RunState.COMPLETE if recorded >= len(ids) else RunState.INTERRUPTED
    manifest = source.manifest.model_copy(
        update={"run_id": run_id, "eval_sets": [entry], "num_runs": runs, "state": state}
    )
    writer = RunWriter.create(target, manifest)
    for number, case_id in enumerate(ids[:recorded]):
        for run_index in range(1, runs + 1):
            # each run of a case from another source case: runs that disagree (inconclusive)
            record = records[(number + run_index - 1) % len(records)]
            update = {"run_id": run_id, "case_id": case_id, "run_index": run_index}
            writer.append(record.model_copy(update=update))
    writer.write_manifest()
    writer.close()
    return RecordedRun.open(writer.folder)


def _full_briefs(run: RecordedRun) -> list[CaseBrief]:
    """Every case's brief made from its records read in full (what the reporters did before)."""
    return [brief_from_result(entry, row, case) for row, (entry, case) in enumerate(run.case_results())]


def _full_scores(run: RecordedRun):
    """``case_scores`` from ``_full_briefs``."""
    for b in _full_briefs(run):
        yield b.row, b.status.value, [(c.name, c.status.value, c.score) for c in b.criteria]


def _report(run: RecordedRun, name: str, tmp_path: Path) -> tuple[str, str, str]:
    """The reporter's files and printed lines."""
    folder = tmp_path / f"{name}-{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    stream = io.StringIO()
    summary = folder / "step-summary.md"
    context = ReportContext(
        run=RecordedRun.open(run.folder),
        folder=folder,
        stream=stream,
        environ={"GITHUB_STEP_SUMMARY": str(summary)},
    )
    [klass] = resolve_reporters([name]).values()
    paths = klass().write(context)
    files = "\n".join(f"{p.name}:\n{p.read_text(encoding='utf-8')}" for p in paths)
    return files, stream.getvalue(), str(len(paths))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, RecordedRun]:
    tmp = tmp_path_factory.mktemp("bounded")
    (tmp / "source").mkdir()
    source = _run(tmp / "source", failing=2)  # passed, failed, errored, not applicable
    shapes = {
        "one run": dict(runs=1, copies=6, recorded=36),
        "interrupted": dict(runs=1, copies=12, recorded=60),
        "three runs": dict(runs=3, copies=6, recorded=36),
        "three runs interrupted": dict(runs=3, copies=6, recorded=17),
    }
    found = {"source": source}
    for name, shape in shapes.items():
        found[name] = _copy(source, tmp / name.replace(" ", "-"), **shape)
    return found


@pytest.mark.parametrize("reporter", ["markdown", "github"])
@pytest.mark.parametrize(
    "shape", ["source", "one run", "interrupted", "three runs", "three runs interrupted"]
)
def test_the_report_from_the_index_is_the_report_from_every_record(
    runs, shape, reporter, tmp_path, monkeypatch
):
    run = runs[shape]
    summed = _common.tally(RecordedRun.open(run.folder))
    assert summed.cases == sum(len(e.case_ids) for e in run.manifest.eval_sets)
    fast = _report(run, reporter, tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(RecordedRun, "case_scores", _full_scores)
        full = _report(run, reporter, tmp_path)
    assert fast == full
    text = fast[0]
    if shape != "source":
        assert "did not pass" in text and "more (`agenteval runs show" in text


@pytest.mark.parametrize("reporter", ["markdown", "github"])
def test_only_the_printed_cases_records_are_read(runs, reporter, tmp_path, monkeypatch):
    reads = []
    original = RecordedRun._read_at

    def counted(self, handle, where, *model):
        reads.append(where)
        return original(self, handle, where, *model)

    monkeypatch.setattr(RecordedRun, "_read_at", counted)
    monkeypatch.setattr(RecordedRun, "records", lambda self: pytest.fail("every record read"))
    run = runs["interrupted"]
    _report(run, reporter, tmp_path)
    # markdown prints 20 failing cases (of 40); github's 10 annotations read 10 of them again
    assert len(reads) == {"markdown": 20, "github": 30}[reporter]
