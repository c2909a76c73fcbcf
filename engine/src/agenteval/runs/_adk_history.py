"""ADK's eval history: a run written as ``adk eval`` writes it, so that ``adk web`` and other
ADK tools list it with the runs they made themselves.

One ``<app>_<eval_set_id>_<unix time>.evalset_result.json`` per eval set, in ADK 2.13's
``EvalSetResult`` shape exactly (snake_case, statuses as ADK's integers, ``indent=2``).
ADK's metric results forbid extra keys, so what ADK has no field for stays in agenteval's own
run folder: ERRORED is written as NOT_EVALUATED (ADK has no ERRORED) and reason codes,
judge samples and errors are left out. ``details`` holds what ADK's own results hold there:
``token_usage_v1``'s and ``invocation_duration_v1``'s breakdowns (``DurationDetails``: total,
model, tool and framework seconds) and a rubric criterion's rubric scores.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from .._results import CriterionResult, Status
from ..models import DURATION_KEYS, TOKEN_USAGE_KEYS, Invocation
from ._records import CaseRecord, EvalSetEntry

__all__ = ["ADK_STATUS", "adk_history_documents", "write_adk_history"]

#: ADK 2.13's ``EvalStatus`` values (ERRORED has none: it is written as NOT_EVALUATED).
ADK_STATUS = {
    Status.PASSED: 1,
    Status.FAILED: 2,
    Status.NOT_EVALUATED: 3,
    Status.ERRORED: 3,
    Status.INFORMATIONAL: 4,
}


def _invocation(invocation: Invocation) -> dict[str, Any]:
    return invocation.model_dump(mode="json", exclude_unset=True, by_alias=False)


#: The efficiency metrics whose breakdown ADK 2.13 keeps in ``details``: criterion name ->
#: (``EvalMetricResultDetails`` field, the breakdown's keys).
_BREAKDOWNS = {
    "token_usage_v1": ("token_usage_details", TOKEN_USAGE_KEYS),
    "invocation_duration_v1": ("duration_details", DURATION_KEYS),
}


def _details(criterion: str, details: dict[str, Any]) -> dict[str, Any]:
    """ADK's ``EvalMetricResultDetails`` for a result's ``details`` (every field, ``None``
    where it has nothing, as ADK writes it): the token or duration breakdown of the two
    efficiency metrics, and a rubric criterion's rubric scores (per invocation
    ``rubrics``, per case ``rubric_scores``)."""
    written: dict[str, Any] = {"rubric_scores": None, "token_usage_details": None, "duration_details": None}
    field_keys = _BREAKDOWNS.get(criterion)
    if field_keys is not None:
        field, keys = field_keys
        if any(key in details for key in keys):
            written[field] = {key: details.get(key) for key in keys}
        return written
    rubrics = details.get("rubrics") or details.get("rubric_scores")
    if isinstance(rubrics, list):
        scores = [
            {"rubric_id": str(r["rubric_id"]), "rationale": r.get("rationale"), "score": r.get("score")}
            for r in rubrics
            if isinstance(r, dict) and "rubric_id" in r
        ]
        written["rubric_scores"] = scores or None
    # ADK's Vertex-backed metrics add the service's explanation and error as two more
    # entries, with the ids ``explanation`` and ``error`` and no score.
    for key, rubric_id in (("explanation", "explanation"), ("error_message", "error")):
        text = details.get(key)
        if isinstance(text, str) and text:
            extra = {"rubric_id": rubric_id, "rationale": text, "score": None}
            written["rubric_scores"] = [*(written["rubric_scores"] or []), extra]
    return written


def _metric(
    result: CriterionResult, score: Optional[float], status: Status, details: dict[str, Any]
) -> dict[str, Any]:
    return {
        "metric_name": result.criterion,
        "threshold": result.threshold,
        "score": score,
        "eval_status": ADK_STATUS[status],
        "details": _details(result.criterion, details),
    }


def _case(
    entry: EvalSetEntry, record: CaseRecord, criteria: Sequence[CriterionResult], status: Status
) -> dict:
    actual = list(record.actual.invocations) if record.actual is not None else []
    expected = list(record.expected or [])
    per_invocation = []
    for index, turn in enumerate(actual):
        results = []
        for result in criteria:
            for run in result.runs or [result]:
                item = next((p for p in run.per_invocation if p.index == index), None)
                if item is not None:
                    results.append(_metric(result, item.score, item.status, item.details))
                    break
        per_invocation.append(
            {
                "actual_invocation": _invocation(turn),
                "expected_invocation": _invocation(expected[index]) if index < len(expected) else None,
                "eval_metric_results": results,
            }
        )
    return {
        "eval_set_file": entry.eval_set_id,
        "eval_set_id": entry.eval_set_id,
        "eval_id": record.case_id,
        "final_eval_status": ADK_STATUS[status],
        "eval_metric_results": None,
        "overall_eval_metric_results": [_metric(r, r.score, r.status, r.details) for r in criteria],
        "eval_metric_result_per_invocation": per_invocation,
        "session_id": f"agenteval-{record.run_id}-{record.case_id}",
        "session_details": None,
        "user_id": None,
    }


def adk_history_documents(
    app_name: str,
    cases: Sequence[tuple[EvalSetEntry, CaseRecord, Sequence[CriterionResult], Status]],
    created: Optional[float] = None,
) -> dict[str, dict[str, Any]]:
    """``{file name: EvalSetResult document}``, one per eval set among ``cases`` (each case
    with its first run's record, its combined criteria results and status)."""
    created = time.time() if created is None else created
    by_set: dict[int, tuple[EvalSetEntry, list[dict]]] = {}
    for entry, record, criteria, status in cases:
        by_set.setdefault(entry.index, (entry, []))[1].append(_case(entry, record, criteria, status))
    documents = {}
    for entry, case_results in by_set.values():
        result_id = re.sub(r"[/\\]", "_", f"{app_name}_{entry.eval_set_id}_{created}")
        documents[f"{result_id}.evalset_result.json"] = {
            "eval_set_result_id": result_id,
            "eval_set_result_name": result_id,
            "eval_set_id": entry.eval_set_id,
            "eval_case_results": case_results,
            "creation_timestamp": created,
        }
    return documents


def write_adk_history(folder: Path, documents: dict[str, dict[str, Any]]) -> list[Path]:
    """Write the documents into ``folder`` (made if needed); the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, document in documents.items():
        path = folder / name
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")
        written.append(path)
    return written
