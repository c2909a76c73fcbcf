"""``EvalRun``: the one owner of a run and its stages.

    plan ──▶ acquire ──▶ score ──▶ record
    (Plan)   (agent or    (criteria   (results.jsonl line,
              recorded     under the   summary, progress)
              turns)       limits)

The plan is made before (``agenteval._run._planners``): every input checked, every criterion
resolved, the judges and the agent preflighted. ``EvalRun.execute`` then takes each
case × run through acquire → score → record as one unit of work, under one bound on the
units in flight, so a finished case is on disk a moment after it finishes, memory is
bounded by what is in flight, and an interruption loses only what was in flight.

Under ``--num-runs auto`` (``Plan.looks``) a case gets the runs of its first look; when
they are recorded its verdict is checked (``runs.auto_runs_needed``, the rule readers of
the folder apply too), and an undecided case gets the runs up to its next look while the
``--run-budget`` allows (every case not yet started keeps its first look reserved).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import signal
import threading
import time
from collections.abc import Coroutine, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Protocol

from .._agents import USER_SIMULATOR_ACTIVITY, run_case
from .._auto_runs import RunBudget
from .._gc import data_frozen
from .._judging import JudgeService
from .._results import (
    CaseResult,
    CriterionResult,
    EvalSetResult,
    RunResult,
)
from .._verdicts import SummaryBuilder
from .._version import __version__
from ..errors import AgentEvalError, RecordingError
from ..models import EvalCase
from ..runs import (
    CaseRecord,
    RecordedRun,
    RunState,
    RunWriter,
    SummaryDocument,
    auto_runs_needed,
    case_from_records,
    utc_now,
)
from ..runs._adk_history import adk_history_documents, write_adk_history
from ..runs._briefs import brief_from_result
from ..runs._index import preview_of
from ..runs._records import record_line
from . import _ahead
from ._executor import DEFAULT_EXECUTOR, Executor, ExecutorContext, LocalExecutor, WorkUnit
from ._plan import Plan, PlannedSet
from ._progress import Progress, SilentProgress
from ._recorded import RecordedTurns, built_turns
from ._scoring import Preparation, score_run
from ._unit import Missing, case_record, one_run_case

__all__ = ["DEFAULT_CONCURRENCY", "EvalRun", "SIGNAL_EXIT_CODES"]

DEFAULT_CONCURRENCY = 16

#: The exit code of a run stopped by each signal (128 + the signal number), or by its own
#: time limit (``--timeout``: 124, as GNU ``timeout``).
SIGNAL_EXIT_CODES = {"SIGINT": 130, "SIGTERM": 143, "SIGHUP": 129, "timeout": 124}

#: How long in-flight work may take to wind down after an interruption.
_WIND_DOWN_SECONDS = 1.5

#: Units run in a row without a turn of the event loop when no unit waits (recorded turns
#: under synchronous criteria): between batches a signal, ``--timeout`` or progress is seen.
_INLINE_BATCH = 32


class CaseSink(Protocol):
    """What takes each case's result as the case finishes."""

    def add(self, set_index: int, case_id: str, case: CaseResult) -> None:
        """``case``: the combined result of the case ``case_id`` of eval set ``set_index``."""

    def add_copies(self, set_index: int, case: CaseResult, case_ids: Sequence[str]) -> None:
        """For each id of ``case_ids``, a case equal to ``case`` but for its id (the cases an
        interruption left unstarted, in one step)."""


@dataclass
class _CaseState:
    """The runs of one case finished so far."""

    planned: PlannedSet
    case: EvalCase
    runs: dict[int, CaseRecord] = field(default_factory=dict)
    #: The runs the case is to have by now (all of them, or its current look's).
    target: int = 1

    @property
    def key(self) -> tuple[int, str]:
        return (self.planned.index, self.case.eval_id)


@dataclass
class _Book:
    """What the run has finished so far: the summary, the finished cases' keys, their
    results (only when kept), the cases in progress, and what ADK's eval history needs."""

    summary: SummaryBuilder = field(default_factory=SummaryBuilder)
    done: set[tuple[int, str]] = field(default_factory=set)
    finished: dict[tuple[int, str], CaseResult] = field(default_factory=dict)
    active: dict[tuple[int, str], _CaseState] = field(default_factory=dict)
    history: list[tuple[Any, CaseRecord, list[CriterionResult], Any]] = field(default_factory=list)


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
        keep_results: return every case's result from ``execute`` (``False``: the result
            has the summary and no case results, and memory stays bounded by the cases in
            flight; read the cases back from the run folder).
        fail_on_inconclusive: a run whose cases all passed but some tri-state verdict is
            INCONCLUSIVE records exit code 3 (``--fail-on-inconclusive``), not 0.
        set_verdict: the eval sets' verdict rule (``statistics.set_verdict``: ``holm``,
            ``any-case`` or ``mean``; ``agenteval._stats.set_verdict``), recorded in the manifest.
        executor: what runs the units (default: ``LocalExecutor``, in this process); the
            driver still writes every record (``agenteval._run._executor``).
        executor_info: the executor's name, distribution and version, for the manifest.
        context: what the executor may need to run units elsewhere (the request).
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
        keep_results: bool = True,
        fail_on_inconclusive: bool = False,
        set_verdict: str = "holm",
        executor: Optional[Executor] = None,
        executor_info: Optional[dict[str, str]] = None,
        context: Optional[ExecutorContext] = None,
    ) -> None:
        self.plan = plan
        self.executor = executor if executor is not None else LocalExecutor()
        self.executor_info = executor_info or {
            "name": DEFAULT_EXECUTOR,
            "distribution": "agenteval-engine",
            "version": __version__,
        }
        self._context = context or ExecutorContext(plan)
        self._worker_lanes: Optional[_Lanes] = None
        self.set_verdict = set_verdict
        self.keep_results = keep_results
        self.fail_on_inconclusive = fail_on_inconclusive
        needs_judge = any(c.info.requires_judge for s in plan.sets for c in s.criteria)
        self.judge = judge if judge is not None else (JudgeService() if needs_judge else None)
        self.concurrency = max(1, concurrency)
        self.agent_concurrency = max(1, agent_concurrency)
        #: Units admitted for judge criteria's calls (0 without judge criteria).
        self._judge_lane = self.judge.concurrency if needs_judge and self.judge is not None else 0
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
        #: The level of each case's verdict (each look's share under ``--num-runs auto``).
        self.case_confidence = plan.case_confidence(confidence)
        #: Agent runs recorded or started, and those kept for cases not started yet, against
        #: ``--run-budget`` (``agenteval._auto_runs``).
        self.budget = RunBudget(plan.run_budget)
        #: Given each case's result as the case finishes (e.g. the JSON report's
        #: ``CaseSpool``: the report then reads no record back).
        self.case_sink: Optional[CaseSink] = None

    @property
    def units_in_flight(self) -> int:
        """The most case × run units started and not yet recorded: enough for every lane to
        stay full. The evaluation slots (``concurrency``), twice the agent's (one unit running,
        one ready) and, with judge criteria, the judge's limit: a case that waits for its
        sampling's first answers before asking for more has nothing to ask meanwhile, so
        every judge slot needs a case of its own beside those. Memory is bounded by these
        units (a case, its actual turns, its results)."""
        return self.concurrency + self.agent_concurrency * 2 + self._judge_lane

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
        resumed = self._resumed_keys()
        self.progress.start(total=self.plan.case_count, done=0)
        book = _Book(summary=SummaryBuilder(self.confidence, self.run_id, self.set_verdict))
        with self._signals_handled(loop, handle_signals), data_frozen():
            self._task = asyncio.ensure_future(self._started(book, resumed, preparation))
            try:
                await self._task
            except asyncio.CancelledError:
                if self.stopped_by is None:  # cancelled from outside (e.g. the host's Ctrl-C)
                    self.stopped_by = "cancelled"
            except RecordingError as exc:
                self.failed = str(exc)
            except AgentEvalError as exc:  # an input that changed on disk during the run
                self.failed = str(exc)
            finally:
                if deadline is not None:
                    deadline.cancel()
                self._task = None
                self.progress.stop()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self.executor.aclose(), 5)
                if self.judge is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(self.judge.aclose(), 5)
                if self.plan.agent is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(self.plan.agent.aclose(), 5)
        result = self._result(book, resumed)
        self._finish_record(result, recorded=len(book.done))
        if self.adk_history is not None and not result.interrupted:
            self._write_adk_history(book)
        return result

    async def _started(
        self, book: _Book, resumed: dict[tuple[int, str], list[int]], preparation: Preparation
    ) -> None:
        """Start the executor (recording which one, with how many workers), then the work."""
        await self.executor.start(self._context)
        if self.writer is not None:
            self.writer.manifest.executor = {**self.executor_info, "workers": self.executor.workers}
        if self.executor_info.get("name", DEFAULT_EXECUTOR) != DEFAULT_EXECUTOR:
            self.progress.workers = self.executor.workers
        await self._work(book, resumed, preparation)

    def _write_adk_history(self, book: _Book) -> None:
        """Every case as ``adk eval`` records it (its first run's turns, the combined verdicts)."""
        assert self.adk_history is not None
        agent = self.plan.agent
        app = agent.adk_app() if agent is not None else None
        app_name = app[1] if app is not None else "agenteval"
        try:
            self.adk_history_written = write_adk_history(
                self.adk_history, adk_history_documents(app_name, book.history)
            )
        except OSError as exc:
            self.adk_history_error = (
                f"could not write ADK's eval history to {self.adk_history}: {exc.strerror or exc}"
            )

    def _resumed_keys(self) -> dict[tuple[int, str], list[int]]:
        """The run indices the run being resumed finished, by case (records are read per
        case when the run reaches it)."""
        found: dict[tuple[int, str], list[int]] = {}
        if self.resume_from is not None:
            for set_index, case_id, run_index in self.resume_from.keys():
                if run_index <= self.plan.num_runs:
                    found.setdefault((set_index, case_id), []).append(run_index)
        return found

    def _resumed_runs(self, key: tuple[int, str], resumed: dict[tuple[int, str], list[int]]) -> dict:
        """The finished records of the run being resumed for one case, taken as they are."""
        runs: dict[int, CaseRecord] = {}
        if self.resume_from is not None:
            for run_index in resumed.get(key, ()):
                record = self.resume_from.record((key[0], key[1], run_index))
                if record is not None:
                    runs[run_index] = record
        return runs

    async def _work(
        self, book: _Book, resumed: dict[tuple[int, str], list[int]], preparation: Preparation
    ) -> None:
        """Every unfinished case × run through the executor (see ``_Dispatch``)."""
        lanes = _Lanes(
            asyncio.Semaphore(self.concurrency), asyncio.Semaphore(self.agent_concurrency), preparation
        )
        await _Dispatch(self, book, lanes).walk(resumed)

    async def _unit_record(self, state: _CaseState, unit: WorkUnit, lanes: _Lanes) -> CaseRecord:
        """Acquire → score one unit in this process: its record."""
        run_index = unit.run_index
        outcome, origin = await self._acquire(state, run_index, lanes.agent_limit, unit.recorded)
        if lanes.unprepared is None:  # the first units: wait for the criteria's preparation
            async with lanes.prepared:
                if lanes.unprepared is None:
                    lanes.unprepared = await lanes.preparation.failures()
                    if self.strict and lanes.unprepared:
                        raise next(iter(lanes.unprepared.values()))
        results, duration = await self._scored(state, run_index, outcome, lanes)
        return case_record(
            self.run_id, state.planned, state.case, run_index, outcome, origin, results, duration
        )

    async def _scored(
        self, state: _CaseState, run_index: int, outcome: Any, lanes: _Lanes
    ) -> tuple[list[CriterionResult], float]:
        """Score one unit's outcome: the criteria's results and the seconds it took (the
        criteria's preparation is known by then: ``lanes.unprepared``)."""
        assert lanes.unprepared is not None
        started = time.perf_counter()
        scope = f"{state.planned.index}:{state.case.eval_id}" + (f"#run{run_index}" if run_index > 1 else "")
        results = await score_run(
            state.case,
            outcome if not isinstance(outcome, Missing) else None,
            state.planned.scored,
            limit=lanes.limit,
            strict=self.strict,
            judge=self.judge,
            scope=scope,
            unprepared=lanes.unprepared,
            point_verdicts=self.plan.num_runs == 1 and self.confidence is not None,
        )
        return results, time.perf_counter() - started

    def _scoring_helper(
        self, lanes: _Lanes, resumed: dict[tuple[int, str], list[int]]
    ) -> Optional[_ahead.ScoreAhead]:
        """A helper process scoring ahead (``agenteval._run._ahead``) when the run is one it
        serves (its criteria prepared, synchronous and installed; nothing resumed; a fixed
        number of runs of enough units) and a CPU is idle for it; else ``None``."""
        plan = self.plan
        if (
            resumed
            or plan.auto_runs
            or plan.case_count * plan.num_runs < _ahead.AHEAD_FROM_UNITS
            or not all(_ahead.installed(c.plugin) for s in plan.sets for c in s.criteria)
            or not _ahead.can_fork()
        ):
            return None
        sets = {s.index: s for s in plan.sets}

        def score(key: tuple[int, str, int]) -> _ahead.Scored:
            planned = sets[key[0]]
            state = _CaseState(planned, planned.case(key[1]))
            recorded = self._recorded(state, key[2])
            work = self._scored(state, key[2], recorded, lanes)
            try:
                work.send(None)
            except StopIteration as done:
                results, duration = done.value
            else:  # it waits after all: the driver scores it
                work.close()
                raise RuntimeError("a criterion waited")
            record = case_record(
                self.run_id, planned, state.case, key[2], recorded, "recorded", results, duration
            )
            return duration, results, record_line(record), preview_of(record)

        units = [(s.index, c, r) for s in plan.sets for c in s.case_ids for r in range(1, plan.num_runs + 1)]
        return _ahead.ScoreAhead(units, score)

    async def run_unit(self, unit: WorkUnit) -> CaseRecord:
        """One unit on its own, outside ``execute`` (an executor's worker, holding its own
        copy of the plan): its record, which the worker returns to the driver."""
        if self._worker_lanes is None:
            if self.judge is not None:
                self.judge.begin_run()
            preparation = Preparation([c.evaluator for s in self.plan.sets for c in s.criteria])
            self._worker_lanes = _Lanes(
                asyncio.Semaphore(self.concurrency), asyncio.Semaphore(self.agent_concurrency), preparation
            )
        planned = next(s for s in self.plan.sets if s.index == unit.eval_set_index)
        state = _CaseState(planned, planned.case(unit.case_id))
        if self.plan.agent is None and unit.recorded is None:
            unit = dataclasses.replace(unit, recorded=self._recorded(state, unit.run_index))
        return await self._unit_record(state, unit, self._worker_lanes)

    def _look(self, state: _CaseState, book: _Book, extend: Any) -> None:
        """The case has its target's runs: finish it, or (``--num-runs auto``, undecided)
        start the runs up to its next look."""
        target = self._next_target(state)
        if target <= len(state.runs):
            self._finish_case(state, book)
            return
        self.budget.used += target - len(state.runs)
        state.target = target
        extend(state)

    def _recorded(self, state: _CaseState, run_index: int, built: bool = True) -> Any:
        """This run's recorded turns, or ``Missing`` when no source has this run. Read when
        the run is started (not when its task runs), so that the run's files can let go of
        an eval set's ``--actual`` files once every case of the set has started. ``built=False``:
        turns a format reader builds when read are left to build (``built_turns``)."""
        recorded = self.plan.recorded
        assert isinstance(recorded, RecordedTurns)
        turns = recorded.run(state.key, run_index, built=built)
        return turns if turns is not None else Missing(run_index, recorded.runs(state.key))

    async def _acquire(
        self, state: _CaseState, run_index: int, agent_limit: asyncio.Semaphore, recorded: Any
    ) -> tuple[Any, str]:
        """This run's actual turns (or why there are none) and where they came from."""
        plan = self.plan
        if plan.agent is None:
            return recorded, "recorded"
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

    def _finish_case(self, state: _CaseState, book: _Book) -> None:
        """Count a case whose runs are all recorded; keep only what the run must return."""
        key = state.key
        case = self._case_result(state.planned, key[1], state.runs)
        book.done.add(key)
        book.active.pop(key, None)
        book.summary.add(case, state.planned.entry)
        if self.writer is not None and book.summary.set_complete(key[0]):
            self.writer.append_set_summary(key[0], book.summary.set_state(key[0]))
        if self.writer is not None and self.plan.num_runs != 1:
            records = [state.runs[i] for i in sorted(state.runs)]
            self.writer.append_brief(brief_from_result(state.planned.entry, 0, case, records), case)
        if self.keep_results:
            book.finished[key] = case
        if self.case_sink is not None:
            self.case_sink.add(key[0], key[1], case)
        if self.adk_history is not None and 1 in state.runs:
            book.history.append((state.planned.entry, state.runs[1], case.criteria, case.status))
        self.progress.case_done(case.status)

    def _case_result(
        self, planned: PlannedSet, case_id: str, runs: dict[int, CaseRecord], *, finished: bool = True
    ) -> CaseResult:
        """A case's result from its runs' records: the rule a re-read run folder applies
        (under ``--num-runs auto``, a finished case has the runs it needed; an unfinished one
        lacks the rest of its current look)."""
        if self.plan.num_runs == 1 and not self.plan.auto_runs and 1 in runs:  # its one run, as recorded
            return one_run_case(planned.entry, case_id, runs[1], self.case_confidence)
        records = [runs.get(run_index) for run_index in range(1, self.plan.num_runs + 1)]
        if self.plan.auto_runs:
            records = records[: len(runs)] if finished else records[: self._needed(planned, case_id, records)]
        return case_from_records(planned.entry, case_id, records, self.case_confidence, run_id=self.run_id)

    def _needed(self, planned: PlannedSet, case_id: str, records: list) -> int:
        """``--num-runs auto``: how many runs the case needs by now (``auto_runs_needed``)."""
        return auto_runs_needed(
            planned.entry, case_id, records, self.plan.looks, self.case_confidence, run_id=self.run_id
        )

    def _next_target(self, state: _CaseState) -> int:
        """The runs the case is to have now: all of them in a fixed run; under ``--num-runs
        auto`` its current look's, or what it has when it is decided, at its last look, or
        the budget cannot pay for the next look (it then stops: the case is finished)."""
        if not self.plan.auto_runs:
            return self.plan.num_runs
        have = len(state.runs)
        records = [state.runs.get(i) for i in range(1, self.plan.num_runs + 1)]
        return self.budget.next_target(have, self._needed(state.planned, state.case.eval_id, records))

    def _result(self, book: _Book, resumed: dict[tuple[int, str], list[int]]) -> RunResult:
        """The run's result; a case that did not finish (interrupted) is NOT_EVALUATED with
        whatever runs it has."""
        interrupted = self.stopped_by is not None or self.failed is not None
        summary = book.summary
        by_set: dict[int, list[CaseResult]] = {}
        for planned in self.plan.sets:
            # Cases of one run that never started differ only by their id: the first one's
            # result is made, and the others are counted as its copies in one step.
            unstarted: Optional[CaseResult] = None
            copies: list[str] = []
            for case_id in planned.case_ids:
                key = (planned.index, case_id)
                case = book.finished.get(key)
                if key not in book.done:
                    state = book.active.get(key)
                    if state is not None:
                        runs = state.runs
                    else:  # never started: a resumed run's records, if any (most have none)
                        runs = self._resumed_runs(key, resumed) if key in resumed else {}
                    if runs or self.plan.num_runs != 1 or unstarted is None:
                        case = self._case_result(planned, case_id, runs, finished=False)
                        summary.add(case, planned.entry)
                        if self.case_sink is not None:
                            self.case_sink.add(planned.index, case_id, case)
                        if not runs and self.plan.num_runs == 1:
                            unstarted = case
                    else:
                        copies.append(case_id)
                        if not self.keep_results:
                            continue
                        case = unstarted.model_copy(update={"eval_id": case_id})
                if self.keep_results and case is not None:
                    by_set.setdefault(planned.index, []).append(case)
            if unstarted is not None and copies:
                summary.add_copies(unstarted, planned.entry, copies)
                if self.case_sink is not None:
                    self.case_sink.add_copies(planned.index, unstarted, copies)
        judge = self.judge
        judged = {e.name for s in self.plan.sets for e in s.entries if e.requires_judge}
        run_summary = summary.build(
            judge_by_criterion={
                n: a for n in judged if judge is not None and (a := judge.activity(n)) is not None
            },
            judge=judge.activity() if judge is not None else None,
            user_simulator=judge.activity(USER_SIMULATOR_ACTIVITY) if judge is not None else None,
            prices=self.plan.judge_prices,
            budget=judge.budget_info() if judge is not None else None,
        )
        eval_sets = [
            EvalSetResult(
                eval_set_id=s.eval_set_id,
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
            if code == 0 and self.fail_on_inconclusive and result.summary.inconclusive():
                code = 3  # the CLI's ExitCode.INCONCLUSIVE
        manifest = self.writer.manifest
        if manifest.executor is not None:
            manifest.executor.update(self.executor.report())
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


class _Dispatch:
    """The units of one ``execute``: started case by case, in plan order, while fewer than
    ``units_in_flight`` are unrecorded; each recorded by the driver as it finishes. A case
    whose runs are all in is finished, or (``--num-runs auto``, undecided) extended to its
    next look. The first failure (strict mode, the run folder, a changed input) stops the
    run: nothing new starts, and it is raised once what is in flight has ended."""

    def __init__(self, run: EvalRun, book: _Book, lanes: _Lanes) -> None:
        self.run = run
        self.book = book
        self.lanes = lanes
        self.window = asyncio.Semaphore(run.units_in_flight)
        self.tasks: set[asyncio.Task] = set()
        self.failure: list[BaseException] = []
        plan = run.plan
        #: Units are run in the dispatch's own task, each to its end unless it waits (see
        #: ``_drive``): recorded turns, synchronous criteria, this process's executor.
        self.inline = (
            plan.agent is None
            and type(run.executor) is LocalExecutor
            and not any(c.waits for s in plan.sets for c in s.criteria)
        )
        self._since_turn = 0
        #: the helper scoring ahead (``agenteval._run._ahead``), and the lines and index
        #: previews it gave of records not written yet
        self.ahead: Optional[_ahead.ScoreAhead] = None
        self.lines: dict[tuple[int, str, int], tuple[bytes, dict[str, str]]] = {}

    async def walk(self, resumed: dict[tuple[int, str], list[int]]) -> None:
        """Start every case (keeping the first look of those not started yet reserved
        against ``--run-budget``), then wait for every unit, the later looks' included."""
        run, plan = self.run, self.run.plan
        first_look = plan.looks[0] if plan.auto_runs else plan.num_runs
        run.budget.used = sum(len(found) for found in resumed.values())
        run.budget.reserved = sum(
            max(0, first_look - len(resumed.get((s.index, c), ()))) for s in plan.sets for c in s.case_ids
        )
        try:
            if self.inline:  # the units then find the criteria prepared without waiting
                unprepared = await self.lanes.preparation.failures()
                if not unprepared:  # what the first unit would find (a helper's units too)
                    self.lanes.unprepared = unprepared
                    with run.progress.paused():  # its thread stopped: a fork copies none
                        self.ahead = run._scoring_helper(self.lanes, resumed)
            await self._start_cases(resumed, first_look)
            while self.tasks:  # a look may start more runs while others finish
                await asyncio.gather(*list(self.tasks), return_exceptions=True)
        except asyncio.CancelledError:
            pending = [t for t in self.tasks if not t.done()]
            for task in pending:
                task.cancel()
            if pending and run._interrupts < 2:
                await asyncio.wait(pending, timeout=_WIND_DOWN_SECONDS)
            raise
        finally:
            if self.ahead is not None:
                self.ahead.close()
        if self.failure:
            raise self.failure[0]

    async def _start_cases(self, resumed: dict[tuple[int, str], list[int]], first_look: int) -> None:
        """Each case in plan order: finished at once when its resumed runs are enough, else
        its runs started (until the run must stop)."""
        run = self.run
        for planned in run.plan.sets:
            if run.plan.files is not None:
                run.plan.files.reached(planned.index)
            for case_id in planned.case_ids:
                key = (planned.index, case_id)
                runs = run._resumed_runs(key, resumed)
                # The case itself is read only now (the run's files keep what fits).
                state = _CaseState(planned, planned.case(case_id), runs)
                run.budget.reserved -= max(0, first_look - len(runs))
                state.target = run._next_target(state)
                if len(runs) >= state.target:
                    run._finish_case(state, self.book)
                    continue
                run.budget.used += state.target - len(runs)
                self.book.active[key] = state
                if not await self._start(state):
                    return

    async def _start(self, state: _CaseState) -> bool:
        """Start the case's unfinished runs up to its target; False once the run must stop."""
        for run_index in range(1, state.target + 1):
            if run_index in state.runs:
                continue
            await self.window.acquire()
            if self.failure:
                self.window.release()
                return False
            try:
                recorded = (
                    self.run._recorded(state, run_index, built=self.ahead is None)
                    if self.run.plan.agent is None
                    else None
                )
            except AgentEvalError as exc:  # its file changed on disk: stop, keep what finished
                self.window.release()
                self.failure.append(exc)
                return False
            work = self._unit(state, run_index, recorded)
            if not self.inline:
                self._spawn(work)
                continue
            self._drive(work)
            self._since_turn += 1
            if self._since_turn >= _INLINE_BATCH:
                self._since_turn = 0
                await asyncio.sleep(0)  # a turn of the loop: signals, the deadline
        return True

    def _drive(self, work: Coroutine[Any, Any, None]) -> None:
        """Run a unit here to its end when it never waits (no task, no turn of the loop for
        it: in order, as its task would have); one that waits goes on as a task from there.
        A unit's failure is in ``failure`` already (``_unit``), as a task's would be."""
        try:
            waiting_on = work.send(None)
        except StopIteration:
            return
        except Exception:  # noqa: BLE001 - recorded by _unit; the run stops on it
            return
        self._spawn(_Resumed(work, waiting_on))

    def _extend(self, state: _CaseState) -> None:
        """Start the runs of the case's next look (in their own task: this one holds a
        window slot that the new runs may need)."""
        self._spawn(self._start(state))

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _local(self, unit: WorkUnit) -> CaseRecord:
        state = self.book.active[unit.key[:2]]
        found = self.ahead.take(unit.key) if self.ahead is not None else None
        if found is None:
            if self.ahead is not None:  # its turns were left unbuilt (``_start``)
                unit = dataclasses.replace(unit, recorded=built_turns(unit.recorded))
            return await self.run._unit_record(state, unit, self.lanes)
        duration, results, line, preview = found
        self.lines[unit.key] = (line, preview)
        # Turns a format reader builds when read stay unbuilt in this record: the helper wrote
        # its line and index preview, and whatever reads them later builds them then.
        return case_record(
            self.run.run_id,
            state.planned,
            state.case,
            unit.run_index,
            unit.recorded,
            "recorded",
            results,
            duration,
            lazy=True,
        )

    async def _unit(self, state: _CaseState, run_index: int, recorded: Any) -> None:
        """One unit through the executor; its record written (once) and counted."""
        run = self.run
        try:
            unit = WorkUnit(state.planned.index, state.case.eval_id, run_index, recorded)
            record = await run.executor.run(unit, self._local)
            line, preview = self.lines.pop(unit.key, (None, None))
            if run_index in state.runs:
                return  # this unit's record is written already: never twice
            if record.run_id != run.run_id:  # a worker's record joins this run
                record = record.model_copy(update={"run_id": run.run_id})
            if run.writer is not None:
                run.writer.append(record, line, preview)
            state.runs[run_index] = record
            if len(state.runs) >= state.target:
                run._look(state, self.book, self._extend)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # strict mode, or the run folder failed: stop the run
            self.failure.append(exc)
            raise
        finally:
            self.window.release()


class _Resumed:
    """A coroutine that waited on its first step (``_Dispatch._drive``), awaited from there:
    what it waits on is handed to the task, what the task sends or throws to it."""

    def __init__(self, work: Coroutine[Any, Any, Any], waiting_on: Any) -> None:
        self._work = work
        self._waiting_on = waiting_on

    def __await__(self) -> Generator[Any, Any, Any]:
        work, waiting_on = self._work, self._waiting_on
        while True:
            try:
                sent = yield waiting_on
            except GeneratorExit:
                work.close()
                raise
            except BaseException as exc:  # noqa: BLE001 - handed on: cancellation, a failed wait
                try:
                    waiting_on = work.throw(exc)
                except StopIteration as stop:
                    return stop.value
                continue
            try:
                waiting_on = work.send(sent)
            except StopIteration as stop:
                return stop.value


@dataclass
class _Lanes:
    """The limits units run under in one process, and the criteria's preparation (awaited
    once, by the first unit that is scored)."""

    limit: asyncio.Semaphore
    agent_limit: asyncio.Semaphore
    preparation: Preparation
    prepared: asyncio.Lock = field(default_factory=asyncio.Lock)
    unprepared: Optional[dict[int, BaseException]] = None
