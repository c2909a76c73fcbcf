"""One unit's record: what acquiring and scoring a case × run produced, as the run folder
records it (one ``results.jsonl`` line, ``agenteval.runs.CaseRecord``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from .._agents import AgentFailure, SimulatedConversation
from .._results import AgentRunRecord, CaseResult, CriterionResult, ErrorInfo
from .._verdicts import case_criteria, case_status, sum_activity
from ..models import EvalCase
from ..runs import RECORD_SCHEMA, CaseRecord, EvalSetEntry
from ._built import built
from ._plan import PlannedSet

__all__ = ["Missing", "case_record", "one_run_case"]


@dataclass(frozen=True)
class Missing:
    """A run that one of several ``--actual`` sources lacks for this case."""

    run_index: int
    available: int


def case_record(
    run_id: str,
    planned: PlannedSet,
    case: EvalCase,
    run_index: int,
    outcome: Any,
    origin: str,
    results: Sequence[CriterionResult],
    duration: float,
    *,
    lazy: bool = False,
) -> CaseRecord:
    """The record of one case × run (``results.jsonl``'s line): ``outcome`` is the actual
    turns, an ``AgentFailure`` or ``Missing``; ``origin`` ``agent`` or ``recorded``;
    ``duration`` the seconds its scoring took. ``lazy``: turns a format reader builds when
    read are kept as that sequence, built by whatever reads them (a record whose line
    and index preview were made elsewhere, so that nothing here needs them)."""
    status = case_status(results)
    problem = next((r for r in results if not r.status.ok), None)
    actual: Optional[AgentRunRecord]
    if isinstance(outcome, AgentFailure):
        error = ErrorInfo(type="AgentFailure", message=outcome.message, traceback=outcome.traceback)
        actual = AgentRunRecord(
            run=run_index,
            error_code=outcome.code,
            error=error,
            output=getattr(outcome, "output", ""),
            left_behind=list(getattr(outcome, "left_behind", ())),
        )
    elif isinstance(outcome, Missing):
        actual = None
    else:
        simulation = outcome.details if isinstance(outcome, SimulatedConversation) else None
        fields = {"run": run_index, "simulation": simulation, "output": getattr(outcome, "output", "")}
        if lazy and not isinstance(outcome, list):  # nothing reads the turns to make it
            actual = built(AgentRunRecord, {**fields, "invocations": outcome})
        else:
            actual = AgentRunRecord(**fields, invocations=list(outcome))
    # Every part was validated when it was made: constructing skips validating it again.
    return built(
        CaseRecord,
        {
            "schema_": RECORD_SCHEMA,
            "run_id": run_id,
            "eval_set_index": planned.index,
            "eval_set_id": planned.eval_set_id,
            "eval_set_file": str(planned.source) if planned.source is not None else None,
            "case_id": case.eval_id,
            "run_index": run_index,
            "status": status,
            "reason": problem.reason if problem is not None else None,
            "reason_code": problem.reason_code if problem is not None else None,
            "duration_s": round(duration, 6),
            "scores": {r.criterion: r.score for r in results},
            "statuses": {r.criterion: r.status for r in results},
            "criteria": list(results),
            "expected": list(case.conversation) if case.conversation is not None else None,
            "actual": actual,
            "origin": origin,
        },
    )


def one_run_case(
    entry: EvalSetEntry, case_id: str, record: CaseRecord, confidence: Optional[float]
) -> CaseResult:
    """``case_from_records(entry, case_id, [record], confidence)``, the result of a case of
    one run, made without what only several runs need (their seeds, whether their outputs
    are the same) and without validating again what the record holds."""
    results = case_criteria(entry.criteria, [list(record.criteria)], confidence=confidence, seed_parts=())
    actual = record.actual
    judges = [result.judge for result in results if result.judge is not None]
    return built(
        CaseResult,
        {
            "eval_id": case_id,
            "status": case_status(results),
            "criteria": results,
            "agent_runs": [actual] if actual is not None and record.origin == "agent" else [],
            "judge": sum_activity(judges) if judges else None,
        },
    )
