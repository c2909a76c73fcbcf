"""Scoring one run of one case under its criteria: preconditions, the evaluator call under
the run's limit, contract checks, thresholds. Every (case, run, criterion) gives exactly
one ``CriterionResult``; an evaluator's exception or broken contract is ERRORED, never the
end of the run (unless ``strict``)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import threading
import time
import traceback
from collections.abc import Sequence
from typing import Optional, Union

from .._agents import AgentFailure
from .._contracts import score_problem
from .._evaluator import EvaluationContext, Evaluator, Score
from .._judging import JudgeService
from .._resolve import ResolvedCriterion
from .._results import CriterionResult, ErrorInfo, InvocationResult, Status
from .._verdicts import base_fields, budget_gated, calibration_gated, not_evaluated, point_verdict, status_for
from ..errors import JUDGE_BUDGET
from ..models import EvalCase, Invocation
from ..runs import CriterionEntry
from ._built import built
from ._inputs import missing_input_result

__all__ = ["Preparation", "context_for", "score_run"]


def _errored(
    criterion: CriterionEntry, exc: BaseException, started: float, what: str, code: str
) -> CriterionResult:
    error = ErrorInfo(
        type=type(exc).__name__,
        message=str(exc),
        traceback="".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
    )
    return CriterionResult(
        **base_fields(criterion),
        score=None,
        status=Status.ERRORED,
        reason=f"{what}: {type(exc).__name__}: {exc}",
        reason_code=code,
        duration_seconds=time.perf_counter() - started,
        error=error,
    )


def agent_failed(criterion: CriterionEntry, failure: AgentFailure) -> CriterionResult:
    """A case the agent could not run: ERRORED with the agent's error (NOT_EVALUATED when
    the case could not be run at all: a scenario without a user simulator, history the
    adapter cannot take)."""
    if failure.code in ("no_user_simulator", "history_unsupported"):
        return not_evaluated(criterion, failure.message, failure.code)
    error = ErrorInfo(type="AgentFailure", message=failure.message, traceback=failure.traceback)
    reason = (
        failure.message if failure.code == "user_simulator_error" else f"the agent failed: {failure.message}"
    )
    return CriterionResult(
        **base_fields(criterion),
        score=None,
        status=Status.ERRORED,
        reason=reason,
        reason_code=failure.code,
        error=error,
    )


class Preparation:
    """Every evaluator's ``prepare()`` (costly setup), once each, in a background thread
    started when the run starts, so that it overlaps with the agent's first turns."""

    def __init__(self, evaluators: Sequence[Evaluator]) -> None:
        self._future: concurrent.futures.Future = concurrent.futures.Future()
        unique = list({id(e): e for e in evaluators}.values())

        def work() -> None:
            failed: dict[int, BaseException] = {}
            for evaluator in unique:
                try:
                    evaluator.prepare()
                except Exception as exc:  # noqa: BLE001 - failing is data: that criterion's results say why
                    failed[id(evaluator)] = exc
            self._future.set_result(failed)

        self._thread = threading.Thread(target=work, name="agenteval-prepare", daemon=True)
        self._thread.start()

    async def failures(self) -> dict[int, BaseException]:
        """The exceptions raised by ``prepare()``, by evaluator id (waits for the thread;
        once it is done, answers without waiting)."""
        if not self._future.done():
            await asyncio.wrap_future(self._future)
        self._thread.join()  # ending: its result is set
        return self._future.result()


def _precondition(
    case: EvalCase, actual: Sequence[Invocation], resolved: ResolvedCriterion, entry: CriterionEntry
) -> Optional[CriterionResult]:
    if not resolved.info.requires_expected:
        return None
    if case.conversation is None:
        return not_evaluated(
            entry,
            f"{entry.name} compares with expected invocations, and this case is a "
            "conversation scenario without them",
            "no_expected_invocations",
        )
    if len(case.conversation) != len(actual):
        return not_evaluated(
            entry,
            f"the case expects {len(case.conversation)} invocations but the actual "
            f"conversation has {len(actual)}; turns cannot be paired",
            "invocation_count_mismatch",
        )
    return None


def _to_result(
    score: Score,
    entry: CriterionEntry,
    actual: Sequence[Invocation],
    started: float,
    point: bool,
    first: int = 0,
) -> CriterionResult:
    """A ``Score`` that keeps the contract (``score_problem``) as this criterion's result;
    ``first``: the index of ``actual[0]`` in the case's turns (after its context turns)."""
    per_invocation = [
        InvocationResult(
            index=first + index,
            invocation_id=actual[index].invocation_id,
            score=item.score,
            status=status_for(item.score, entry),
            reason=item.reason,
            reason_code=item.reason_code if item.score is None else None,
            details=item.details,
        )
        for index, item in enumerate(score.per_invocation)
    ]
    value, reason, reason_code, details = score.value, score.reason, score.reason_code, score.details
    # (the results read an older engine's budget code, judge_budget_exhausted, as judge_budget)
    unjudged = [p for p in per_invocation if p.reason_code == JUDGE_BUDGET]
    if unjudged and value is not None:
        # A mean over the judged turns only would hide what the budget left out.
        judged = len(per_invocation) - len(unjudged)
        reason = (
            f"the judge budget was spent before {len(unjudged)} of {len(per_invocation)} invocation(s) "
            f"were judged (the {judged} judged averaged {value:.4g}): {unjudged[0].reason or JUDGE_BUDGET}"
        )
        value, reason_code, details = None, JUDGE_BUDGET, {**details, "judged_score": value}
    status = status_for(value, entry)
    verdict = point_verdict(status) if point else None
    if status is Status.NOT_EVALUATED and reason_code is None:
        reason_code = "not_evaluated"
    result = CriterionResult(
        **base_fields(entry),
        score=value,
        status=status,
        reason=reason,
        reason_code=reason_code if value is None else None,
        per_invocation=per_invocation,
        details=details,
        duration_seconds=time.perf_counter() - started,
        verdict=verdict,
    )
    return calibration_gated(entry, budget_gated(result))  # recorded so, for the index's listings


def context_for(
    case: EvalCase,
    actual: Sequence[Invocation],
    criterion: ResolvedCriterion,
    judge: Optional[JudgeService],
    scope: str,
) -> EvaluationContext:
    """The context an evaluator sees for one case (also used by ``--dry-run``): the turns
    after the case's ``context_turns``, the context turns as its ``history``."""
    client = (
        judge.client(criterion.name, scope) if judge is not None and criterion.info.requires_judge else None
    )
    skip = case.context_turns
    expected = case.conversation[skip:] if case.conversation is not None else None
    # Built from already-validated parts: validating them again would cost more than
    # most deterministic criteria themselves.
    return built(
        EvaluationContext,
        {
            "case": case,
            "actual": actual[skip:],
            "expected": expected,
            "threshold": criterion.threshold,
            "judge": client,
            "history": actual[:skip],
        },
    )


async def _score_one(
    case: EvalCase,
    actual: Sequence[Invocation],
    resolved: ResolvedCriterion,
    entry: CriterionEntry,
    limit: asyncio.Semaphore,
    strict: bool,
    judge: Optional[JudgeService],
    scope: str,
    point: bool,
) -> CriterionResult:
    blocked = _precondition(case, actual, resolved, entry)
    if blocked is None:
        skip = case.context_turns
        blocked = missing_input_result(actual[skip:], resolved.info, entry, first=skip)
    if blocked is not None:
        return blocked
    ctx = context_for(case, actual, resolved, judge, scope)
    # Judge criteria wait on the judge service's own limit, not on the evaluation slots.
    slot = contextlib.nullcontext() if resolved.info.requires_judge else limit
    async with slot:
        started = time.perf_counter()
        try:
            outcome = resolved.evaluator.evaluate(ctx)
            if type(outcome) is not Score and inspect.isawaitable(outcome):
                outcome = await outcome
        except Exception as exc:  # failing is data: the run goes on
            if strict:
                raise
            return _errored(entry, exc, started, "the evaluator raised", "evaluator_error")
    try:
        broken = score_problem(outcome, entry, len(ctx.actual))
        if broken:
            raise (TypeError if not isinstance(outcome, Score) else ValueError)(broken)
        result = _to_result(outcome, entry, ctx.actual, started, point, first=case.context_turns)
    except (TypeError, ValueError) as exc:
        if strict:
            raise
        return _errored(entry, exc, started, "the evaluator broke the plugin contract", "evaluator_error")
    if judge is not None and resolved.info.requires_judge:
        result = result.model_copy(update={"judge": judge.activity(resolved.name, scope)})
    return result


async def score_run(
    case: EvalCase,
    outcome: Union[Sequence[Invocation], AgentFailure, None],
    criteria: Sequence[tuple[ResolvedCriterion, CriterionEntry]],
    *,
    limit: asyncio.Semaphore,
    strict: bool,
    judge: Optional[JudgeService],
    scope: str,
    unprepared: dict[int, BaseException],
    point_verdicts: bool = False,
) -> list[CriterionResult]:
    """Every criterion's result for one run of one case, in criterion order.

    ``outcome`` is the run's actual invocations, an ``AgentFailure``, or ``None`` when
    this run has no actual invocations for the case (one of several ``--actual`` files
    lacks it: NOT_EVALUATED ``missing_run``). ``point_verdicts``: the run is the case's only
    one, so each scored result carries its point verdict as its tri-state verdict.
    """
    results: list[Optional[CriterionResult]] = [None] * len(criteria)
    pending = []
    for position, (resolved, entry) in enumerate(criteria):
        failed = unprepared.get(id(resolved.evaluator))
        if failed is not None:
            result = _errored(
                entry, failed, time.perf_counter(), "the evaluator's prepare() raised", "prepare_error"
            )
        elif isinstance(outcome, AgentFailure):
            result = agent_failed(entry, outcome)
        elif outcome is None:
            result = not_evaluated(entry, "this run has no actual invocations for this case", "missing_run")
        else:
            score = _score_one(case, outcome, resolved, entry, limit, strict, judge, scope, point_verdicts)
            pending.append((position, score, resolved.waits))
            continue
        results[position] = result
    # Criteria that wait (async evaluators: judges) run concurrently; the others are
    # awaited in turn, which never suspends for a synchronous evaluator, so a
    # deterministic case costs no task per criterion.
    waiting = [(position, coro) for position, coro, waits in pending if waits]
    for position, coro, waits in pending:
        if not waits:
            results[position] = await coro
    if len(waiting) == 1:
        position, coro = waiting[0]
        results[position] = await coro
    elif waiting:
        done = await asyncio.gather(*(coro for _, coro in waiting))
        for (position, _), result in zip(waiting, done, strict=True):
            results[position] = result
    return [r for r in results if r is not None]
