"""The engine's own reporters, registered like any plugin's (entry points of
agenteval-engine): its two documented formats and the terminal report, written to files.

* ``json``: ``report.json``, the ``--format json`` document (docs/json-format.md);
* ``jsonl``: ``cases.jsonl``, one compact line per case (combined over its runs), flat keys
  first so that ``jq``, pandas or duckdb need no unpacking;
* ``table``: ``report.txt``, the terminal report with every case, without colours.

Each reads the run folder one case at a time, so a 100k-case run is written in bounded
memory.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Optional

from .._jsonsafe import dump_model, writable
from ._cases import CaseView, scored_cases
from ._contract import ReportContext, Reporter

__all__ = ["JsonLinesReporter", "JsonReporter", "TableReporter", "CASE_LINE_SCHEMA"]

#: The schema of a ``cases.jsonl`` line.
CASE_LINE_SCHEMA = "agenteval.case/1"


class JsonReporter(Reporter):
    """``report.json``: the run's JSON document (the same as ``--format json``)."""

    description = "report.json: the run's JSON document (the same as --format json)"

    def write(self, context: ReportContext) -> list[Path]:
        from ._json import write_json

        target = context.folder / "report.json"
        with target.open("w", encoding="utf-8", errors="backslashreplace") as handle:
            write_json(context.run, handle, summary=context.summary)
        return [target]


def case_line(run_id: str, view: CaseView) -> str:
    """``view`` as one compact JSON line (no newline): the flat keys, then the case's
    criteria results and agent runs as in the JSON document."""
    case = view.case
    problem = next((r for r in case.criteria if not r.status.ok), None)
    flat = {
        "schema": CASE_LINE_SCHEMA,
        "run_id": run_id,
        "eval_set_index": view.set_index,
        "eval_set_id": view.eval_set_id,
        "eval_set_file": view.source,
        "case_id": case.eval_id,
        "status": case.status.value,
        "reason": problem.reason if problem is not None else None,
        "reason_code": problem.reason_code if problem is not None else None,
        "scores": {r.criterion: _finite(r.score) for r in case.criteria},
        "statuses": {r.criterion: r.status.value for r in case.criteria},
    }
    head = json.dumps(flat, ensure_ascii=False, separators=(",", ":"))
    try:
        head.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate in a reason or a name: shown as its escape
        head = json.dumps(writable(flat), ensure_ascii=False, separators=(",", ":"))
    rest = dump_model(case, exclude={"eval_id", "status"})
    return head[:-1] + "," + rest[1:] if rest != "{}" else head


def _finite(value: Optional[float]) -> Optional[float]:
    return value if value is None or math.isfinite(value) else None


class JsonLinesReporter(Reporter):
    """``cases.jsonl``: one line per case, its key and outcome flat, then its full result."""

    description = "cases.jsonl: one JSON line per case (flat keys first), for jq, pandas or duckdb"

    def write(self, context: ReportContext) -> list[Path]:
        run = context.run
        target = context.folder / "cases.jsonl"
        with target.open("w", encoding="utf-8", errors="backslashreplace") as handle:
            for entry, case in scored_cases(run):  # a line holds no turn: none is read
                view = CaseView(
                    set_index=entry.index, eval_set_id=entry.eval_set_id, source=entry.path, case=case
                )
                handle.write(case_line(run.run_id, view) + "\n")
        return [target]


class TableReporter(Reporter):
    """``report.txt``: the terminal report with every case listed, no colours, 100 columns."""

    description = "report.txt: the terminal report, every case listed, without colours"

    def write(self, context: ReportContext) -> list[Path]:
        from ._table import file_console, render_table

        target = context.folder / "report.txt"
        with target.open("w", encoding="utf-8", errors="backslashreplace") as handle:
            console = file_console(handle, 100, color_system=None)
            render_table(context.run, console, summary=context.summary, show="all")
        return [target]
