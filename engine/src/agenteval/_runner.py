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
import concurrent.futures
import contextlib
import gc
import inspect
import math
import statistics
import threading
import time
import traceback
from collections.abc import Awaitable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, TypeVar

from ._resolve import ResolvedCriterion
from ._version import __version__
from .agents import USER_SIMULATOR_ACTIVITY, AgentFailure, SimulatedConversation
from .evaluator import EvaluationContext, Score
from .judging import JudgeService
from .loading import EvalConfig
from .models import EvalCase, EvalSet, Invocation
from .results import (
    AgentRunRecord,
    CaseResult,
    CriterionResult,
    CriterionSummary,
    ErrorInfo,
    EvalSetResult,
    InvocationResult,
    JudgeActivity,
    RunResult,
    RunSummary,
    Status,
    worst_status,
)

__all__ = ["DEFAULT_CONCURRENCY", "AgentRun", "Job", "run_jobs", "run_sync", "start_preparing"]

DEFAULT_CONCURRENCY = 16


@dataclass
class AgentRun:
    """One run's actual invocations per case, and the cases the agent could not run."""

    actual: dict[str, Sequence[Invocation]] = field(default_factory=dict)
    failures: dict[str, AgentFailure] = field(default_factory=dict)


@dataclass
class Job:
    """One eval set's selected cases, their actual invocations and their criteria.

    ``actual`` and ``failures`` are the first run; ``more_runs`` the others when the agent
    ran several times (``--num-runs``) or several ``--actual`` files hold the same case.
    """

    eval_set: EvalSet
    cases: Sequence[EvalCase]
    actual: dict[str, Sequence[Invocation]]
    criteria: Sequence[ResolvedCriterion]
    source: Optional[str] = None
    #: Cases the agent could not run (``--agent``): their criteria are not evaluated.
    failures: dict[str, AgentFailure] = field(default_factory=dict)
    more_runs: list[AgentRun] = field(default_factory=list)
    #: Whether the engine ran the agent: its invocations then go into the results.
    agent_ran: bool = False
    #: The config the cases were planned with (its ``user_simulator_config``), if any.
    config: Optional[EvalConfig] = None
    #: Makes the user simulator of each conversation scenario (``--agent`` runs with
    #: scenario cases; a ``UserSimulatorFactory``), else None.
    user_simulator: Optional[Any] = None
    #: The evaluators' ``prepare()`` running in the background (``start_preparing``).
    preparing: Optional[concurrent.futures.Future] = None

    def runs(self) -> list[AgentRun]:
        """Every run, first to last."""
        return [AgentRun(self.actual, self.failures), *self.more_runs]


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
        reason=failure.message
        if failure.code == "user_simulator_error"
        else f"the agent failed: {failure.message}",
        reason_code=failure.code,
        error=error,
    )


def start_preparing(jobs: Sequence[Job]) -> None:
    """Start every evaluator's ``prepare()`` in a background thread (once per evaluator,
    in criterion order); ``run_jobs`` waits for it. Called when the agent starts, so that
    heavy setup overlaps with the agent's turns."""
    future: concurrent.futures.Future = concurrent.futures.Future()
    evaluators = _evaluators(jobs)

    def work() -> None:
        future.set_result(_prepare_all(evaluators))

    threading.Thread(target=work, name="agenteval-prepare", daemon=True).start()
    for job in jobs:
        job.preparing = future


def _evaluators(jobs: Sequence[Job]) -> list:
    unique: dict[int, object] = {}
    for job in jobs:
        for criterion in job.criteria:
            unique.setdefault(id(criterion.evaluator), criterion.evaluator)
    return list(unique.values())


def _prepare_all(evaluators: Sequence) -> dict[int, BaseException]:
    """Each evaluator's ``prepare()``; the exceptions raised, by evaluator id."""
    failed: dict[int, BaseException] = {}
    for evaluator in evaluators:
        try:
            evaluator.prepare()
        except Exception as exc:  # failing is data: that criterion's results say why
            failed[id(evaluator)] = exc
    return failed


async def _prepared(jobs: Sequence[Job]) -> dict[int, BaseException]:
    """Wait for the background preparation, or prepare now (in a worker thread)."""
    started = {id(job.preparing): job.preparing for job in jobs if job.preparing is not None}
    failed: dict[int, BaseException] = {}
    for future in started.values():
        failed.update(await asyncio.wrap_future(future))
    pending = _evaluators([job for job in jobs if job.preparing is None])
    if pending:
        failed.update(await asyncio.to_thread(_prepare_all, pending))
    return failed


async def _prepare_failed(criterion: ResolvedCriterion, exc: BaseException) -> CriterionResult:
    result = _errored(criterion, exc, time.perf_counter(), "the evaluator's prepare() raised")
    return result.model_copy(update={"reason_code": "prepare_error"})


async def _run_missing(criterion: ResolvedCriterion, run_index: int, runs: int) -> CriterionResult:
    """A case that one of several ``--actual`` files lacks: that run has nothing to score."""
    return _not_evaluated(
        criterion,
        f"run {run_index + 1} of {runs} has no actual invocations for this case",
        "missing_run",
    )


def _agent_records(case: EvalCase, runs: Sequence[AgentRun]) -> list[AgentRunRecord]:
    records = []
    for index, run in enumerate(runs, start=1):
        failure = run.failures.get(case.eval_id)
        if failure is not None:
            error = ErrorInfo(type="AgentFailure", message=failure.message, traceback=failure.traceback)
            records.append(AgentRunRecord(run=index, error_code=failure.code, error=error))
        else:
            invocations = run.actual.get(case.eval_id, ())
            simulation = invocations.details if isinstance(invocations, SimulatedConversation) else None
            records.append(AgentRunRecord(run=index, invocations=list(invocations), simulation=simulation))
    return records


def _pooled_scores(runs: Sequence[CriterionResult]) -> list[float]:
    """The scores a multi-run verdict averages: every per-invocation score of every run
    (ADK's rule) when each run reports them, else each run's case score."""
    if all(r.per_invocation for r in runs):
        return [p.score for r in runs for p in r.per_invocation if p.score is not None]
    return [r.score for r in runs if r.score is not None]


def _sum_activity(runs: Sequence[CriterionResult]) -> Optional[JudgeActivity]:
    activities = [r.judge for r in runs if r.judge is not None]
    if not activities:
        return None
    failures: dict[str, int] = {}
    for activity in activities:
        for code, count in activity.failures.items():
            failures[code] = failures.get(code, 0) + count
    return JudgeActivity(
        calls=sum(a.calls for a in activities),
        cache_hits=sum(a.cache_hits for a in activities),
        retries=sum(a.retries for a in activities),
        failures=dict(sorted(failures.items())),
        input_tokens=sum(a.input_tokens for a in activities),
        output_tokens=sum(a.output_tokens for a in activities),
    )


def combine_runs(criterion: ResolvedCriterion, runs: Sequence[CriterionResult]) -> CriterionResult:
    """One criterion's verdict over several runs of the agent on one case.

    The score is the mean of every run's per-invocation scores (ADK's ``num_runs`` rule;
    each run's case score when a criterion gives no per-invocation scores), compared
    with the threshold. A run that ERRORED or was NOT_EVALUATED is never averaged away:
    the combined result takes that status and names the run. ``details["spread"]`` has
    the per-run scores' min, max and population standard deviation.
    """
    scores = _pooled_scores(runs)
    mean = math.fsum(scores) / len(scores) if scores else None
    run_scores = [r.score for r in runs]
    present = [s for s in run_scores if s is not None]
    details: dict = {"run_scores": run_scores}
    if present:
        details["spread"] = {
            "min": min(present),
            "max": max(present),
            "stdev": statistics.pstdev(present) if len(present) > 1 else 0.0,
        }
    common = {
        **_base(criterion),
        "score": mean,
        "details": details,
        "runs": list(runs),
        "judge": _sum_activity(runs),
        "duration_seconds": sum(r.duration_seconds for r in runs),
    }
    for status in (Status.ERRORED, Status.NOT_EVALUATED):
        broken = [(i, r) for i, r in enumerate(runs, start=1) if r.status is status]
        if broken and not criterion.info.informational:
            index, first = broken[0]
            which = ", ".join(str(i) for i, _ in broken)
            why = first.reason or first.reason_code or "no reason given"
            reason = f"run(s) {which} of {len(runs)} {status.value.lower().replace('_', ' ')}: {why}"
            return CriterionResult(
                **common, status=status, reason=reason, reason_code=first.reason_code, error=first.error
            )
    status = _status(mean, criterion)
    if mean is None:
        reason = "no run produced a score"
    else:
        shown = ", ".join("-" if s is None else f"{s:.3g}" for s in run_scores)
        reason = f"mean {mean:.4g} over {len(runs)} runs (per run: {shown})"
    return CriterionResult(
        **common,
        status=status,
        reason=reason,
        reason_code="not_evaluated" if status is Status.NOT_EVALUATED else None,
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
            for run in r.runs or [r]
            for p in run.per_invocation
            if p.status is Status.NOT_EVALUATED
        ),
        judge=judge.activity() if judge is not None else None,
        user_simulator=judge.activity(USER_SIMULATOR_ACTIVITY) if judge is not None else None,
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
    if judge is not None and not any(job.agent_ran for job in jobs):
        # After ``run_agent_for`` the count goes on: the user simulator's calls are the run's.
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
    unprepared = await _prepared(jobs)
    if strict and unprepared:
        raise next(iter(unprepared.values()))
    tasks: list[asyncio.Task[CriterionResult]] = []
    order: list[ResolvedCriterion] = []
    for set_index, job in enumerate(jobs):
        runs = job.runs()
        for case in job.cases:
            for run_index, run in enumerate(runs):
                failure = run.failures.get(case.eval_id)
                scope = f"{set_index}:{case.eval_id}" + (f"#run{run_index + 1}" if run_index else "")
                for criterion in job.criteria:
                    if id(criterion.evaluator) in unprepared:
                        coro = _prepare_failed(criterion, unprepared[id(criterion.evaluator)])
                    elif failure is not None:
                        coro = _agent_failed(criterion, failure)
                    elif case.eval_id not in run.actual:
                        coro = _run_missing(criterion, run_index, len(runs))
                    else:
                        actual = run.actual[case.eval_id]
                        coro = _evaluate_one(case, actual, criterion, limit, strict, judge, scope)
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
        runs = job.runs()
        case_results = []
        for case in job.cases:
            per_run = []
            for _ in runs:
                per_run.append(flat[position : position + len(job.criteria)])
                position += len(job.criteria)
            if len(runs) == 1:
                results = list(per_run[0])
            else:
                results = [
                    combine_runs(criterion, [run_results[i] for run_results in per_run])
                    for i, criterion in enumerate(job.criteria)
                ]
            case_results.append(
                CaseResult(
                    eval_id=case.eval_id,
                    status=_case_status(results),
                    criteria=results,
                    agent_runs=_agent_records(case, runs) if job.agent_ran else [],
                )
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
