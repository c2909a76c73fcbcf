"""One streaming pass over a recorded run (``scan``): the case index's columns and the run
summary's aggregates, shared by ``_summary_payload`` and ``_index_payload``; and the plan's
rows (``row_of``).

Records are streamed: the pass reads the engine's case briefs (``RecordedRun.case_briefs``),
never the whole run's records at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Optional

from agenteval import Status
from agenteval.models import Invocation
from agenteval.runs import CaseBrief, EvalSetEntry, RecordedRun, RubricBrief

__all__ = ["STATUS_LEGEND", "Scan", "row_of", "rubric_texts", "scan"]

#: Status codes of the index: a status's code is its place in this list.
STATUS_LEGEND = ["PASSED", "FAILED", "ERRORED", "NOT_EVALUATED", "INFORMATIONAL"]
_CODE = {Status(name): code for code, name in enumerate(STATUS_LEGEND)}
_SEARCH_USER = 80
_SEARCH_RESPONSE = 120


# -- the plan: rows, and the records of each ----------------------------------------------


def row_of(run: RecordedRun, row: int) -> Optional[tuple[EvalSetEntry, str]]:
    """The eval set and case id of ``row`` (plan order), or ``None`` out of range."""
    if row < 0:
        return None
    for entry in run.manifest.eval_sets:
        if row < len(entry.case_ids):
            return entry, entry.case_ids[row]
        row -= len(entry.case_ids)
    return None


def _search(case_id: str, user: str, reply: str) -> str:
    """A row's search text: its case id (on one line, lowercase), then the beginning of the
    first user message and of the last reply, each already on one line."""
    return " ".join(part for part in (case_id, user[:_SEARCH_USER], reply[:_SEARCH_RESPONSE]) if part).lower()


def rubric_texts(entry: EvalSetEntry, expected: Iterable[Invocation]) -> dict[str, str]:
    texts: dict[str, str] = {}
    for criterion in entry.criteria:
        for rubric in criterion.params.get("rubrics", []) or []:
            if isinstance(rubric, dict) and "rubric_id" in rubric:
                content = rubric.get("rubric_content") or {}
                texts[str(rubric["rubric_id"])] = str(content.get("text_property") or "")
    for invocation in expected:
        for rubric in invocation.rubrics or []:
            texts[rubric.rubric_id] = rubric.rubric_content.text_property or ""
    return texts


# -- one pass over the run: the summary's aggregates and the index's columns --------------


class _CriterionAggregate:
    def __init__(self, name: str) -> None:
        self.name = name
        self.counts = dict.fromkeys(STATUS_LEGEND, 0)
        self.scores: list[float] = []
        self.reasons: dict[str, dict[str, int]] = {"NOT_EVALUATED": {}, "ERRORED": {}}
        self.verdicts: dict[str, int] = {}
        self.rubrics: dict[str, list[int]] = {}  # rubric id -> [fails, total]
        self.status_col: list[Optional[int]] = []
        self.score_col: list[Optional[float]] = []
        self.reason_col: dict[str, int] = {}  # sparse: row -> reason code


class Scan:
    """What one streaming pass over a run yields: the index's columns and the summary's
    aggregates. ``scan(run)`` makes one; ``run_summary`` and ``case_index`` read it."""

    def __init__(self, run: RecordedRun) -> None:
        self.run = run
        self.criteria: dict[str, _CriterionAggregate] = {}
        for entry in run.manifest.eval_sets:
            for criterion in entry.criteria:
                self.criteria.setdefault(criterion.name, _CriterionAggregate(criterion.name))
        self.counts = dict.fromkeys(STATUS_LEGEND, 0)
        self.eval_set: list[int] = []
        self.case_id: list[str] = []
        self.status: list[int] = []
        self.search: list[str] = []
        self.failed_rubrics: dict[str, list[int]] = {}
        self.reason_codes: list[str] = []
        self.rubric_ids: list[str] = []
        self.rubric_texts: dict[str, str] = {}
        for entry in run.manifest.eval_sets:
            for key, text in rubric_texts(entry, ()).items():
                self.rubric_texts.setdefault(key, text)
        self._reason_code: dict[str, int] = {}
        self._rubric_id: dict[str, int] = {}
        self.recorded = 0
        #: the run is still going: cases without a record are pending, not interrupted
        self.pending = run.in_progress

    def _code_of(self, code: Optional[str]) -> Optional[int]:
        if not code:
            return None
        found = self._reason_code.get(code)
        if found is None:
            found = self._reason_code[code] = len(self.reason_codes)
            self.reason_codes.append(code)
        return found

    def _rubric(self, rubric_id: str) -> int:
        found = self._rubric_id.get(rubric_id)
        if found is None:
            found = self._rubric_id[rubric_id] = len(self.rubric_ids)
            self.rubric_ids.append(rubric_id)
        return found

    def add_briefs(self, briefs: Iterable[CaseBrief], limit: Optional[int] = None) -> None:
        """Fill every row from the run's case briefs (``RecordedRun.case_briefs``: the
        engine's reading of each case, typed, its rules applied; a later brief of a case
        replaces an earlier one). Rows go into columns first, laid out in plan order; the
        aggregates are counted from the columns at the end. This is the hot loop of opening
        a big run.

        With ``limit``, only the first ``limit`` planned rows are laid out (``head_index``),
        and a row no brief was read for has no status (``None``: not read yet)."""
        for entry in self.run.manifest.eval_sets:
            start = len(self.case_id)
            ids = entry.case_ids if limit is None else entry.case_ids[: max(0, limit - start)]
            self.eval_set.extend([entry.index] * len(ids))
            self.case_id.extend(ids)
        n = len(self.case_id)
        codes = {name: code for code, name in enumerate(STATUS_LEGEND)}
        self.status = [None] * n
        ids = [" ".join(case_id.split()).lower() for case_id in self.case_id]  # on one line
        self.search = list(ids)
        verdict_cols: dict[str, list[Optional[str]]] = {}
        rubric_rows: dict[str, dict[int, tuple[RubricBrief, ...]]] = {}
        for name, agg in self.criteria.items():
            agg.status_col = [None] * n
            agg.score_col = [None] * n
            verdict_cols[name] = [None] * n
            rubric_rows[name] = {}
        seen = bytearray(n)
        recorded = bytearray(n)
        code_of, rubric_of = self._code_of, self._rubric
        status_col, search, criteria, texts = self.status, self.search, self.criteria, self.rubric_texts
        for _, _, row, status, brief_criteria, was_recorded, user, reply, more in briefs:
            if row >= n:
                continue  # past the rows laid out
            if seen[row]:
                self._clear_row(row, verdict_cols, rubric_rows)  # a later record of the case
            seen[row] = 1
            recorded[row] = was_recorded
            status_col[row] = codes[status._value_]  # by value: an enum member hashes slowly
            search[row] = _search(ids[row], user, reply)  # on one line already
            if more and len(texts) < 10_000:
                for rid, rtext in more.items():
                    texts.setdefault(rid, rtext)
            failed_here: Optional[set[int]] = None
            for name, cstatus, score, reason_code, verdict, rubrics, _ in brief_criteria:
                agg = criteria.get(name)
                if agg is None:
                    continue
                agg.status_col[row] = codes[cstatus._value_]
                agg.score_col[row] = score
                if reason_code:
                    agg.reason_col[str(row)] = code_of(reason_code)
                verdict_cols[name][row] = verdict
                if rubrics:
                    rubric_rows[name][row] = rubrics
                    for rubric in rubrics:
                        if rubric.failed:
                            if failed_here is None:
                                failed_here = set()
                            failed_here.add(rubric_of(str(rubric.rubric_id)))
            if failed_here:
                self.failed_rubrics[str(row)] = sorted(failed_here)
        self.recorded = sum(recorded)
        self._aggregate(verdict_cols, rubric_rows)

    def _clear_row(self, row: int, verdict_cols: dict, rubric_rows: dict) -> None:
        for name, agg in self.criteria.items():
            agg.status_col[row] = agg.score_col[row] = verdict_cols[name][row] = None
            agg.reason_col.pop(str(row), None)
            rubric_rows[name].pop(row, None)
        self.failed_rubrics.pop(str(row), None)

    def _aggregate(self, verdict_cols: dict[str, list[Optional[str]]], rubric_rows: dict[str, dict]) -> None:
        """The summary's aggregates, counted from the columns: statuses, scores, NOT_EVALUATED
        and ERRORED reasons, verdicts, rubric tallies."""
        self.counts = {name: self.status.count(code) for code, name in enumerate(STATUS_LEGEND)}
        reasoned = {_CODE[Status.ERRORED]: "ERRORED", _CODE[Status.NOT_EVALUATED]: "NOT_EVALUATED"}
        for name, agg in self.criteria.items():
            column = agg.status_col
            agg.counts = {status: column.count(code) for code, status in enumerate(STATUS_LEGEND)}
            agg.scores = [float(v) for v in agg.score_col if v is not None]
            agg.score_col = [None if v is None else round(float(v), 4) for v in agg.score_col]
            for row, code in enumerate(column):
                if code in reasoned:
                    found = agg.reason_col.get(str(row))
                    reason = self.reason_codes[found] if found is not None else "unexplained"
                    bucket = agg.reasons[reasoned[code]]
                    bucket[reason] = bucket.get(reason, 0) + 1
            verdicts: dict[str, int] = {}
            for verdict in verdict_cols[name]:
                if verdict is not None:
                    verdicts[verdict] = verdicts.get(verdict, 0) + 1
            agg.verdicts = verdicts
            for rubrics in rubric_rows[name].values():
                for rubric in rubrics:
                    tally = agg.rubrics.setdefault(str(rubric.rubric_id), [0, 0])
                    tally[1] += 1
                    tally[0] += rubric.failed

    def finish(self) -> Scan:
        """Put the reason-code and rubric legends in sorted order (so the same run gives the
        same index whatever order its records were written in) and renumber the columns."""
        for legend, attr in ((self.reason_codes, "_reason_code"), (self.rubric_ids, "_rubric_id")):
            ordered = sorted(legend)
            if ordered == legend:
                continue
            old = getattr(self, attr)
            renumber = {old[name]: new for new, name in enumerate(ordered)}
            legend[:] = ordered
            setattr(self, attr, {name: code for code, name in enumerate(ordered)})
            if attr == "_reason_code":
                for agg in self.criteria.values():
                    agg.reason_col = {row: renumber[code] for row, code in agg.reason_col.items()}
            else:
                self.failed_rubrics = {
                    row: sorted(renumber[code] for code in codes)
                    for row, codes in self.failed_rubrics.items()
                }
        return self


def scan(run: RecordedRun) -> Scan:
    """One streaming pass over ``run``'s case briefs (``RecordedRun.case_briefs``: a run of
    one run per case from its ``index.jsonl``, a few tens of bytes per criterion instead of
    whole records; several runs per case combined by the engine, one case's records at a
    time)."""
    result = Scan(run)
    result.add_briefs(run.case_briefs())
    return result.finish()
