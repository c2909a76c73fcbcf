"""The viewer's data contract: what the front end reads, built from a recorded run.

Three shapes (``docs/viewer.md`` documents every key for third-party front ends):

* ``run_summary(run)`` — the run header and one entry per criterion (pass rate, mean, the
  engine's intervals when ``summary.json`` has them, a score histogram, NOT_EVALUATED and
  ERRORED counts by reason code, a rubric table);
* ``case_index(run)`` — a columnar index of every planned case (one row per case, combined
  over its runs, in plan order): small integer codes plus legends, so that 100k cases stay a
  few megabytes;
* ``case_detail(run, row)`` — everything the case drawer shows for one row.

Records are streamed: one case's records are in memory at a time, never the whole run.
Untrusted text (agent output, judge reasoning, case ids) is passed through as data; the
front end renders it as text.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Optional

from agenteval import CaseResult, CriterionResult, Status
from agenteval.calibration import read_cards
from agenteval.models import Invocation
from agenteval.plugins import rerun_command
from agenteval.runs import CaseBrief, CaseRecord, EvalSetEntry, RecordedRun, RubricBrief

__all__ = [
    "INDEX_SCHEMA",
    "STATUS_LEGEND",
    "SUMMARY_SCHEMA",
    "case_detail",
    "case_index",
    "head_index",
    "detail_chunks",
    "row_of",
    "run_summary",
    "scan",
]

SUMMARY_SCHEMA = "agenteval.viewer.summary/1"
INDEX_SCHEMA = "agenteval.viewer.index/1"
DETAIL_SCHEMA = "agenteval.viewer.case/1"
#: Status codes of the index: a status's code is its place in this list.
STATUS_LEGEND = ["PASSED", "FAILED", "ERRORED", "NOT_EVALUATED", "INFORMATIONAL"]
_CODE = {Status(name): code for code, name in enumerate(STATUS_LEGEND)}
HISTOGRAM_BINS = 10
_SEARCH_USER = 80
_SEARCH_RESPONSE = 120
_TEXT_LIMIT = 200_000  # characters of one text kept in a case's detail (a 50 KB reply fits)


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


# -- small helpers --------------------------------------------------------------------------


def _clip(text: Optional[str], limit: int) -> str:
    text = text or ""
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit:,} more characters]"


def _search(case_id: str, user: str, reply: str) -> str:
    """A row's search text: its case id (on one line, lowercase), then the beginning of the
    first user message and of the last reply, each already on one line."""
    return " ".join(part for part in (case_id, user[:_SEARCH_USER], reply[:_SEARCH_RESPONSE]) if part).lower()


def _round(value: Optional[float]) -> Optional[float]:
    if value is None or value != value:  # NaN
        return None
    return round(float(value), 4)


def _text_of(content: Any) -> str:
    return content.text() if content is not None else ""


def _first_invocations(records: Sequence[Optional[CaseRecord]]) -> tuple[list[Invocation], list[Invocation]]:
    """(expected, actual) turns of the first recorded run."""
    for record in records:
        if record is None:
            continue
        expected = list(record.expected or [])
        actual = list(record.actual.invocations) if record.actual is not None else []
        return expected, actual
    return [], []


def _rubric_texts(entry: EvalSetEntry, expected: Iterable[Invocation]) -> dict[str, str]:
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


def _duration(started: Optional[str], finished: Optional[str]) -> Optional[float]:
    if not started or not finished:
        return None
    try:
        return round((datetime.fromisoformat(finished) - datetime.fromisoformat(started)).total_seconds(), 3)
    except ValueError:
        return None


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
            for key, text in _rubric_texts(entry, ()).items():
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


# -- run_summary --------------------------------------------------------------------------


def _histogram(scores: list[float], low: Optional[float], high: Optional[float]) -> Optional[dict]:
    if not scores:
        return None
    lo = low if low is not None else min(scores)
    hi = high if high is not None else max(scores)
    if hi <= lo:
        hi = lo + 1.0
    counts = [0] * HISTOGRAM_BINS
    width = (hi - lo) / HISTOGRAM_BINS
    for value in scores:
        index = int((value - lo) / width)
        counts[min(max(index, 0), HISTOGRAM_BINS - 1)] += 1
    return {"low": lo, "high": hi, "counts": counts}


def _interval(info: Any) -> Optional[dict[str, Any]]:
    if info is None:
        return None
    return {
        "low": info.low,
        "high": info.high,
        "method": info.method,
        "level": info.level,
        "n": info.n,
        "estimate": getattr(info, "estimate", None),
    }


def _set_statistics(written: Any) -> dict[str, list[dict[str, Any]]]:
    """Per criterion, the engine's per-eval-set statistics from ``summary.json`` (when the
    engine records them)."""
    found: dict[str, list[dict[str, Any]]] = {}
    eval_sets = (getattr(written.summary, "eval_sets", None) or []) if written is not None else []
    for eval_set in eval_sets:
        for item in eval_set.criteria:
            found.setdefault(item.criterion, []).append(
                {
                    "eval_set_id": eval_set.eval_set_id,
                    "n_cases": item.n_cases,
                    "verdict": item.verdict,
                    "verdict_rule": getattr(item, "verdict_rule", None),
                    "verdict_reason": getattr(item, "verdict_reason", None),
                    "guarantee": getattr(item, "guarantee", None),
                    "verdict_counts": dict(item.verdict_counts),
                    "mean": _interval(item.mean),
                    "pass_rate": _interval(item.pass_rate),
                    "flaky_cases": item.flaky_cases,
                }
            )
    return found


def _budget(written: Any) -> Optional[dict[str, Any]]:
    """The run's judge budgets and their use (``summary.budget``), when it had any."""
    budget = getattr(written.summary, "budget", None) if written is not None else None
    return None if budget is None else budget.model_dump(mode="json")


def _judge_cost(written: Any) -> Optional[dict[str, Any]]:
    """What the judge calls cost at the config's prices (``summary.judge_cost``), if priced."""
    return _dumped(getattr(written.summary, "judge_cost", None) if written is not None else None)


def _dumped(record: Any) -> Optional[dict[str, Any]]:
    return None if record is None else record.model_dump(mode="json")


def run_summary(run: RecordedRun, scanned: Optional[Scan] = None) -> dict[str, Any]:
    """The run header and the criteria panel (``docs/viewer.md``, "summary")."""
    scanned = scanned or scan(run)
    manifest = run.manifest
    written = run.summary()
    judge = written.summary.judge if written is not None else None
    entries: dict[str, Any] = {}
    judge_models: list[str] = []
    for entry in manifest.eval_sets:
        for criterion in entry.criteria:
            entries.setdefault(criterion.name, criterion)
            for model in criterion.judge_models:
                if model not in judge_models:
                    judge_models.append(model)
    statistics = _set_statistics(written)
    cards = read_cards(run)
    spent = {c.criterion: c for c in written.summary.criteria} if written is not None else {}
    criteria = []
    for name, agg in scanned.criteria.items():
        entry = entries[name]
        total = sum(agg.counts.values())
        passed = agg.counts["PASSED"]
        stats = statistics.get(name, [])
        criteria.append(
            {
                "name": name,
                "version": entry.version,
                "distribution": entry.distribution,
                "threshold": entry.threshold,
                "informational": entry.informational,
                "higher_is_better": entry.higher_is_better,
                "min_score": entry.min_score,
                "max_score": entry.max_score,
                "judge_models": list(entry.judge_models),
                "total": total,
                "counts": agg.counts,
                "pass_rate": None if entry.informational or not total else passed / total,
                "mean": math.fsum(agg.scores) / len(agg.scores) if agg.scores else None,  # any order
                "scored": len(agg.scores),
                "pass_rate_interval": stats[0]["pass_rate"] if len(stats) == 1 else None,
                "mean_interval": stats[0]["mean"] if len(stats) == 1 else None,
                "eval_sets": stats,
                "calibration": cards[name].model_dump(mode="json") if name in cards else None,
                "calibration_gate": entry.calibration.model_dump(mode="json") if entry.calibration else None,
                # the criterion's judge calls and tokens over the run, and their cost if priced
                "judge": _dumped(getattr(spent.get(name), "judge", None)),
                "judge_cost": _dumped(getattr(spent.get(name), "judge_cost", None)),
                "verdicts": agg.verdicts,
                "histogram": _histogram(agg.scores, entry.min_score, entry.max_score),
                "not_evaluated": agg.reasons["NOT_EVALUATED"],
                "errored": agg.reasons["ERRORED"],
                "rubrics": [
                    {
                        "rubric_id": rid,
                        "text": scanned.rubric_texts.get(rid, ""),
                        "fails": fails,
                        "total": count,
                        "never_fails": fails == 0,
                    }
                    for rid, (fails, count) in sorted(agg.rubrics.items(), key=lambda kv: (-kv[1][0], kv[0]))
                ],
            }
        )
    counts = scanned.counts
    worst = next((s for s in ("FAILED", "ERRORED", "NOT_EVALUATED") if counts[s]), None)
    status = worst or "PASSED"
    tokens = None
    if judge is not None:
        tokens = {
            "calls": judge.calls,
            "cache_hits": judge.cache_hits,
            "retries": judge.retries,
            "failures": dict(judge.failures),
            "input_tokens": judge.input_tokens,
            "output_tokens": judge.output_tokens,
        }
    return {
        "schema": SUMMARY_SCHEMA,
        "run_id": run.run_id,
        "state": manifest.state.value,
        "started_at": manifest.started_at,
        "finished_at": manifest.finished_at,
        "duration_s": _duration(manifest.started_at, manifest.finished_at),
        "agent": manifest.agent,
        "actual_files": [f.path for f in manifest.actual_files],
        "eval_sets": [
            {
                "index": e.index,
                "eval_set_id": e.eval_set_id,
                "path": e.path,
                "sha256": e.sha256,
                "cases": len(e.case_ids),
            }
            for e in manifest.eval_sets
        ],
        "num_runs": manifest.num_runs,
        "engine_version": manifest.engine_version,
        "distributions": dict(manifest.distributions),
        "git_commit": manifest.git_commit,
        "judge_models": judge_models,
        "judge": tokens,
        "budget": _budget(written),
        "judge_cost": _judge_cost(written),
        "status": status,
        "verdict": "RUNNING" if scanned.pending else "PASS" if status == "PASSED" else "FAIL",
        "counts": counts,
        "cases": len(scanned.status),
        "cases_recorded": scanned.recorded,
        "inconclusive": sum(agg.verdicts.get("INCONCLUSIVE", 0) for agg in scanned.criteria.values()),
        "warnings": list(manifest.warnings),
        "rerun": rerun_command(run),
        "criteria": criteria,
    }


# -- case_index ---------------------------------------------------------------------------


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
    """The case index of the first ``rows`` planned cases only, read from the beginning of
    the run's index (at most a few thousand entries, whatever the run's size): what a big
    run shows while its whole index is built. ``partial`` is ``true``, ``total`` is the
    number of planned cases, and a row whose entry was not among those read has a ``null``
    status. A run of several runs per case has no head (``None``): its cases are combined
    from their records."""
    if run.manifest.num_runs != 1:
        return None
    scanned = Scan(run)
    recorded = itertools.takewhile(lambda brief: brief.recorded, run.case_briefs())  # the index's
    scanned.add_briefs(itertools.islice(recorded, _HEAD_READ), limit=rows)
    index = case_index(run, scanned.finish())
    index["partial"] = True
    index["total"] = sum(len(e.case_ids) for e in run.manifest.eval_sets)
    return index


# -- case_detail --------------------------------------------------------------------------


def _tool_calls(invocation: Optional[Invocation]) -> list[dict[str, Any]]:
    if invocation is None:
        return []
    return [{"name": c.name, "args": dict(c.args or {})} for c in invocation.tool_calls()]


def _side(invocation: Optional[Invocation]) -> Optional[dict[str, Any]]:
    if invocation is None:
        return None
    return {
        "invocation_id": invocation.invocation_id,
        "final_response": _clip(invocation.final_text(), _TEXT_LIMIT),
        "intermediate": [
            [author, _clip(text, _TEXT_LIMIT)] for author, text in invocation.intermediate_texts()
        ],
        "tool_calls": _tool_calls(invocation),
    }


def _samples(details: dict[str, Any]) -> list[dict[str, Any]]:
    samples = []
    for index, sample in enumerate(details.get("samples", []) or []):
        if not isinstance(sample, dict):
            continue
        samples.append(
            {
                "index": index,
                "verdict": sample.get("verdict"),
                "score": sample.get("score"),
                "reasoning": sample.get("reasoning") or sample.get("rationale"),
                "verdicts": sample.get("verdicts"),
                "error": sample.get("error"),
                "message": sample.get("message"),
            }
        )
    return samples


def _invocation_verdicts(
    result: CriterionResult, turn: int, texts: dict[str, str]
) -> Optional[dict[str, Any]]:
    item = next((i for i in result.per_invocation if i.index == turn), None)
    if item is None:
        return None
    details = dict(item.details)
    samples = _samples(details)
    rubrics = []
    for entry in details.get("rubrics", []) or []:
        if not isinstance(entry, dict):
            continue
        rid = str(entry.get("rubric_id"))
        rubrics.append(
            {
                "rubric_id": rid,
                "text": texts.get(rid, ""),
                "verdict": entry.get("verdict"),
                "score": entry.get("score"),
                "rationale": entry.get("rationale"),
                "votes": entry.get("votes"),
                "samples": [(s.get("verdicts") or {}).get(rid) for s in samples],
            }
        )
    rest = {k: v for k, v in details.items() if k not in ("samples", "rubrics")}
    return {
        "criterion": result.criterion,
        "status": item.status.value,
        "score": _round(item.score),
        "reason": item.reason,
        "reason_code": item.reason_code,
        "samples": samples,
        "rubrics": rubrics,
        "details": rest,
    }


def _criterion(result: CriterionResult, entry: Any) -> dict[str, Any]:
    verdict = result.verdict
    return {
        "name": result.criterion,
        "version": result.plugin.version,
        "distribution": result.plugin.distribution,
        "informational": bool(entry.informational) if entry is not None else False,
        "status": result.status.value,
        "score": _round(result.score),
        "threshold": result.threshold,
        "reason": result.reason,
        "reason_code": result.reason_code,
        "verdict": None
        if verdict is None
        else {
            "verdict": verdict.verdict,
            "basis": verdict.basis,
            "reason": verdict.reason,
            "hint": verdict.hint,
            "interval": None
            if verdict.interval is None
            else {
                "low": verdict.interval.low,
                "high": verdict.interval.high,
                "method": verdict.interval.method,
                "level": verdict.interval.level,
                "n": verdict.interval.n,
            },
        },
        "error": None
        if result.error is None
        else {"type": result.error.type, "message": result.error.message},
        "judge": None if result.judge is None else result.judge.model_dump(mode="json"),
        "details": {k: v for k, v in result.details.items() if k not in ("samples", "rubrics")},
        "runs": [
            {"status": r.status.value, "score": _round(r.score), "reason": r.reason} for r in result.runs
        ],
    }


def _criterion_rows(result: CriterionResult, turn: Optional[int]) -> Optional[dict[str, Any]]:
    """The aligned trajectory ``result`` recorded (in its first run) for invocation ``turn``,
    or for the whole case when ``turn`` is ``None`` (a criterion that aligned the whole
    conversation at once): ``{criterion, status, score, rows}``; ``None`` when it recorded none."""
    from agenteval.plugins import rows_from_details

    first = result.runs[0] if result.runs else result
    if turn is None:
        item: Any = None if first.per_invocation else first
    else:
        item = next((i for i in first.per_invocation if i.index == turn), None)
    rows = rows_from_details(item.details) if item is not None else None
    if not rows:
        return None
    return {
        "criterion": result.criterion,
        "status": item.status.value,
        "score": _round(item.score),
        "rows": [row.to_json() for row in rows],
    }


def _alignments(case: CaseResult, diffed: frozenset[str], turn: Optional[int]) -> list[dict[str, Any]]:
    """``_criterion_rows`` of each criterion whose info declares ``shows_trajectory``."""
    found = (_criterion_rows(r, turn) for r in case.criteria if r.criterion in diffed)
    return [a for a in found if a is not None]


def _turns(
    expected: list[Invocation],
    actual: list[Invocation],
    case: CaseResult,
    texts: dict[str, str],
    diffed: frozenset[str] = frozenset(),
) -> list[dict[str, Any]]:
    from agenteval.plugins import align_trajectory

    turns = []
    for index in range(max(len(expected), len(actual))):
        want = expected[index] if index < len(expected) else None
        got = actual[index] if index < len(actual) else None
        user = got or want
        verdicts = []
        for result in case.criteria:
            one = _invocation_verdicts(result.runs[0] if result.runs else result, index, texts)
            if one is not None:
                verdicts.append(one)
        turns.append(
            {
                "index": index,
                "user": _clip(_text_of(user.user_content), _TEXT_LIMIT) if user is not None else "",
                "expected": _side(want),
                "actual": _side(got),
                "trajectory": [
                    row.to_json() for row in align_trajectory(_tool_calls(want), _tool_calls(got))
                ],
                "criteria": verdicts,
                "alignments": _alignments(case, diffed, index),
            }
        )
    return turns


def case_detail(run: RecordedRun, row: int) -> Optional[dict[str, Any]]:
    """Everything the case drawer shows for ``row`` (``docs/viewer.md``, "case detail");
    ``None`` when the run has no such row."""
    found = row_of(run, row)
    if found is None:
        return None
    entry, case_id = found
    records = [run.record((entry.index, case_id, r)) for r in range(1, run.manifest.num_runs + 1)]
    return _detail(run, row, entry, case_id, records)


def _detail(
    run: RecordedRun, row: int, entry: EvalSetEntry, case_id: str, records: list[Optional[CaseRecord]]
) -> dict[str, Any]:
    case = run.case_result(entry, case_id, records)
    expected, actual = _first_invocations(records)
    texts = _rubric_texts(entry, expected)
    entries = {c.name: c for c in entry.criteria}
    diffed = frozenset(c.name for c in entry.criteria if c.shows_trajectory)
    errors = []
    runs = []
    for run_index, record in enumerate(records, start=1):
        if record is None:
            runs.append({"run": run_index, "recorded": False})
            continue
        agent = record.actual
        if agent is not None and (agent.error is not None or agent.error_code):
            errors.append(
                {
                    "source": "agent",
                    "run": run_index,
                    "reason_code": agent.error_code,
                    "type": agent.error.type if agent.error else None,
                    "message": agent.error.message if agent.error else None,
                }
            )
        runs.append(
            {
                "run": run_index,
                "recorded": True,
                "status": record.status.value,
                "reason": record.reason,
                "duration_s": record.duration_s,
                "statuses": {k: v.value for k, v in record.statuses.items()},
                "scores": {k: _round(v) for k, v in record.scores.items()},
                "output": _clip(agent.output if agent is not None else "", _TEXT_LIMIT),
                "left_behind": list(agent.left_behind) if agent is not None else [],
                "final_responses": [_clip(i.final_text(), _TEXT_LIMIT) for i in agent.invocations]
                if agent is not None and run_index > 1
                else [],
            }
        )
    for result in case.criteria:
        if result.error is not None:
            errors.append(
                {
                    "source": result.criterion,
                    "reason_code": result.reason_code,
                    "type": result.error.type,
                    "message": result.error.message,
                }
            )
    first = next((r for r in records if r is not None), None)
    return {
        "schema": DETAIL_SCHEMA,
        "row": row,
        "run_id": run.run_id,
        "eval_set_id": entry.eval_set_id,
        "eval_set_file": entry.path,
        "case_id": case_id,
        "status": case.status.value,
        "reason": first.reason if first is not None else case.criteria[0].reason if case.criteria else None,
        "reason_code": first.reason_code
        if first is not None
        else case.criteria[0].reason_code
        if case.criteria
        else None,
        "origin": first.origin if first is not None else None,
        "num_runs": run.manifest.num_runs,
        "scenario": first is not None and first.expected is None,
        "criteria": [_criterion(r, entries.get(r.criterion)) for r in case.criteria],
        "judge": _dumped(case.judge),  # the case's judge calls and tokens (its criteria's sum)
        "turns": _with_spans(_turns(expected, actual, case, texts, diffed), run, actual, first),
        "alignments": _alignments(case, diffed, None),
        "errors": errors,
        "output": runs[0].get("output", "") if runs else "",
        "runs": runs,
        "rerun": rerun_command(run, [(entry, case_id)]),
    }


def _with_spans(
    turns: list[dict[str, Any]], run: RecordedRun, actual: list[Invocation], first: Optional[CaseRecord]
) -> list[dict[str, Any]]:
    """Each turn recorded from a trace gets its spans (``"spans"``: the waterfall rows of
    ``agenteval.plugins.read_timeline``), read from the run's ``--actual`` file when it is
    still the one the run read."""
    if first is None or first.origin != "recorded" or not actual or not run.manifest.actual_files:
        return turns
    from agenteval.plugins import read_timeline

    ids = [invocation.invocation_id for invocation in actual]
    for source in run.manifest.actual_files:
        found = read_timeline(Path(source.path), ids, source.sha256)
        if found:
            by_id = {turn["invocation_id"]: turn for turn in found}
            for turn, invocation in zip(turns, actual, strict=False):  # turns may outnumber them
                if invocation.invocation_id in by_id:
                    turn["spans"] = by_id[invocation.invocation_id]
            break
    return turns


def detail_chunks(
    run: RecordedRun, rows: Iterable[int], size: int = 1000
) -> Iterator[tuple[int, dict[str, dict[str, Any]]]]:
    """``(chunk, {row: detail})`` for ``rows``, grouped by ``row // size`` in ascending chunk
    order (chunk ``k`` holds rows ``k*size`` … ``k*size + size - 1``); one case's records in
    memory at a time, one chunk's details at a time."""
    wanted = sorted(set(rows))
    chunk: Optional[int] = None
    details: dict[str, dict[str, Any]] = {}
    for row in wanted:
        found = row_of(run, row)
        if found is None:
            continue
        if chunk is not None and row // size != chunk and details:
            yield chunk, details
            details = {}
        chunk = row // size
        detail = case_detail(run, row)
        if detail is not None:
            details[str(row)] = detail
    if chunk is not None and details:
        yield chunk, details
