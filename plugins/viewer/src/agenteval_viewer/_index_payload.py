"""``case_index(run)``: the columnar index of every planned case (one row per case, combined
over its runs, in plan order): small integer codes plus legends, so that 100k cases stay a
few megabytes; ``head_index(run)``, the first rows of a big run at once — ``docs/viewer.md``,
"index"."""

from __future__ import annotations

import itertools
from typing import Any, Optional

from agenteval.runs import RecordedRun

from ._scan import STATUS_LEGEND, Scan, scan

__all__ = ["HEAD_ROWS", "INDEX_SCHEMA", "case_index", "head_index"]

INDEX_SCHEMA = "agenteval.viewer.index/1"


def case_index(run: RecordedRun, scanned: Optional[Scan] = None) -> dict[str, Any]:
    """The columnar index of every planned case (``docs/viewer.md``, "index")."""
    scanned = scanned or scan(run)
    n = len(scanned.status)
    return {
        "schema": INDEX_SCHEMA,
        "run_id": run.run_id,
        "n": n,
        "status_legend": STATUS_LEGEND,
        "eval_sets": [e.eval_set_id for e in run.manifest.eval_sets],
        "reason_codes": scanned.reason_codes,
        "rubrics": scanned.rubric_ids,
        "criteria": list(scanned.criteria),
        "row": list(range(n)),
        "eval_set": scanned.eval_set,
        "case_id": scanned.case_id,
        "status": scanned.status,
        "search": scanned.search,
        "failed_rubrics": scanned.failed_rubrics,
        "by_criterion": {
            name: {"status": agg.status_col, "score": agg.score_col, "reason_code": agg.reason_col}
            for name, agg in scanned.criteria.items()
        },
    }


#: How many rows ``head_index`` lays out, and how many index entries it reads at most for them.
HEAD_ROWS = 500
_HEAD_READ = 4 * HEAD_ROWS + 1000


def head_index(run: RecordedRun, rows: int = HEAD_ROWS) -> Optional[dict[str, Any]]:
    """The case index of the first ``rows`` planned cases only: what a big run shows while
    its whole index is built. ``partial`` is ``true``, ``total`` is the number of planned
    cases, and a row whose brief was not read has a ``null`` status.

    A run of one run per case reads the beginning of its index (at most a few thousand
    entries, whatever the run's size). A run of several runs per case reads the first
    ``rows`` briefs in plan order (``RecordedRun.case_briefs``: the briefs it wrote as each
    case finished, under its summary's seal); one without a summary (still going, or killed)
    has no head (``None``): each of its cases is combined from its records, as costly as the
    whole index."""
    scanned = Scan(run)
    if run.manifest.num_runs != 1:
        if run.summary() is None:
            return None
        scanned.add_briefs(itertools.islice(run.case_briefs(), rows), limit=rows)
    else:
        recorded = itertools.takewhile(lambda brief: brief.recorded, run.case_briefs())  # the index's
        scanned.add_briefs(itertools.islice(recorded, _HEAD_READ), limit=rows)
    index = case_index(run, scanned.finish())
    index["partial"] = True
    index["total"] = sum(len(e.case_ids) for e in run.manifest.eval_sets)
    return index
