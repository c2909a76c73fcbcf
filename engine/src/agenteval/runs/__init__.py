"""Run folders: the durable record of every ``agenteval run``.

A run writes ``<runs dir>/<run_id>/`` as it goes (``docs/run-folder.md`` is the public,
versioned schema):

* ``manifest.json`` — what the run is (inputs with hashes, criteria with versions and
  thresholds, agent, plugins), its ``state`` (running / complete / interrupted / failed);
* ``results.jsonl`` — one ``CaseRecord`` per case × run, appended and flushed as each
  finishes;
* ``summary.json`` — the summary, at the end and at interruption.

``RecordedRun`` reads one back (every reporter, ``agenteval runs``, ``--resume`` and
``--actual RUN_FOLDER`` go through it); ``RecordedRun.case_briefs()`` yields each case as a
typed ``CaseBrief`` (with ``CriterionBrief`` and ``RubricBrief``) for listings, the folder's
reading rules applied once; ``RunWriter`` writes one.

Comparing two runs (``agenteval compare A B``): ``load_side`` reads one side (a run folder,
a run id in a runs folder, or ADK eval-history results); ``compare_sides`` pairs two sides
and tests each criterion; the ``CompareReport``'s ``to_json()`` is the document
``agenteval compare A B --format json`` prints, and ``render_markdown`` its pull-request
comment. Pairing and configuration problems raise ``agenteval.errors.ConfigError``.
"""

from ._briefs import CaseBrief, CriterionBrief, RubricBrief, not_reached, rubric_failed
from ._comparison import CaseFlip, CompareReport, Side, compare_sides, load_side, render_markdown
from ._folder import (
    RUNS_DIR_ENV,
    RunWriter,
    complete_end,
    default_runs_dir,
    new_run_id,
    utc_now,
    writer_alive,
)
from ._reader import RecordedRun, auto_runs_needed, case_from_records, find_run, list_runs, remove_run
from ._records import (
    MANIFEST_SCHEMA,
    RECORD_SCHEMA,
    SUMMARY_SCHEMA,
    CalibrationGate,
    CaseRecord,
    CriterionEntry,
    EvalSetEntry,
    InputFile,
    Manifest,
    RunState,
    SummaryDocument,
)

__all__ = [
    "CaseFlip",
    "CompareReport",
    "Side",
    "compare_sides",
    "load_side",
    "render_markdown",
    "MANIFEST_SCHEMA",
    "RECORD_SCHEMA",
    "RUNS_DIR_ENV",
    "SUMMARY_SCHEMA",
    "CaseBrief",
    "CaseRecord",
    "CriterionBrief",
    "CalibrationGate",
    "CriterionEntry",
    "EvalSetEntry",
    "InputFile",
    "Manifest",
    "RecordedRun",
    "RubricBrief",
    "RunState",
    "RunWriter",
    "SummaryDocument",
    "auto_runs_needed",
    "case_from_records",
    "complete_end",
    "default_runs_dir",
    "find_run",
    "list_runs",
    "new_run_id",
    "not_reached",
    "remove_run",
    "rubric_failed",
    "utc_now",
    "writer_alive",
]
