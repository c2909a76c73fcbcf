"""``EvalRun``: the one owner of a run and its stages.

    plan ──▶ acquire ──▶ score ──▶ record
    (Plan)   (agent or    (criteria   (results.jsonl line,
              recorded     under the   summary, progress)
              turns)       limits)

The plan is made before (``agenteval._run._plan``): every input checked, every criterion
resolved, the judges and the agent preflighted. ``EvalRun.execute`` then takes each
case × run through acquire → score → record as one unit of work, under one bound on the
units in flight, so a finished case is on disk a moment after it finishes, memory is
bounded by what is in flight, and an interruption loses only what was in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from .._verdicts import SummaryBuilder, case_status
from .._version import __version__
from ..agents import USER_SIMULATOR_ACTIVITY, AgentFailure, SimulatedConversation, run_case
from ..judging import JudgeService
from ..models import EvalCase
from ..results import AgentRunRecord, CaseResult, CriterionResult, ErrorInfo, EvalSetResult, RunResult
from ..runs import (
    RECORD_SCHEMA,
    CaseRecord,
    RecordedRun,
    RecordingError,
    RunState,
    RunWriter,
    SummaryDocument,
    case_from_records,
    utc_now,
)
from ..runs._adk_history import adk_history_documents, write_adk_history
from ._plan import Plan, PlannedSet
from ._progress import Progress, SilentProgress
from ._scoring import Preparation, score_run

__all__ = ["DEFAULT_CONCURRENCY", "EvalRun", "SIGNAL_EXIT_CODES"]

DEFAULT_CONCURRENCY = 16

#: The exit code of a run stopped by each signal (128 + the signal number), or by its own
#: time limit (``--timeout``: 124, as GNU ``timeout``).
SIGNAL_EXIT_CODES = {"SIGINT": 130, "SIGTERM": 143, "SIGHUP": 129, "timeout": 124}

#: How long in-flight work may take to wind down after an interruption.
_WIND_DOWN_SECONDS = 1.5


@dataclass
class _CaseState:
    """The runs of one case finished so far."""

    planned: PlannedSet
    case: EvalCase
    runs: dict[int, CaseRecord] = field(default_factory=dict)


class EvalRun:
    """One run: the plan, the judge service, the limits, the run folder and the progress.

    Args:
        plan: what to run (``agenteval._run.plan_paths`` / ``plan_eval_sets``).
        judge: the judge service for judge criteria and the user simulator.
        concurrency: evaluations at once (judge criteria wait on the judge's own limit).
        agent_concurrency / agent_timeout: agent cases at once; seconds per agent turn.
        strict: re-raise evaluator exceptions instead of recording ERRORED results.
        writer: the run folder being written (``None``: keep no record).
        resume_from: a recorded run whose finished cases are taken as they are.
        progress: where progress goes (default: nowhere).
        adk_history: a folder where a complete run is also written as ADK's
            ``*.evalset_result.json`` eval history (``None``: not written).
        confidence: the level of the tri-state verdicts' intervals over repeated runs
            (``None``: no statistics, as ``--no-stats``; a single run keeps its point verdict).
    """

    def __init__(
        self,
        plan: Plan,
        *,
        judge: Optional[JudgeService] = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        agent_concurrency: int = 4,
        agent_timeout: float = 300.0,
        strict: bool = False,
        writer: Optional[RunWriter] = None,
        resume_from: Optional[RecordedRun] = None,
        progress: Optional[Progress] = None,
        run_id: Optional[str] = None,
        adk_history: Optional[Path] = None,
        confidence: Optional[float] = 0.95,
    ) -> None:
        self.plan = plan
        needs_judge = any(c.info.requires_judge for s in plan.sets for c in s.criteria)
        self.judge = judge if judge is not None else (JudgeService() if needs_judge else None)
        self.concurrency = max(1, concurrency)
        self.agent_concurrency = max(1, agent_concurrency)
        self.agent_timeout = agent_timeout
        self.strict = strict
        self.writer = writer
        self.resume_from = resume_from
        self.progress = progress or SilentProgress()
        self.run_id = writer.run_id if writer is not None else (run_id or "")
        self.stopped_by: Optional[str] = None
        self.failed: Optional[str] = None
        self._task: Optional[asyncio.Task] = None
        self._interrupts = 0
        #: Where a complete run is also written as ADK's eval history (``None``: not).
        self.adk_history = adk_history
        self.adk_history_written: list[Path] = []
        self.adk_history_error: Optional[str] = None
        self.confidence = confidence

    # -- interruption -------------------------------------------------------------
    def interrupt(self, signal_name: str = "SIGINT") -> None:
        """Stop the run: no new work starts, work in flight is cancelled, what finished is
        kept. A second call stops waiting for in-flight work at once."""
        self._interrupts += 1
        if self.stopped_by is None:
            self.stopped_by = signal_name
        if self._task is not None and not self._task.done():
            self._task.cancel()

    @contextlib.contextmanager
    def _signals_handled(self, loop: asyncio.AbstractEventLoop, enabled: bool) -> Iterator[None]:
        """SIGINT, SIGTERM and SIGHUP interrupt the run while it executes; the handlers
        that were there before are put back afterwards (so a host's or the CLI's own
        handling resumes: a late second Ctrl-C never turns into a traceback)."""
        if not enabled or threading.current_thread() is not threading.main_thread():
            yield
            return

        def handler(signum: int, _frame: object) -> None:
            name = signal.Signals(signum).name
            loop.call_soon_threadsafe(self.interrupt, name)

        previous = {}
        for name in SIGNAL_EXIT_CODES:
            number = getattr(signal, name, None) if name.startswith("SIG") else None
            if number is not None:
                previous[number] = signal.signal(number, handler)
        try:
            yield
        finally:
            for number, old in previous.items():
                signal.signal(number, old)

    # -- the stages ---------------------------------------------------------------
    async def execute(self, *, handle_signals: bool = False, timeout: Optional[float] = None) -> RunResult:
        """Run every unfinished case × run through acquire → score → record; return the
        result of every planned case (interrupted ones NOT_EVALUATED ``interrupted``).
        ``timeout``: seconds after which the run stops as if interrupted (``stopped_by``
        ``"timeout"``); what finished is kept and ``--resume`` continues."""
        loop = asyncio.get_running_loop()
        deadline = loop.call_later(timeout, self.interrupt, "timeout") if timeout else None
        if self.judge is not None:
            self.judge.begin_run()
        evaluators = [c.evaluator for s in self.plan.sets for c in s.criteria]
        preparation = Preparation(evaluators)
        states = self._states()
        self._resumed_records(states)
        self.progress.start(total=len(states), done=0)
        summary = SummaryBuilder()
        finished: dict[tuple[int, str], CaseResult] = {}
        for key, state in states.items():
            if len(state.runs) == self.plan.num_runs:
                self._finish_case(key, state, finished, summary)
        with self._signals_handled(loop, handle_signals), _loaded_data_frozen():
            self._task = asyncio.ensure_future(self._work(states, preparation, finished, summary))
            try:
                await self._task
            except asyncio.CancelledError:
                if self.stopped_by is None:  # cancelled from outside (e.g. the host's Ctrl-C)
                    self.stopped_by = "cancelled"
            except RecordingError as exc:
                self.failed = str(exc)
            finally:
                if deadline is not None:
                    deadline.cancel()
                self._task = None
                self.progress.stop()
                if self.judge is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(self.judge.aclose(), 5)
                if self.plan.agent is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(self.plan.agent.aclose(), 5)
        result = self._result(states, finished, summary)
        self._finish_record(result, recorded=len(finished))
        if self.adk_history is not None and not result.interrupted:
            self._write_adk_history(states, finished)
        return result

    def _write_adk_history(
        self, states: dict[tuple[int, str], _CaseState], finished: dict[tuple[int, str], CaseResult]
    ) -> None:
        """Every case as ``adk eval`` records it (its first run's turns, the combined verdicts)."""
        assert self.adk_history is not None
        agent = self.plan.agent
        app = agent.adk_app() if agent is not None else None
        app_name = app[1] if app is not None else "agenteval"
        cases = []
        for key, state in states.items():
            record = state.runs.get(1)
            case = finished.get(key)
            if record is None or case is None:
                continue
            cases.append((state.planned.entry, record, case.criteria, case.status))
        try:
            self.adk_history_written = write_adk_history(
                self.adk_history, adk_history_documents(app_name, cases)
            )
        except OSError as exc:
            self.adk_history_error = (
                f"could not write ADK's eval history to {self.adk_history}: {exc.strerror or exc}"
            )

    def _states(self) -> dict[tuple[int, str], _CaseState]:
        return {(s.index, case.eval_id): _CaseState(s, case) for s in self.plan.sets for case in s.cases}

    def _resumed_records(self, states: dict[tuple[int, str], _CaseState]) -> None:
        """Take the finished records of the run being resumed as they are."""
        if self.resume_from is None:
            return
        for record in self.resume_from.records():
            state = states.get((record.eval_set_index, record.case_id))
            if state is not None and record.run_index <= self.plan.num_runs:
                state.runs[record.run_index] = record

    async def _work(
        self,
        states: dict[tuple[int, str], _CaseState],
        preparation: Preparation,
        finished: dict[tuple[int, str], CaseResult],
        summary: SummaryBuilder,
    ) -> None:
        limit = asyncio.Semaphore(self.concurrency)
        agent_limit = asyncio.Semaphore(self.agent_concurrency)
        window = asyncio.Semaphore(self.concurrency + self.agent_concurrency * 2)
        unprepared: Optional[dict[int, BaseException]] = None
        prepared = asyncio.Lock()
        tasks: set[asyncio.Task] = set()
        failure: list[BaseException] = []

        async def one(key: tuple[int, str], state: _CaseState, run_index: int) -> None:
            nonlocal unprepared
            try:
                outcome, origin = await self._acquire(state, run_index, agent_limit)
                async with prepared:
                    if unprepared is None:
                        unprepared = await preparation.failures()
                        if self.strict and unprepared:
                            raise next(iter(unprepared.values()))
                started = time.perf_counter()
                scope = f"{state.planned.index}:{state.case.eval_id}" + (
                    f"#run{run_index}" if run_index > 1 else ""
                )
                results = await score_run(
                    state.case,
                    outcome if not isinstance(outcome, _Missing) else None,
                    state.planned.scored,
                    limit=limit,
                    strict=self.strict,
                    judge=self.judge,
                    scope=scope,
                    unprepared=unprepared,
                    point_verdicts=self.plan.num_runs == 1 and self.confidence is not None,
                )
                record = self._record(
                    state, run_index, outcome, origin, results, time.perf_counter() - started
                )
                if self.writer is not None:
                    self.writer.append(record)
                state.runs[run_index] = record
                if len(state.runs) == self.plan.num_runs:
                    self._finish_case(key, state, finished, summary)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # strict mode, or the run folder failed: stop the run
                failure.append(exc)
                raise
            finally:
                window.release()

        try:
            for key, state in states.items():
                for run_index in range(1, self.plan.num_runs + 1):
                    if run_index in state.runs:
                        continue
                    await window.acquire()
                    if failure:
                        window.release()
                        break
                    task = asyncio.ensure_future(one(key, state, run_index))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                if failure:
                    break
            if tasks:
                await asyncio.gather(*list(tasks), return_exceptions=True)
        except asyncio.CancelledError:
            pending = [t for t in tasks if not t.done()]
            for task in pending:
                task.cancel()
            if pending and self._interrupts < 2:
                await asyncio.wait(pending, timeout=_WIND_DOWN_SECONDS)
            raise
        if failure:
            raise failure[0]

    async def _acquire(
        self, state: _CaseState, run_index: int, agent_limit: asyncio.Semaphore
    ) -> tuple[Any, str]:
        """This run's actual turns (or why there are none) and where they came from."""
        plan = self.plan
        if plan.agent is None:
            recorded = plan.recorded.get((state.planned.index, state.case.eval_id), ())
            if run_index > len(recorded):
                return _Missing(run_index, len(recorded)), "recorded"
            return recorded[run_index - 1], "recorded"
        factory = state.planned.user_simulator
        async with agent_limit:
            outcome = await run_case(
                plan.agent,
                state.case,
                timeout=self.agent_timeout,
                user_simulator=factory,
                run_index=run_index - 1,
            )
        return outcome, "agent"

    def _record(
        self,
        state: _CaseState,
        run_index: int,
        outcome: Any,
        origin: str,
        results: Sequence[CriterionResult],
        duration: float,
    ) -> CaseRecord:
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
        elif isinstance(outcome, _Missing):
            actual = None
        else:
            simulation = outcome.details if isinstance(outcome, SimulatedConversation) else None
            actual = AgentRunRecord(
                run=run_index,
                invocations=list(outcome),
                simulation=simulation,
                output=getattr(outcome, "output", ""),
            )
        planned = state.planned
        # Every part was validated when it was made: constructing skips validating it again.
        return CaseRecord.model_construct(
            schema_=RECORD_SCHEMA,
            run_id=self.run_id,
            eval_set_index=planned.index,
            eval_set_id=planned.eval_set.eval_set_id,
            eval_set_file=str(planned.source) if planned.source is not None else None,
            case_id=state.case.eval_id,
            run_index=run_index,
            status=status,
            reason=problem.reason if problem is not None else None,
            reason_code=problem.reason_code if problem is not None else None,
            duration_s=round(duration, 6),
            scores={r.criterion: r.score for r in results},
            statuses={r.criterion: r.status for r in results},
            criteria=list(results),
            expected=list(state.case.conversation) if state.case.conversation is not None else None,
            actual=actual,
            origin=origin,
        )

    def _finish_case(
        self,
        key: tuple[int, str],
        state: _CaseState,
        finished: dict[tuple[int, str], CaseResult],
        summary: SummaryBuilder,
    ) -> None:
        case = self._case_result(state)
        finished[key] = case
        summary.add(case)
        self.progress.case_done(case.status)

    def _case_result(self, state: _CaseState) -> CaseResult:
        """A case's result from its runs' records: the rule a re-read run folder applies."""
        records = [state.runs.get(run_index) for run_index in range(1, self.plan.num_runs + 1)]
        return case_from_records(
            state.planned.entry, state.case.eval_id, records, self.confidence, run_id=self.run_id
        )

    def _result(
        self,
        states: dict[tuple[int, str], _CaseState],
        finished: dict[tuple[int, str], CaseResult],
        summary: SummaryBuilder,
    ) -> RunResult:
        interrupted = self.stopped_by is not None or self.failed is not None
        by_set: dict[int, list[CaseResult]] = {}
        for key, state in states.items():
            case = finished.get(key)
            if case is None:
                case = self._case_result(state)
                summary.add(case)
            by_set.setdefault(state.planned.index, []).append(case)
        judge = self.judge
        judged = {e.name for s in self.plan.sets for e in s.entries if e.requires_judge}
        run_summary = summary.build(
            judge_by_criterion={
                n: a for n in judged if judge is not None and (a := judge.activity(n)) is not None
            },
            judge=judge.activity() if judge is not None else None,
            user_simulator=judge.activity(USER_SIMULATOR_ACTIVITY) if judge is not None else None,
        )
        eval_sets = [
            EvalSetResult(
                eval_set_id=s.eval_set.eval_set_id,
                source=str(s.source) if s.source is not None else None,
                cases=by_set.get(s.index, []),
            )
            for s in self.plan.sets
        ]
        return RunResult(
            engine_version=__version__,
            summary=run_summary,
            eval_sets=eval_sets,
            warnings=list(self.plan.warnings),
            interrupted=interrupted,
            run_id=self.run_id if self.writer is not None else None,
        )

    def _finish_record(self, result: RunResult, *, recorded: int) -> None:
        """Write ``summary.json`` and the final manifest (state, end time, exit code)."""
        if self.writer is None:
            return
        if self.failed is not None:
            state, code = RunState.FAILED, 1
        elif self.stopped_by is not None:
            state, code = RunState.INTERRUPTED, SIGNAL_EXIT_CODES.get(self.stopped_by, 130)
        else:
            state, code = RunState.COMPLETE, 0 if result.passed else 1
        manifest = self.writer.manifest
        manifest.state = state
        manifest.finished_at = utc_now()
        manifest.stopped_by = self.stopped_by
        manifest.exit_code = code
        manifest.error = self.failed
        document = SummaryDocument(
            run_id=self.run_id,
            state=state,
            summary=result.summary,
            cases_recorded=recorded,
            cases_planned=self.plan.case_count,
        )
        try:
            self.writer.write_summary(document)
            self.writer.write_manifest()
        except RecordingError as exc:
            self.failed = self.failed or str(exc)
        finally:
            self.writer.close()


@dataclass(frozen=True)
class _Missing:
    """A run that one of several ``--actual`` sources lacks for this case."""

    run_index: int
    available: int


@contextlib.contextmanager
def _loaded_data_frozen() -> Iterator[None]:
    """Keep the garbage collector off the eval data during a run.

    The loaded eval sets are hundreds of thousands of long-lived objects without cycles;
    every full collection during a run would walk them all again. ``gc.freeze`` sets them
    aside for the run and ``gc.unfreeze`` returns them afterwards. Skipped when the host
    application froze objects itself, so that its freeze is never undone.
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
