"""What the built-in reporters share: one pass over a run's cases, the run's cases as briefs
(read from its index, no record) and the full result of the few a report prints, the reason
a case did not pass and bounded text."""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Optional

from agenteval import CaseResult, CriterionResult, Status
from agenteval.runs import CaseBrief, CaseRecord, EvalSetEntry, RecordedRun

__all__ = [
    "CaseView",
    "case_view",
    "cases_of",
    "cell",
    "clip",
    "code",
    "first_problem",
    "plan_briefs",
    "status_counts",
]

_PUNCTUATION = frozenset(string.punctuation)
_UNSPANNABLE = re.compile(r"[`\\|]|^ | $")
_MARKUP = re.compile(r"[`*\[\]~]|(?<!\w)_|_(?!\w)")


@dataclass(frozen=True)
class CaseView:
    """A case as reporters see it: its eval set, its combined result and its first run's record."""

    entry: EvalSetEntry
    result: CaseResult
    record: Optional[CaseRecord]

    @property
    def duration(self) -> float:
        return self.record.duration_s if self.record is not None else 0.0


def cases_of(run: RecordedRun) -> Iterator[CaseView]:
    """Every planned case of the run, in run order (one record read at a time)."""
    pending = run.in_progress
    for entry, case_id, records in run.case_records():
        yield _view(run, entry, case_id, records, pending)


def plan_briefs(run: RecordedRun) -> list[CaseBrief]:
    """Every planned case's brief (``RecordedRun.case_briefs``: status and each criterion's
    status and score, from the run's index) in plan order, as ``case_results`` gives the
    cases; of a case recorded twice, the later. What a bounded report sums up without
    reading a record."""
    rows: list[Optional[CaseBrief]] = [None] * sum(len(entry.case_ids) for entry in run.manifest.eval_sets)
    for brief in run.case_briefs():
        rows[brief.row] = brief
    return [brief for brief in rows if brief is not None]


def case_view(run: RecordedRun, brief: CaseBrief, *, pending: Optional[bool] = None) -> CaseView:
    """The full result of one case a report prints (its records read, the run's rules applied)."""
    return _view(run, brief.entry, brief.case_id, run.case_runs(brief.entry, brief.case_id), pending)


def _view(
    run: RecordedRun,
    entry: EvalSetEntry,
    case_id: str,
    records: list[Optional[CaseRecord]],
    pending: Optional[bool],
) -> CaseView:
    """A case's view from its records: the first run's record is the one already read (a
    case whose runs ``--num-runs auto`` found unneeded reads it on its own)."""
    case = run.case_result(entry, case_id, records, pending=pending)
    first = records[0] if records else run.record((entry.index, case_id, 1))
    return CaseView(entry, case, first)


def first_problem(case: CaseResult) -> Optional[CriterionResult]:
    """The criterion result that explains why a case did not pass (the worst first)."""
    order = [Status.FAILED, Status.ERRORED, Status.NOT_EVALUATED]
    for status in order:
        for result in case.criteria:
            if result.status is status:
                return result
    return None


def clip(text: Optional[str], limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with a marker."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: max(0, limit - 1)] + "…"


def status_counts(run: RecordedRun) -> dict[Status, int]:
    """Cases by status, from the run's summary when it has one."""
    written = run.summary()
    if written is not None:
        return dict(written.summary.cases)
    counts = {status: 0 for status in Status}
    for brief in plan_briefs(run):
        counts[brief.status] += 1
    return counts


def cell(text: object) -> str:
    """Text safe inside a Markdown table cell: no pipes, line breaks or HTML, and no code
    span, emphasis or link made of its backticks, asterisks, brackets, tildes or
    word-boundary underscores (``case_2`` stays as it is)."""
    value = str(text).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
    return " ".join(_MARKUP.sub(r"\\\g<0>", value).split())


def code(text: object) -> str:
    """``text`` as inline code that is safe anywhere in Markdown, a table cell included: a
    code span when it holds no backtick, backslash or pipe; else an HTML ``<code>`` element
    whose punctuation is written as character references (a code span cannot hold a
    backslash before a pipe inside a table, nor show its own fence)."""
    value = " ".join(str(text).split())
    if not _UNSPANNABLE.search(value) and value.strip():
        return f"`{value}`"
    return "<code>" + "".join(f"&#{ord(c)};" if c in _PUNCTUATION else c for c in value) + "</code>"
