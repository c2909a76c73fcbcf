"""Running the agent under test to get each case's actual invocations.

Fixed conversations replay each expected ``user_content`` in order (ADK's behaviour).
Conversation scenarios are played with a user simulator when ``run_agent`` is given one
(``user_simulator``): the scenario's ``starting_prompt`` first, verbatim, then the
simulator's messages until it stops, gives no message, or ``max_allowed_invocations`` is
reached (see ``agenteval.plugins.UserSimulator``). Without one they are reported as
``no_user_simulator``.

Cases run concurrently up to a bound; each agent turn has a timeout, in wall time. A case
whose agent raised (any exception, ``SystemExit`` and ``KeyboardInterrupt`` raised by the
agent included) or timed out, or whose simulator failed, gets an ``AgentFailure`` instead
of invocations: its criteria are then ERRORED with that error, and the other cases go on.
Only a cancellation (the run being interrupted) passes through.

A case whose first turns are history (``EvalCase.context_turns``) is played from the first
turn after it, on a session the adapter started with that history (``Agent.takes_history``);
its actual invocations are the history as recorded, then the agent's turns. An adapter that
cannot take history does not run it: ``history_unsupported``, NOT_EVALUATED.

What the agent prints while its case runs is captured (``agenteval._agents._capture``) and
returned with the case: ``AgentTurns.output`` or ``AgentFailure.output``. Failure messages,
tracebacks and output are scrubbed of credential values (``agenteval.plugins.scrub_secrets``). With
``isolation="process"`` each case runs in a worker process that is killed on a timeout or
when it dies (``agenteval._agents.ProcessIsolatedAgent``).

A timed-out call that the adapter could neither finish nor stop is left running in this
process (``AgentSession.left_behind``), where it may go on costing the run (a thread that
spins takes its share of the interpreter lock). So after the first one, the agent's later
cases run in worker processes (``moved_to_workers``), when its adapter can run there: the
case's failure says so, and one warning is logged (``agenteval.agents``).
"""

from __future__ import annotations

import asyncio
import atexit
import dataclasses
import logging
import threading
import time
import traceback
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Optional, TypeVar, Union

from .._secrets import scrub_secrets
from ..errors import AgentBaseException
from ..models import Content, EvalCase, Invocation
from ._capture import Capture, capturing, repair_std_streams
from ._contract import Agent, AgentCrashed, AgentSession
from ._isolation import ProcessIsolatedAgent, RemoteAgentError
from ._simulator import NextUserMessage, SimulationContext, SimulatorStatus, UserSimulator, UserSimulatorError

__all__ = [
    "AgentBaseException",
    "AgentFailure",
    "AgentTurns",
    "Isolation",
    "SimulatedConversation",
    "run_agent",
    "moved_to_workers",
    "run_case",
    "stray_threads",
]

T = TypeVar("T")
#: How agent calls are isolated from the run: ``"none"`` (in this process; an adapter
#: may still use threads) or ``"process"`` (worker processes that can be killed).
Isolation = Literal["none", "process"]

#: Makes the simulator of one conversation; ``None`` means "no simulator for this case".
SimulatorFactory = Callable[[EvalCase], Optional[UserSimulator]]

_logger = logging.getLogger("agenteval.agents")
#: Agents that left a call running, and the worker processes their later cases run in
#: (``None``: their adapter cannot run there). Kept for the process's life; the workers are
#: killed when it exits.
_MOVED: dict[Agent, Optional[ProcessIsolatedAgent]] = {}


def moved_to_workers(agent: Agent) -> Optional[ProcessIsolatedAgent]:
    """The worker processes ``agent``'s cases run in since one of its calls was left
    running (see the module docstring), or ``None``."""
    return _MOVED.get(agent)


def _move_to_workers(agent: Agent, failure: AgentFailure) -> AgentFailure:
    """After ``failure`` left something running: later cases of ``agent`` go to worker
    processes when they can; ``failure``'s message says what was done."""
    if isinstance(agent, ProcessIsolatedAgent) or not failure.left_behind or agent in _MOVED:
        return failure
    problem = ProcessIsolatedAgent.unavailable_for(agent)
    isolated = None if problem is not None else ProcessIsolatedAgent(agent)
    _MOVED[agent] = isolated
    if isolated is not None:
        atexit.register(isolated.kill_workers)
        done = (
            "the agent's later cases run in worker processes (as with --agent-isolation process), "
            "so what this call left running costs them nothing"
        )
    else:
        done = f"the agent's later cases stay in this process: {problem}"
    left = failure.left_behind[0]
    _logger.warning("warning: an agent call that timed out was left running (%s); %s", left, done)
    return dataclasses.replace(failure, message=f"{failure.message}; {done}")


@dataclass(frozen=True)
class AgentFailure:
    """Why a case has no actual invocations.

    Attributes:
        message: what happened (one line, then details).
        code: ``agent_error``, ``agent_timeout``, ``agent_crashed`` (an isolated worker
            process died), ``user_simulator_error``, ``no_user_simulator`` or
            ``history_unsupported`` (the case starts with history the adapter cannot take).
        traceback: the agent's traceback, if any.
        output: what the agent printed during the case (stdout and stderr, at most
            ``OUTPUT_LIMIT`` characters, with agenteval's notes in ``[agenteval: ...]``).
        left_behind: what a timed-out call left running (``"thread agenteval-agent-3
            (respond)"``): abandoned, it does not keep the run from ending.
    """

    message: str
    code: str
    traceback: str = ""
    output: str = ""
    left_behind: tuple[str, ...] = ()


class AgentTurns(list):  # list[Invocation]
    """A case's actual invocations: a plain list of ``Invocation``, plus ``output``,
    what the agent printed during the case (as ``AgentFailure.output``)."""

    def __init__(self, invocations: Sequence[Invocation] = (), output: str = "") -> None:
        super().__init__(invocations)
        self.output = output


class SimulatedConversation(AgentTurns):
    """The invocations of a conversation played with a user simulator: a plain list of
    ``Invocation`` (usable wherever actual invocations are), plus how it ended.

    Attributes:
        status: why the simulator stopped (``STOP_SIGNAL_DETECTED``,
            ``TURN_LIMIT_REACHED``, ``NO_MESSAGE_GENERATED``).
        details: the simulator's ``describe()`` (prompt version and hash, model...), the
            ``status``, the ``run_index`` and each simulator answer's own ``details``
            (``messages``).
        output: what the agent printed (see ``AgentTurns``).
    """

    def __init__(
        self,
        invocations: Sequence[Invocation],
        status: SimulatorStatus,
        details: dict[str, Any],
        output: str = "",
    ) -> None:
        super().__init__(invocations, output)
        self.status = status
        self.details = details


async def _guarded(awaitable: Awaitable[T]) -> T:
    """Await an agent's coroutine; its ``BaseException`` (other than a cancellation)
    comes out as ``AgentBaseException`` (asyncio would otherwise stop the event loop)."""
    try:
        return await awaitable
    except (asyncio.CancelledError, GeneratorExit):
        raise
    except Exception:
        raise
    except BaseException as exc:  # noqa: BLE001 - SystemExit, KeyboardInterrupt or custom, raised by the agent
        raise AgentBaseException(exc) from None


class _Stop(Exception):
    """Ends a case early with ``failure`` (internal)."""

    def __init__(self, failure: AgentFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def _trace(exc: BaseException) -> str:
    if isinstance(exc, RemoteAgentError):
        return exc.remote_traceback
    if isinstance(exc, AgentBaseException):
        exc = exc.original
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def _raised(exc: BaseException) -> str:
    """``SystemExit: 3`` for what the agent raised."""
    if isinstance(exc, RemoteAgentError):
        return exc.description
    if isinstance(exc, AgentBaseException):
        exc = exc.original
    return f"{type(exc).__name__}: {exc}"


def _session_output(opened: list[AgentSession]) -> str:
    """What the case's session (if one was opened) captured itself (a worker's output)."""
    if not opened:
        return ""
    try:
        return str(opened[0].output() or "")
    except Exception:  # noqa: BLE001 - a report about the agent must not fail the case twice
        return ""


def _after_timeout(session: Optional[AgentSession], report: str) -> tuple[str, ...]:
    """``session.left_behind()`` or ``session.stopped()`` (``report``), safely."""
    if session is None:
        return ()
    try:
        return tuple(getattr(session, report)())
    except Exception:  # noqa: BLE001 - a report about the agent must not fail the case twice
        return ()


_NO_SIMULATOR = AgentFailure(
    "this case is a conversation scenario: it needs a user simulator to play the user, and none "
    "was given; give its actual invocations with --actual",
    "no_user_simulator",
)


def _no_history(agent: Agent, case: EvalCase) -> AgentFailure:
    """Why a case that starts with history is not run by an adapter that cannot take it."""
    kind = agent.description or type(agent).__name__
    msg = (
        f"this case's first {case.context_turns} turn(s) are history (context, such as a dataset's "
        f"conversation_history) that the agent must have had before the judged turn(s), and the "
        f"agent adapter ({kind}) cannot start a conversation with history; it was not run. Use an "
        "adapter that takes history (python, http, adk), or give the case's actual invocations "
        "with --actual"
    )
    return AgentFailure(msg, "history_unsupported")


async def _send(session: AgentSession, content: Content, number: int, timeout: float) -> Invocation:
    """One agent turn; ``_Stop`` on a timeout or a malformed answer (a crash propagates).

    When the adapter did not time the turn, its ``creation_timestamp`` and ``duration``
    (wall-clock seconds, rounded to ms, as ADK records them) are filled in here."""
    started_at, clock = time.time(), time.monotonic()
    try:
        invocation = await asyncio.wait_for(_guarded(session.turn(content)), timeout)
    except asyncio.TimeoutError:
        left, stopped = _after_timeout(session, "left_behind"), _after_timeout(session, "stopped")
        behind = f"; left running: {', '.join(left)}" if left else ""
        behind += f"; stopped: {', '.join(stopped)}" if stopped else ""
        msg = f"turn {number}: the agent did not answer within {timeout:g} s{behind}"
        raise _Stop(AgentFailure(msg, "agent_timeout", left_behind=left)) from None
    if not isinstance(invocation, Invocation):
        kind = type(invocation).__name__
        msg = f"turn {number}: the adapter returned {kind}, not an Invocation"
        raise _Stop(AgentFailure(msg, "agent_error"))
    timing = {}
    if invocation.duration is None:
        timing["duration"] = round(time.monotonic() - clock, 3)
    if not invocation.creation_timestamp:
        timing["creation_timestamp"] = started_at
    return invocation.model_copy(update=timing) if timing else invocation


async def _ask(simulator: UserSimulator, ctx: SimulationContext) -> NextUserMessage:
    """The simulator's next message; ``_Stop`` with ``user_simulator_error`` on failure."""
    where = f"turn {ctx.turn}: the user simulator"
    try:
        answer = await simulator.next_message(ctx)
    except UserSimulatorError as exc:
        raise _Stop(AgentFailure(f"{where} failed: {exc}", "user_simulator_error", _trace(exc))) from exc
    except Exception as exc:  # a simulator's crash is this case's result; the run goes on
        msg = f"{where} raised {type(exc).__name__}: {exc}"
        raise _Stop(AgentFailure(msg, "user_simulator_error", _trace(exc))) from exc
    if not isinstance(answer, NextUserMessage):
        kind = type(answer).__name__
        raise _Stop(AgentFailure(f"{where} returned {kind}, not a NextUserMessage", "user_simulator_error"))
    return answer


async def _play_fixed(
    session: AgentSession, case: EvalCase, turns: list[Invocation], timeout: float
) -> list[Invocation]:
    """The case's turns after its history (which the session started with), each sent in
    order; the actual invocations are the history as recorded, then the agent's turns."""
    assert case.conversation is not None
    turns.extend(case.history())
    for index in range(case.context_turns, len(case.conversation)):
        turns.append(await _send(session, case.conversation[index].user_content, index + 1, timeout))
    return turns


async def _play_scenario(
    session: AgentSession,
    case: EvalCase,
    simulator: UserSimulator,
    turns: list[Invocation],
    timeout: float,
    run_index: int,
) -> SimulatedConversation:
    scenario = case.conversation_scenario
    assert scenario is not None
    limit = simulator.config.max_allowed_invocations
    answers: list[NextUserMessage] = []
    message = Content.from_text(scenario.starting_prompt, role="user")
    while True:
        turns.append(await _send(session, message, len(turns) + 1, timeout))
        if limit != -1 and len(turns) >= limit:
            status = SimulatorStatus.TURN_LIMIT_REACHED
            break
        answer = await _ask(simulator, SimulationContext(case, scenario, tuple(turns), run_index))
        answers.append(answer)
        if answer.status is not SimulatorStatus.SUCCESS:
            status = answer.status
            break
        assert answer.content is not None
        message = answer.content
    details = {
        **simulator.describe(),
        "status": status.value,
        "run_index": run_index,
        "messages": [dict(a.details) for a in answers],
    }
    return SimulatedConversation(turns, status, details)


async def run_case(
    agent: Agent,
    case: EvalCase,
    *,
    timeout: float = 300.0,
    user_simulator: Optional[SimulatorFactory] = None,
    run_index: int = 0,
) -> Union[AgentTurns, AgentFailure]:
    """One run of the agent on one case: its actual invocations, or why there are none.

    Never raises for the agent's or the simulator's faults, ``BaseException``s the agent
    raises included: they become an ``AgentFailure`` (``agent_error``, ``agent_timeout``,
    ``agent_crashed``, ``user_simulator_error``, ``no_user_simulator``,
    ``history_unsupported``); only a cancellation passes through. Each agent call (opening
    the session, each turn) is bounded by ``timeout`` seconds of wall time. ``run_index``
    (from 0) is what the simulator sees. What the agent prints is captured into the result's
    ``output``. For calls that must be killable, wrap the agent in ``ProcessIsolatedAgent``
    first.
    """
    if case.conversation is None and user_simulator is None:
        return _NO_SIMULATOR
    agent = _MOVED.get(agent) or agent
    if case.context_turns and not agent.takes_history:
        return _no_history(agent, case)
    opened: list[AgentSession] = []
    with capturing() as capture:
        outcome = await _run_case(agent, case, timeout, user_simulator, run_index, capture, opened)
    output = scrub_secrets(_session_output(opened) + capture.text())
    if isinstance(outcome, AgentFailure):
        outcome = _move_to_workers(agent, outcome)
        return dataclasses.replace(
            outcome,
            message=scrub_secrets(outcome.message),
            traceback=scrub_secrets(outcome.traceback),
            output=output,
        )
    outcome.output = output
    return outcome


async def _run_case(
    agent: Agent,
    case: EvalCase,
    timeout: float,
    user_simulator: Optional[SimulatorFactory],
    run_index: int,
    capture: Capture,
    opened: list[AgentSession],
) -> Union[AgentTurns, AgentFailure]:
    scenario = case.conversation is None
    turns: list[Invocation] = []
    session: Optional[AgentSession] = None
    simulator: Optional[UserSimulator] = None
    try:
        if scenario:
            assert user_simulator is not None
            try:
                simulator = user_simulator(case)
            except Exception as exc:  # noqa: BLE001 - reported as this case's failure
                msg = f"the user simulator could not be made: {type(exc).__name__}: {exc}"
                return AgentFailure(msg, "user_simulator_error", _trace(exc))
            if simulator is None:
                return _NO_SIMULATOR
        try:
            if isinstance(agent, ProcessIsolatedAgent):  # a worker's start is not the agent's time
                session = await _guarded(agent.session(case, timeout=timeout))
            else:
                session = await asyncio.wait_for(_guarded(agent.session(case)), timeout)
        except asyncio.TimeoutError:
            return AgentFailure(f"the agent's session did not start within {timeout:g} s", "agent_timeout")
        opened.append(session)
        if simulator is not None:
            return await _play_scenario(session, case, simulator, turns, timeout, run_index)
        return AgentTurns(await _play_fixed(session, case, turns, timeout))
    except _Stop as stop:
        return stop.failure
    except AgentCrashed as exc:  # an isolated worker process died
        return AgentFailure(f"turn {len(turns) + 1}: {exc}", "agent_crashed")
    except Exception as exc:  # noqa: BLE001 - the agent's crash is this case's result; the run goes on
        msg = f"turn {len(turns) + 1}: the agent raised {_raised(exc)}"
        return AgentFailure(msg, "agent_error", _trace(exc))
    finally:
        repair_std_streams(capture)
        for closing in (session, simulator):
            if closing is not None:
                try:  # bounded too: a close that hangs must not hold the run
                    await asyncio.wait_for(_guarded(closing.aclose()), timeout)
                except (Exception, asyncio.TimeoutError):  # noqa: BLE001 - closing must not hide the outcome
                    pass


async def _one_case(
    agent: Agent,
    case: EvalCase,
    limit: asyncio.Semaphore,
    timeout: float,
    user_simulator: Optional[SimulatorFactory],
    run_index: int,
) -> Union[AgentTurns, AgentFailure]:
    if case.conversation is None and user_simulator is None:
        return _NO_SIMULATOR
    async with limit:
        return await run_case(
            agent, case, timeout=timeout, user_simulator=user_simulator, run_index=run_index
        )


async def run_agent(
    agent: Agent,
    cases: Sequence[EvalCase],
    *,
    concurrency: int = 4,
    timeout: float = 300.0,
    user_simulator: Optional[SimulatorFactory] = None,
    isolation: Isolation = "none",
) -> list[Union[AgentTurns, AgentFailure]]:
    """Each case's actual invocations (or why there are none), in the order of ``cases``.

    Args:
        concurrency: how many cases run at once.
        timeout: seconds (wall time) for the agent's session to start and for each agent
            turn (the simulator's model calls have the judge service's own timeouts).
        user_simulator: makes the simulator of each conversation-scenario case
            (``agenteval._agents.user_simulator_factory``); when it is ``None`` or returns
            ``None`` for a case, that case is an ``AgentFailure`` ``no_user_simulator``.
        isolation: ``"process"`` runs each case's session in a worker process that is
            killed on a timeout (``ProcessIsolatedAgent``; the workers are stopped at the
            end); ``"none"`` runs the adapter in this process.

    A case object listed k times is run k times; its i-th listing is run ``i`` (from 0),
    which the simulator sees as ``run_index``. A scenario case's invocations are a
    ``SimulatedConversation`` (a list that also says how the conversation ended).
    """
    if isolation == "process":
        isolated = ProcessIsolatedAgent(agent)
        try:
            return await run_agent(
                isolated, cases, concurrency=concurrency, timeout=timeout, user_simulator=user_simulator
            )
        finally:
            await isolated.aclose()
    limit = asyncio.Semaphore(max(1, concurrency))
    seen: dict[int, int] = {}
    runs = []
    for case in cases:
        runs.append(seen.get(id(case), 0))
        seen[id(case)] = runs[-1] + 1
    return list(
        await asyncio.gather(
            *(
                _one_case(agent, case, limit, timeout, user_simulator, run_index)
                for case, run_index in zip(cases, runs, strict=True)
            )
        )
    )


def stray_threads() -> list[threading.Thread]:
    """Non-daemon threads still running besides the main thread: started by an agent
    and never ended, they would keep the interpreter from exiting. A CLI that finds any
    after writing its report should flush its output and leave with ``os._exit``."""
    main = threading.main_thread()
    return [t for t in threading.enumerate() if t is not main and t.is_alive() and not t.daemon]
