"""How the ``python`` adapter calls the user's function so that a call that never returns
costs its case, not the run.

* A synchronous function runs in a new daemon thread per call. Not a thread pool: a
  pool's shutdown joins a hung thread forever (what ``asyncio.to_thread`` does at the end
  of ``asyncio.run``), while an abandoned daemon thread never keeps the process alive.
* A call that times out is stopped: ``CallStopped`` is raised in its thread (a stuck agent
  loop's too), which ends a function busy in Python code (``while True: pass``) at once,
  so a spinning agent does not keep taking the interpreter lock from the run. A function
  blocked in C (``time.sleep``, a socket) gets it when it returns; until then its thread
  is abandoned and named in ``left_behind`` (it holds no lock while it waits).
* A coroutine function runs on the adapter's own event loop, in one daemon thread (the
  *agent loop*), shared by all calls so that clients bound to a loop keep working from one
  call to the next. A busy ``async def``, or one that calls ``time.sleep``, blocks the
  agent loop, not the engine's, so the engine's timeout still fires. An agent loop that has
  not run for ``STALL_SECONDS`` (seen when a call is cancelled or a new one starts) is
  stuck: it is abandoned (asked to stop when it wakes) and later calls get a new one; the
  calls already queued on it time out. When a stopped agent loop next gets control, the
  calls still on it are cancelled and given ``WIND_DOWN_SECONDS`` to end, and the loop is
  closed: no task is left to be "destroyed but pending" at exit. Agents that block their
  event loop are better run with process isolation.

Whatever the function raises, ``SystemExit`` and ``KeyboardInterrupt`` included, comes
back as an ordinary exception (``AgentBaseException`` for the non-``Exception`` ones).
Each thread runs in the caller's ``contextvars`` context, so the engine's per-case output
capture sees what the function prints. A cancelled call reports what it stopped
(``stopped``) and what it could not stop, left running (``left_behind``).
"""

from __future__ import annotations

import asyncio
import contextvars
import ctypes
import inspect
import itertools
import threading
import time
from collections.abc import Callable
from typing import Any, Optional

from agenteval.errors import AgentBaseException

__all__ = ["CallStopped", "FunctionCaller"]

#: An agent loop that has not run for this long when a call is cancelled is stuck.
STALL_SECONDS = 0.5
#: How long the calls left on a stopped agent loop may take to end once cancelled.
WIND_DOWN_SECONDS = 1.0
_HEARTBEAT_SECONDS = 0.05
#: How long a stopped call's thread is given to end before it is reported as left running.
_STOP_SECONDS = 0.5
_numbers = itertools.count(1)


class CallStopped(BaseException):
    """Raised in the thread of a call that timed out, to end it (see the module docstring)."""


async def _stop(thread: threading.Thread, what: str, reports: tuple[list[str], list[str]]) -> None:
    """Raise ``CallStopped`` in ``thread``; ``what`` goes to ``reports[1]`` (stopped) when it
    ended within ``_STOP_SECONDS``, else to ``reports[0]`` (left running). The engine's
    event loop runs meanwhile."""
    if thread.ident is None or not thread.is_alive():
        return
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(CallStopped))
    deadline = time.monotonic() + _STOP_SECONDS
    while thread.is_alive() and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    left_behind, stopped = reports
    (left_behind if thread.is_alive() else stopped).append(what)


class _AgentLoop:
    """An event loop running in a daemon thread, with a heartbeat to tell it is stuck."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.beat = time.monotonic()
        self.thread = threading.Thread(
            target=self._run, name=f"agenteval-agent-loop-{next(_numbers)}", daemon=True
        )
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(self._heartbeat)
        try:
            try:
                self.loop.run_forever()
            finally:
                self._wind_down()
        except CallStopped:  # stopped while in the loop's own code: it is being abandoned anyway
            pass

    def _wind_down(self) -> None:
        """Cancel the calls still on the stopped loop, let them end, close the loop."""
        loop = self.loop
        tasks = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in tasks:
            task.cancel()
        try:
            if tasks:
                loop.run_until_complete(asyncio.wait(tasks, timeout=WIND_DOWN_SECONDS))
            loop.run_until_complete(asyncio.wait_for(loop.shutdown_asyncgens(), WIND_DOWN_SECONDS))
        except BaseException:  # noqa: BLE001 - an agent's call that will not end is left to the exit
            pass
        for task in tasks:
            if not task.done():
                task._log_destroy_pending = False  # it ignored its cancellation: left to the exit
            elif not task.cancelled():
                task.exception()  # nobody waits for it any more: its outcome is not news
        loop.close()

    def _heartbeat(self) -> None:
        self.beat = time.monotonic()
        self.loop.call_later(_HEARTBEAT_SECONDS, self._heartbeat)

    @property
    def stalled_for(self) -> float:
        return time.monotonic() - self.beat

    def abandon(self) -> None:
        """Stop when it next gets control (a stuck loop may never)."""
        try:
            self.loop.call_soon_threadsafe(self.loop.stop)
        except RuntimeError:
            pass


def _as_exception(exc: BaseException) -> Exception:
    return exc if isinstance(exc, Exception) else AgentBaseException(exc)


async def _guard(awaitable: Any) -> Any:
    try:
        return await awaitable
    except (asyncio.CancelledError, GeneratorExit):  # the call is being stopped, not failing
        raise
    except BaseException as exc:  # noqa: BLE001 - the agent's, whatever it is, is its case's
        raise _as_exception(exc) from None


class FunctionCaller:
    """Calls one user function, sync or async, as described in the module docstring."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.name = getattr(function, "__qualname__", None) or repr(function)
        self._agent_loop: Optional[_AgentLoop] = None
        self._lock = threading.Lock()

    async def call(self, *args: Any, left_behind: list[str], stopped: Optional[list[str]] = None) -> Any:
        """The function's reply; a cancelled call adds what it stopped to ``stopped`` and
        what it could not stop, left running, to ``left_behind``."""
        reports = (left_behind, stopped if stopped is not None else [])
        if inspect.iscoroutinefunction(self.function):
            return await self._on_agent_loop(self.function, args, reports)
        reply = await self._in_thread(args, reports)
        if inspect.isawaitable(reply):
            return await self._on_agent_loop(lambda: reply, (), reports)
        return reply

    async def _in_thread(self, args: tuple[Any, ...], reports: tuple[list[str], list[str]]) -> Any:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = loop.create_future()
        context = contextvars.copy_context()

        def settle(ok: bool, value: Any) -> None:
            if not answer.done():
                answer.set_result(value) if ok else answer.set_exception(value)

        def work() -> None:
            try:
                try:
                    value, ok = context.run(self.function, *args), True
                except BaseException as exc:  # noqa: BLE001 - SystemExit and the like end the case only
                    value, ok = _as_exception(exc), False
                try:
                    loop.call_soon_threadsafe(settle, ok, value)
                except RuntimeError:  # the run's event loop is gone: nobody waits any more
                    pass
            except CallStopped:  # stopped as the call returned: nobody waits for it any more
                pass

        thread = threading.Thread(target=work, name=f"agenteval-agent-{next(_numbers)}", daemon=True)
        thread.start()
        try:
            return await answer
        except asyncio.CancelledError:
            await _stop(thread, f"thread {thread.name} ({self.name})", reports)
            raise

    def _loop(self) -> _AgentLoop:
        """The agent loop; a new one when the current one is stuck (calls already queued
        on a stuck loop wait for it, and time out)."""
        with self._lock:
            current = self._agent_loop
            if current is not None and current.stalled_for >= STALL_SECONDS:
                current.abandon()
                current = None
            if current is None:
                current = self._agent_loop = _AgentLoop()
            return current

    async def _on_agent_loop(
        self, function: Callable[..., Any], args: tuple[Any, ...], reports: tuple[list[str], list[str]]
    ) -> Any:
        agent_loop = self._loop()
        # The task made on the agent loop inherits this context (call_soon_threadsafe copies it).
        future = asyncio.run_coroutine_threadsafe(_guard(function(*args)), agent_loop.loop)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            if agent_loop.stalled_for >= STALL_SECONDS:
                with self._lock:
                    if self._agent_loop is agent_loop:
                        self._agent_loop = None
                agent_loop.abandon()
                what = f"event loop thread {agent_loop.thread.name} ({self.name}, blocked)"
                await _stop(agent_loop.thread, what, reports)
            raise

    def close(self) -> None:
        """Stop the agent loop (a stuck one is left to die with the process)."""
        with self._lock:
            agent_loop, self._agent_loop = self._agent_loop, None
        if agent_loop is not None:
            agent_loop.abandon()
