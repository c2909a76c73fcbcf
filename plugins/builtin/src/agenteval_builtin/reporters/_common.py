"""What the built-in reporters share: one pass over a run's cases, a run summed up without
reading a record (``tally``) and the full result of the few cases a report prints, the reason
a case did not pass and bounded text."""

from __future__ import annotations

import re
import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from agenteval import CaseResult, CriterionResult, Status
from agenteval.plugins import gc_paused
from agenteval.runs import CaseRecord, EvalSetEntry, RecordedRun

__all__ = [
    "CaseView",
    "case_view",
    "cases_of",
    "cell",
    "clip",
    "code",
    "first_problem",
    "status_counts",
    "tally",
    "Tally",
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

    @property
    def agent_error(self) -> Optional[tuple[Optional[str], str]]:
        """The first run's agent error as ``(code, message)``; ``None`` without one. (A record
        read as far as its scores holds it as ``agent_error``, a whole one in ``actual``.)"""
        record = self.record
        found = getattr(record, "agent_error", None) or (record.actual if record is not None else None)
        if found is None or found.error is None:
            return None
        return found.error_code, found.error.message


def cases_of(run: RecordedRun) -> Iterator[CaseView]:
    """Every planned case of the run, in run order, one record read at a time and only as far
    as its result and its report need it (``case_records(scored=True)``: its criteria,
    duration and agent error, not its turns)."""
    pending = run.in_progress
    for entry, case_id, records in run.case_records(scored=True):
        yield _view(run, entry, case_id, records, pending)


@dataclass(frozen=True)
class Tally:
    """What a bounded report sums up of a whole run without reading a record (``tally``).

    Attributes:
        cases: the planned cases.
        counts: cases by status (every status, in its enum order).
        criteria: per criterion, in the order first met: ``[sum of scores, scored, passed,
            failed, informational, total]`` (the scores summed in plan order).
        failing: the cases that did not pass, in plan order, as (eval set, case id, status).
    """

    cases: int
    counts: dict[Status, int]
    criteria: dict[str, list[float]]
    failing: list[tuple[EvalSetEntry, str, Status]]


_STATUSES = {status.value: status for status in Status}


def tally(run: RecordedRun) -> Tally:
    """The run's ``Tally`` from ``RecordedRun.case_scores`` (each planned case's status and
    each criterion's status and score, as its brief says them: of a case recorded twice, the
    later), summed in plan order: a finished run's ``scores.jsonl`` read, no brief made."""
    with gc_paused():  # what is read is let go at the end: no cycle for it to find
        return _tally(run)


def _tally(run: RecordedRun) -> Tally:
    plan = [(entry, case_id) for entry in run.manifest.eval_sets for case_id in entry.case_ids]
    statuses: list[Optional[str]] = [None] * len(plan)
    results: list[Sequence[Sequence[Any]]] = [()] * len(plan)
    for row, status, criteria in run.case_scores():
        statuses[row], results[row] = status, criteria
    counts = {status: 0 for status in Status}
    sums: dict[str, list[float]] = {}
    failing = []
    cases = 0
    for row, value in enumerate(statuses):
        if value is None:
            continue
        cases += 1
        status = _STATUSES[value]
        counts[status] += 1
        if status is not Status.PASSED and status is not Status.INFORMATIONAL:
            failing.append((*plan[row], status))
        for item in results[row]:
            name, cstatus, score = item[0], item[1], item[2]
            sum_ = sums.get(name)
            if sum_ is None:
                sum_ = sums[name] = [0.0, 0, 0, 0, 0, 0]
            sum_[5] += 1
            if cstatus == "PASSED":
                sum_[2] += 1
            elif cstatus == "FAILED":
                sum_[3] += 1
            elif cstatus == "INFORMATIONAL":
                sum_[4] += 1
            if score is not None:
                sum_[0] += score
                sum_[1] += 1
    return Tally(cases, counts, sums, failing)


def case_view(
    run: RecordedRun, entry: EvalSetEntry, case_id: str, *, pending: Optional[bool] = None
) -> CaseView:
    """The full result of one case a report prints (its records read, the run's rules applied)."""
    return _view(run, entry, case_id, run.case_runs(entry, case_id), pending)


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
    return tally(run).counts


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
