"""What the built-in reporters share: one pass over a run's cases, the reason a case did
not pass and bounded text."""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Optional

from agenteval import CaseResult, CriterionResult, Status
from agenteval.runs import CaseRecord, EvalSetEntry, RecordedRun

__all__ = ["CaseView", "cases_of", "cell", "clip", "code", "first_problem", "status_counts"]

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
    for entry, case in run.case_results():
        yield CaseView(entry, case, run.record((entry.index, case.eval_id, 1)))


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
    for view in cases_of(run):
        counts[view.result.status] += 1
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
