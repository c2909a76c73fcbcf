"""``case_detail(run, row)``: everything the case drawer shows for one row (every run of the
case, each criterion's result and verdict, the turns side by side with their verdicts,
aligned trajectories and trace spans) — ``docs/viewer.md``, "case detail"; ``detail_chunks``
groups the details of many rows.

One case's records are in memory at a time. Untrusted text (agent output, judge reasoning,
case ids) is passed through as data; the front end renders it as text.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Optional

from agenteval import CaseResult, CriterionResult
from agenteval.models import Invocation
from agenteval.plugins import rerun_command
from agenteval.runs import CaseRecord, EvalSetEntry, RecordedRun

from ._scan import row_of, rubric_texts

__all__ = ["DETAIL_SCHEMA", "case_detail", "detail_chunks"]

DETAIL_SCHEMA = "agenteval.viewer.case/1"
_TEXT_LIMIT = 200_000  # characters of one text kept in a case's detail (a 50 KB reply fits)


def _clip(text: Optional[str], limit: int) -> str:
    text = text or ""
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit:,} more characters]"


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
    texts = rubric_texts(entry, expected)
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
        # the case's judge calls and tokens (its criteria's sum)
        "judge": None if case.judge is None else case.judge.model_dump(mode="json"),
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
    for source in _timeline_sources(run):
        found = read_timeline(Path(source.path), ids, source.sha256)
        if found:
            by_id = {turn["invocation_id"]: turn for turn in found}
            for turn, invocation in zip(turns, actual, strict=False):  # turns may outnumber them
                if invocation.invocation_id in by_id:
                    turn["spans"] = by_id[invocation.invocation_id]
            break
    return turns


#: Each open run's ``--actual`` files that hold timelines (``_timeline_sources``).
_TIMELINES: weakref.WeakKeyDictionary[RecordedRun, list[Any]] = weakref.WeakKeyDictionary()


def _timeline_sources(run: RecordedRun) -> list[Any]:
    """The run's ``--actual`` files that are still the ones it read and in a format with a
    timeline (traces: ``read_timeline`` of no turn answers ``[]``, not ``None``), found once
    per open run: a case looks in these only (a run of 100 eval set files has none, and each
    case would otherwise look at all 100)."""
    from agenteval.plugins import read_timeline

    found = _TIMELINES.get(run)
    if found is None:
        files = run.manifest.actual_files
        found = [f for f in files if read_timeline(Path(f.path), [], f.sha256) is not None]
        _TIMELINES[run] = found
    return found


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
