"""Running resolved criteria over eval cases: one bounded pool, failures kept as data.

For every (case, criterion) pair the runner:

1. checks the preconditions the evaluator declared (a reference conversation of the same
   length as the actual one) and reports NOT_EVALUATED with a reason code otherwise;
2. calls ``evaluate`` (sync or async) under one concurrency limit for the whole run;
3. turns an exception or a malformed return value into an ERRORED result;
4. compares scores with the threshold (inclusive; direction from ``higher_is_better``).

Nothing is dropped: every pair yields exactly one ``CriterionResult``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import inspect
import math
import time
import traceback
from collections.abc import Awaitable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Optional, TypeVar

from ._resolve import ResolvedCriterion
from ._version import __version__
from .agents import AgentFailure
from .evaluator import EvaluationContext, Score
from .judging import JudgeService
from .models import EvalCase, EvalSet, Invocation
from .results import (
    CaseResult,
    CriterionResult,
    CriterionSummary,
    ErrorInfo,
    EvalSetResult,
    InvocationResult,
    RunResult,
    RunSummary,
    Status,
    worst_status,
)

__all__ = ["DEFAULT_CONCURRENCY", "Job", "run_jobs", "run_sync"]

DEFAULT_CONCURRENCY = 16


@dataclass
class Job:
    """One eval set's selected cases, their actual invocations and their criteria."""

    eval_set: EvalSet
    cases: Sequence[EvalCase]
    actual: dict[str, Sequence[Invocation]]
    criteria: Sequence[ResolvedCriterion]
    source: Optional[str] = None
    #: Cases the agent could not run (``--agent``): their criteria are not evaluated.
    failures: dict[str, AgentFailure] = field(default_factory=dict)


def _status(score: Optional[float], criterion: ResolvedCriterion) -> Status:
    if criterion.info.informational:
        return Status.INFORMATIONAL
    if score is None:
        return Status.NOT_EVALUATED
    assert criterion.threshold is not None
    if criterion.info.higher_is_better:
        return Status.PASSED if score >= criterion.threshold else Status.FAILED
    return Status.PASSED if score <= criterion.threshold else Status.FAILED


def _base(criterion: ResolvedCriterion) -> dict:
    return {"criterion": criterion.name, "threshold": criterion.threshold, "plugin": criterion.plugin}


def _not_evaluated(criterion: ResolvedCriterion, reason: str, code: str) -> CriterionResult:
    return CriterionResult(
        **_base(criterion), score=None, status=Status.NOT_EVALUATED, reason=reason, reason_code=code
    )


def _errored(criterion: ResolvedCriterion, exc: BaseException, started: float, what: str) -> CriterionResult:
    error = ErrorInfo(
        type=type(exc).__name__,
        message=str(exc),
        traceback="".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
    )
    return CriterionResult(
        **_base(criterion),
        score=None,
        status=Status.ERRORED,
        reason=f"{what}: {type(exc).__name__}: {exc}",
        reason_code="evaluator_error",
        duration_seconds=time.perf_counter() - started,
        error=error,
    )


async def _agent_failed(criterion: ResolvedCriterion, failure: AgentFailure) -> CriterionResult:
    """A case the agent could not run: ERRORED with the agent's error (NOT_EVALUATED when
    the case could not be run at all, e.g. a scenario without a user simulator)."""
    if failure.code == "no_user_simulator":
        return _not_evaluated(criterion, failure.message, failure.code)
    error = ErrorInfo(type="AgentFailure", message=failure.message, traceback=failure.traceback)
    return CriterionResult(
        **_base(criterion),
        score=None,
        status=Status.ERRORED,
        reason=f"the agent failed: {failure.message}",
        reason_code=failure.code,
        error=error,
    )


def _precondition(
    case: EvalCase, actual: Sequence[Invocation], criterion: ResolvedCriterion
) -> Optional[CriterionResult]:
    if not criterion.info.requires_expected:
        return None
    if case.conversation is None:
        return _not_evaluated(
            criterion,
            f"{criterion.name} compares with expected invocations, and this case is a "
            "conversation scenario without them",
            "no_expected_invocations",
        )
    if len(case.conversation) != len(actual):
        return _not_evaluated(
            criterion,
            f"the case expects {len(case.conversation)} invocations but the actual "
            f"conversation has {len(actual)}; turns cannot be paired",
            "invocation_count_mismatch",
        )
    return None


def _check_range(value: Optional[float], criterion: ResolvedCriterion, what: str) -> None:
    """A score outside the range the evaluator declared breaks the contract."""
    low, high = criterion.info.min_score, criterion.info.max_score
    if value is None:
        return
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"
        raise ValueError(f"{what} {value!r} is outside the declared range {bounds}")


def _to_result(
    score: Score, criterion: ResolvedCriterion, actual: Sequence[Invocation], started: float
) -> CriterionResult:
    if score.per_invocation and len(score.per_invocation) != len(actual):
        raise ValueError(
            f"returned {len(score.per_invocation)} per-invocation scores for {len(actual)} invocations"
        )
    _check_range(score.value, criterion, "the case score")
    for index, item in enumerate(score.per_invocation):
        _check_range(item.score, criterion, f"invocation #{index + 1}'s score")
    per_invocation = [
        InvocationResult(
            index=index,
            invocation_id=actual[index].invocation_id,
            score=item.score,
            status=_status(item.score, criterion),
            reason=item.reason,
            reason_code=item.reason_code if item.score is None else None,
            details=item.details,
        )
        for index, item in enumerate(score.per_invocation)
    ]
    status = _status(score.value, criterion)
    reason_code = score.reason_code
    if status is Status.NOT_EVALUATED and reason_code is None:
        reason_code = "not_evaluated"
    return CriterionResult(
        **_base(criterion),
        score=score.value,
        status=status,
        reason=score.reason,
        reason_code=reason_code if score.value is None else None,
        per_invocation=per_invocation,
        details=score.details,
        duration_seconds=time.perf_counter() - started,
    )


def context_for(
    case: EvalCase,
    actual: Sequence[Invocation],
    criterion: ResolvedCriterion,
    judge: Optional[JudgeService],
    scope: str,
) -> EvaluationContext:
    """The context an evaluator sees for one case (also used by ``--dry-run``)."""
    client = (
        judge.client(criterion.name, scope) if judge is not None and criterion.info.requires_judge else None
    )
    # Built from already-validated parts: validating them again would cost more than
    # most deterministic criteria themselves.
    return EvaluationContext.model_construct(
        case=case, actual=actual, expected=case.conversation, threshold=criterion.threshold, judge=client
    )


async def _evaluate_one(
    case: EvalCase,
    actual: Sequence[Invocation],
    criterion: ResolvedCriterion,
    limit: asyncio.Semaphore,
    strict: bool,
    judge: Optional[JudgeService],
    scope: str,
) -> CriterionResult:
    blocked = _precondition(case, actual, criterion)
    if blocked is not None:
        return blocked
    ctx = context_for(case, actual, criterion, judge, scope)
    # Judge criteria wait on the judge service's own limit, not on the evaluation slots.
    slot = contextlib.nullcontext() if criterion.info.requires_judge else limit
    async with slot:
        started = time.perf_counter()
        try:
            outcome = criterion.evaluator.evaluate(ctx)
            if inspect.isawaitable(outcome):
                outcome = await outcome
        except Exception as exc:  # failing is data: the run goes on
            if strict:
                raise
            return _errored(criterion, exc, started, "the evaluator raised")
    try:
        if not isinstance(outcome, Score):
            raise TypeError(f"evaluate() returned {type(outcome).__name__}, expected agenteval.Score")
        result = _to_result(outcome, criterion, actual, started)
    except (TypeError, ValueError) as exc:
        if strict:
            raise
        return _errored(criterion, exc, started, "the evaluator broke the plugin contract")
    if judge is not None and criterion.info.requires_judge:
        result = result.model_copy(update={"judge": judge.activity(criterion.name, scope)})
    return result


def _summary(eval_sets: list[EvalSetResult], judge: Optional[JudgeService]) -> RunSummary:
    cases = [case for es in eval_sets for case in es.cases]
    results = [r for case in cases for r in case.criteria]
    by_name: dict[tuple[str, Optional[float], str], list[CriterionResult]] = {}
    for result in results:
        by_name.setdefault((result.criterion, result.threshold, str(result.plugin)), []).append(result)
    criteria = []
    for group in by_name.values():
        scores = [r.score for r in group if r.score is not None]
        criteria.append(
            CriterionSummary(
                criterion=group[0].criterion,
                threshold=group[0].threshold,
                plugin=group[0].plugin,
                mean_score=math.fsum(scores) / len(scores) if scores else None,
                counts=_count(r.status for r in group),
                judge=judge.activity(group[0].criterion) if judge is not None else None,
            )
        )
    return RunSummary(
        status=worst_status([c.status for c in cases]) if cases else Status.NOT_EVALUATED,
        cases=_count(c.status for c in cases),
        criterion_results=_count(r.status for r in results),
        criteria=criteria,
        not_evaluated_reasons=_tally_codes(
            r.reason_code for r in results if r.status is Status.NOT_EVALUATED
        ),
        invocations_not_evaluated=_tally_codes(
            p.reason_code or "not_evaluated"
            for r in results
            for p in r.per_invocation
            if p.status is Status.NOT_EVALUATED
        ),
        judge=judge.activity() if judge is not None else None,
    )


def _tally_codes(codes: Iterable[Optional[str]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for code in codes:
        key = code or "not_evaluated"
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def _count(statuses) -> dict[Status, int]:
    counts = {status: 0 for status in Status}
    for status in statuses:
        counts[status] += 1
    return counts


def _case_status(results: list[CriterionResult]) -> Status:
    if results and all(r.status is Status.INFORMATIONAL for r in results):
        return Status.INFORMATIONAL
    return worst_status([r.status for r in results if r.status is not Status.INFORMATIONAL])


async def run_jobs(
    jobs: Sequence[Job],
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    strict: bool = False,
    warnings: Sequence[str] = (),
    judge: Optional[JudgeService] = None,
) -> RunResult:
    """Evaluate every job's cases under every job criterion; see the module docstring.

    ``judge`` serves the criteria that call a judge model; one is made (with no cache)
    when such a criterion runs and none was given. If the run is cancelled (Ctrl-C),
    what was scored is kept and the rest is NOT_EVALUATED with code ``interrupted``.
    """
    if judge is None and any(c.info.requires_judge for job in jobs for c in job.criteria):
        judge = JudgeService()
    if judge is not None:
        judge.begin_run()
    with _loaded_data_frozen():
        return await _run_jobs(jobs, concurrency=concurrency, strict=strict, warnings=warnings, judge=judge)


@contextlib.contextmanager
def _loaded_data_frozen() -> Iterator[None]:
    """Keep the garbage collector off the eval data during a run.

    The loaded eval sets are hundreds of thousands of long-lived objects without cycles;
    every full collection during a run would walk them all again (it multiplied the cost
    of fast criteria several times over). ``gc.freeze`` sets them aside for the run and
    ``gc.unfreeze`` returns them afterwards. Skipped when the host application froze
    objects itself, so that its freeze is never undone.
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


async def _run_jobs(
    jobs: Sequence[Job],
    *,
    concurrency: int,
    strict: bool,
    warnings: Sequence[str],
    judge: Optional[JudgeService],
) -> RunResult:
    limit = asyncio.Semaphore(max(1, concurrency))
    tasks: list[asyncio.Task[CriterionResult]] = []
    order: list[ResolvedCriterion] = []
    for set_index, job in enumerate(jobs):
        for case in job.cases:
            failure = job.failures.get(case.eval_id)
            scope = f"{set_index}:{case.eval_id}"
            for criterion in job.criteria:
                if failure is not None:
                    coro = _agent_failed(criterion, failure)
                else:
                    coro = _evaluate_one(
                        case, job.actual[case.eval_id], criterion, limit, strict, judge, scope
                    )
                tasks.append(asyncio.ensure_future(coro))
                order.append(criterion)
    interrupted = False
    try:
        await asyncio.gather(*tasks)
    except asyncio.CancelledError:
        # Ctrl-C: keep every finished result, mark the rest; the caller reports both.
        interrupted = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    flat = [
        task.result()
        if task.done() and not task.cancelled() and task.exception() is None
        else _not_evaluated(criterion, "the run was interrupted before this was scored", "interrupted")
        for task, criterion in zip(tasks, order, strict=True)
    ]
    position = 0
    eval_sets = []
    for job in jobs:
        case_results = []
        for case in job.cases:
            results = list(flat[position : position + len(job.criteria)])
            position += len(job.criteria)
            case_results.append(
                CaseResult(eval_id=case.eval_id, status=_case_status(results), criteria=results)
            )
        eval_sets.append(
            EvalSetResult(eval_set_id=job.eval_set.eval_set_id, source=job.source, cases=case_results)
        )
    summary = _summary(eval_sets, judge)
    if judge is not None:
        await judge.aclose()  # also readies it for another run
    return RunResult(
        engine_version=__version__,
        summary=summary,
        eval_sets=eval_sets,
        warnings=list(dict.fromkeys(warnings)),
        interrupted=interrupted,
    )


T = TypeVar("T")


def run_sync(awaitable: Awaitable[T]) -> T:
    """``asyncio.run`` for a result-returning coroutine, without its hidden cost.

    On Python 3.11 ``asyncio.run`` builds the repr of its finished main task, which
    includes the whole result (tens of milliseconds for a large ``RunResult``); the
    wrapper returns ``None`` to the loop and hands the result over directly.
    """
    box: list[T] = []

    async def main() -> None:
        box.append(await awaitable)

    asyncio.run(main())
    return box[0]
