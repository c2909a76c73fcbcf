"""Agent calls in worker processes that can be killed: ``ProcessIsolatedAgent``.

``ProcessIsolatedAgent(adapter)`` is an ``Agent`` like any other: each case's session runs
in a worker process (``python -m agenteval._agents._worker``) that builds the same adapter
class from the same target. So whatever the agent does costs at most its case:

* a call past its timeout: the worker is killed (``SIGKILL``), nothing is left running;
* ``os._exit``, a segfault, a signal, a hung C extension: the case is ERRORED
  ``agent_crashed`` ("the agent's worker process 4242 died: SIGSEGV");
* an exception of any kind (``SystemExit`` included): the case's ``agent_error``, with
  the worker's traceback;
* prints, at the Python or the file-descriptor level, and a closed stdout: the worker's
  stdout and stderr go to a file of ours, returned as the case's ``output``; a closed file
  descriptor 1 or 2 is reopened after each call (``agents._worker``);
* any reply: requests and replies cross as pickled objects, so a lone surrogate or
  arguments nested thousands of levels deep arrive as the agent made them.

Workers are started on demand (one per case in flight) and reused by later cases; a
worker starts in about the time a fresh interpreter takes to import agenteval and the
agent. The adapter class must be importable by its module path (every installed adapter
is). POSIX only: the worker talks over an inherited socket.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from multiprocessing.connection import Connection
from typing import Any, Optional

from ..errors import ConfigError, RemoteAgentError
from ..models import Content, EvalCase, Invocation
from ._contract import Agent, AgentCrashed, AgentSession
from ._worker import send

__all__ = ["ProcessIsolatedAgent", "RemoteAgentError"]

#: Seconds a worker may take to start (import agenteval, the adapter and the agent).
DEFAULT_START_TIMEOUT = 120.0
#: Characters of a worker's output returned per case.
_OUTPUT_LIMIT = 64_000


def _death(returncode: Optional[int]) -> str:
    if returncode is None:
        return "its connection closed"
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit code {returncode}"


class _Worker:
    """One worker process and our end of its socket."""

    def __init__(self, spec: str, target: str) -> None:
        ours, theirs = socket.socketpair()
        self.output = tempfile.TemporaryFile()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "agenteval._agents._worker", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=self.output,
                stderr=self.output,
                close_fds=True,
            )
        finally:
            theirs.close()
        self.connection = Connection(ours.detach())
        self.spec, self.target = spec, target
        self.busy = False
        self._read_from = 0
        self._reaping = threading.Lock()  # held for good by the one reap (see ``kill``)

    @property
    def pid(self) -> int:
        return self.process.pid

    async def _receive(self) -> Any:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = loop.create_future()

        def settle(ok: bool, value: Any) -> None:
            if not answer.done():
                answer.set_result(value) if ok else answer.set_exception(value)

        def read() -> None:
            try:
                value, ok = self.connection.recv(), True
            except (EOFError, OSError):
                try:
                    returncode = self.process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    returncode = None
                value = AgentCrashed(f"the agent's worker process {self.pid} died ({_death(returncode)})")
                ok = False
            except BaseException as exc:  # noqa: BLE001 - an unreadable message is the case's failure
                value, ok = AgentCrashed(f"the agent's worker process {self.pid} sent garbage: {exc}"), False
            try:
                loop.call_soon_threadsafe(settle, ok, value)
            except RuntimeError:  # the run's event loop is gone
                pass

        threading.Thread(target=read, name=f"agenteval-worker-{self.pid}-reader", daemon=True).start()
        return await answer

    async def ask(self, kind: str, payload: Any = None) -> Any:
        """Send one request; the worker's answer (raises what the agent raised, or
        ``AgentCrashed``). Cancelled: the worker is killed."""
        try:
            try:
                send(self.connection, (kind, payload))
            except OSError:
                raise AgentCrashed(
                    f"the agent's worker process {self.pid} died ({_death(self.process.poll())})"
                ) from None
            status, value = await self._receive()
        except asyncio.CancelledError:
            self.kill()
            raise
        if status == "raised":
            description, remote_traceback = value
            raise RemoteAgentError(description, remote_traceback)
        if status == "error":
            raise ConfigError(value)
        return value

    def output_since_mark(self) -> str:
        """What the worker printed since the last ``mark_output``."""
        try:
            self.output.flush()
            self.output.seek(self._read_from)
            data = self.output.read(_OUTPUT_LIMIT * 4)
        except (OSError, ValueError):
            return ""
        text = data.decode("utf-8", "replace")
        return text if len(text) <= _OUTPUT_LIMIT else text[:_OUTPUT_LIMIT] + "\n[agenteval: output cut]"

    def mark_output(self) -> None:
        try:
            self._read_from = self.output.seek(0, os.SEEK_END)
        except (OSError, ValueError):
            pass

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """Kill the worker (if it still runs) and reap it in a thread, once: ``kill`` is
        called again (a cancelled call, then its session's release, then the run's end), and
        two reaps would close the connection's descriptor twice, the second time after its
        number went to the next worker's socket, cutting that worker off."""
        if self.alive:
            try:
                self.process.kill()
            except OSError:
                pass
        if not self._reaping.acquire(blocking=False):
            return
        try:
            threading.Thread(target=self._reap, daemon=True).start()
        except RuntimeError:  # the interpreter is shutting down: the killed worker needs no reaping
            pass

    def _reap(self) -> None:
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for closing in (self.connection, self.output):
            try:
                closing.close()
            except OSError:
                pass


class _ProcessSession(AgentSession):
    def __init__(self, owner: ProcessIsolatedAgent, worker: _Worker) -> None:
        self._owner = owner
        self._worker = worker
        self._output = ""
        self._killed = False

    async def turn(self, user_content: Content) -> Invocation:
        try:
            return await self._worker.ask("turn", user_content)
        except asyncio.CancelledError:
            self._killed = True
            raise

    def output(self) -> str:
        return self._output or self._worker.output_since_mark()

    def left_behind(self) -> tuple[str, ...]:
        return ()  # a timed-out worker is killed: nothing keeps running

    async def aclose(self) -> None:
        self._output = self._worker.output_since_mark()
        worker, reusable = self._worker, not self._killed and self._worker.alive
        if reusable:
            try:
                await self._worker.ask("close")
            except Exception:  # noqa: BLE001 - a worker that cannot close a session is not reused
                reusable = False
            self._output = self._worker.output_since_mark()
        self._owner._release(worker, reusable)


class ProcessIsolatedAgent(Agent):
    """``agent``'s sessions, each in a worker process (see the module docstring).

    Args:
        agent: the adapter to isolate (its class is rebuilt in each worker from
            ``agent.target``).
        start_timeout: seconds a worker may take to start and load the agent.
    """

    def __init__(self, agent: Agent, *, start_timeout: float = DEFAULT_START_TIMEOUT) -> None:
        super().__init__(agent.target)
        self.inner = agent
        self.description = agent.description  # type: ignore[misc]  # the wrapped adapter's, per instance
        self.takes_history = agent.takes_history  # type: ignore[misc]  # as above
        self.spec = f"{type(agent).__module__}:{type(agent).__qualname__}"
        self.start_timeout = start_timeout
        self._idle: list[_Worker] = []
        self._all: list[_Worker] = []

    @staticmethod
    def unavailable_for(agent: Agent) -> Optional[str]:
        """Why ``agent`` cannot run in worker processes, or ``None`` when it can."""
        if agent.not_in_workers:
            return agent.not_in_workers
        if os.name != "posix":
            return "worker processes need a POSIX system (Linux, macOS)"
        spec = f"{type(agent).__module__}:{type(agent).__qualname__}"
        if "<locals>" in spec or type(agent).__module__ == "__main__":
            return (
                f"the adapter class {spec} cannot be imported by a worker process; define it in an "
                "importable module"
            )
        return None

    def check_ready(self) -> None:
        problem = self.unavailable_for(self.inner)
        if problem is not None:
            raise ConfigError(f"--agent-isolation process: {problem}")
        self.inner.check_ready()

    async def _worker(self) -> _Worker:
        while self._idle:
            worker = self._idle.pop()
            if worker.alive:
                return worker
            worker.kill()
        worker = _Worker(self.spec, self.target)
        self._all.append(worker)
        try:
            await asyncio.wait_for(
                worker.ask(
                    "hello", {"sys_path": list(sys.path), "adapter": self.spec, "target": self.target}
                ),
                self.start_timeout,
            )
        except asyncio.TimeoutError:
            worker.kill()
            raise AgentCrashed(
                f"the agent's worker process did not start within {self.start_timeout:g} s"
            ) from None
        except BaseException:
            worker.kill()
            raise
        return worker

    async def session(self, case: EvalCase, *, timeout: Optional[float] = None) -> AgentSession:
        """A session in a worker. Starting the worker is bounded by ``start_timeout``;
        opening the agent's session in it by ``timeout`` (``asyncio.TimeoutError``)."""
        worker = await self._worker()
        worker.mark_output()
        try:
            await asyncio.wait_for(worker.ask("session", case), timeout)
        except BaseException:
            self._release(worker, reusable=False)
            raise
        return _ProcessSession(self, worker)

    def _release(self, worker: _Worker, reusable: bool) -> None:
        if reusable and worker.alive:
            self._idle.append(worker)
        else:
            worker.kill()

    def kill_workers(self) -> None:
        """Kill every worker at once (no event loop needed)."""
        self._idle = []
        for worker in self._all:
            worker.kill()
        self._all = []

    async def aclose(self) -> None:
        """Stop every worker (politely when idle, killed otherwise)."""
        idle, self._idle = self._idle, []
        for worker in idle:
            try:
                await asyncio.wait_for(worker.ask("exit"), 5)
            except (Exception, asyncio.TimeoutError):  # noqa: BLE001 - it is killed below anyway
                pass
        self.kill_workers()
        await self.inner.aclose()
