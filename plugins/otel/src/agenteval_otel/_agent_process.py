"""The agent's process for ``--agent-command``: started, waited for, watched and stopped.

``AgentProcess(command, env)`` runs ``command`` with ``/bin/sh -c`` (so ``$PORT`` expands) in
a new process group, its standard output and error kept as a tail of the last lines (never
printed: the run's output is the report). ``wait_ready(port, timeout)`` waits until the
process accepts TCP connections on ``127.0.0.1:port``. ``stop()`` sends the group SIGTERM,
then SIGKILL after a grace, and is idempotent; every process still running when the
interpreter exits is stopped the same way (a run that ends before ``aclose``: ``--dry-run``,
a usage error after the preflight).
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import subprocess
import threading
import time
import weakref
from collections import deque
from typing import Optional

__all__ = ["AgentProcess", "AgentProcessError"]

#: Seconds between SIGTERM and SIGKILL.
GRACE = 3.0
#: How many of the process's last output lines a failure shows.
TAIL_LINES = 20
_POLL = 0.05
_RUNNING: weakref.WeakSet[AgentProcess] = weakref.WeakSet()


class AgentProcessError(Exception):
    """The process could not start, exited, or never became ready; the message says which,
    with its last output lines."""


def _death(code: int) -> str:
    return f"killed by signal {-code}" if code < 0 else f"exited with code {code}"


class AgentProcess:
    """One agent process (see the module docstring)."""

    def __init__(self, command: str, env: dict[str, str]) -> None:
        self.command = command
        self._stopped = False
        self._tail: deque[str] = deque(maxlen=TAIL_LINES)
        try:
            self._popen = subprocess.Popen(
                command,
                shell=True,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stopped with all its children
            )
        except OSError as exc:
            raise AgentProcessError(f"--agent-command {command!r} could not start: {exc}") from None
        _RUNNING.add(self)
        self._reader = threading.Thread(target=self._read, name="agenteval-agent-output", daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self._popen.pid

    def _read(self) -> None:
        assert self._popen.stdout is not None
        for line in iter(self._popen.stdout.readline, b""):
            self._tail.append(line.decode("utf-8", "replace").rstrip("\n"))
        self._popen.stdout.close()

    def tail(self) -> str:
        """The last output lines, each indented (``""``: none)."""
        self._reader.join(timeout=1.0 if self._popen.poll() is not None else 0)
        lines = list(self._tail)
        return "" if not lines else "; its last output lines:\n" + "\n".join(f"  | {x}" for x in lines)

    def exited(self, wait: float = 0.0) -> Optional[str]:
        """How the process ended (``"exited with code 1"``), or ``None`` while it runs,
        waiting up to ``wait`` seconds for it to end."""
        try:
            code = self._popen.wait(timeout=wait) if wait > 0 else self._popen.poll()
        except subprocess.TimeoutExpired:
            return None
        return None if code is None else _death(code)

    def death(self) -> str:
        """Why the agent is gone, with its output tail (for a case's failure)."""
        return f"the agent process ({self.command!r}) {self.exited() or 'stopped'}{self.tail()}"

    def wait_ready(self, port: int, timeout: float) -> None:
        """Return once ``127.0.0.1:port`` accepts a connection; ``AgentProcessError`` when the
        process exits first or ``timeout`` passes (the process is then stopped)."""
        deadline = time.monotonic() + timeout
        while True:
            ended = self.exited()
            if ended is not None:
                raise AgentProcessError(
                    f"--agent-command {self.command!r} {ended} before it listened on 127.0.0.1:{port} "
                    f"(PORT){self.tail()}"
                )
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return
            except OSError:
                pass
            if time.monotonic() >= deadline:
                self.stop()
                raise AgentProcessError(
                    f"--agent-command {self.command!r} did not listen on 127.0.0.1:{port} within "
                    f"{timeout:g}s. Fix: serve on the port given in $PORT (or $AGENTEVAL_AGENT_PORT), or "
                    f"give it longer with AGENTEVAL_AGENT_READY_TIMEOUT=SECONDS{self.tail()}"
                )
            time.sleep(_POLL)

    def stop(self) -> None:
        """SIGTERM to the process group, SIGKILL after ``GRACE`` seconds; idempotent."""
        _RUNNING.discard(self)
        if self._stopped:
            return
        self._stopped = True
        if self._popen.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self._popen.wait(timeout=GRACE)
            except subprocess.TimeoutExpired:
                pass
        self._signal(signal.SIGKILL)  # what the group still holds (children that ignored SIGTERM)
        try:
            self._popen.wait(timeout=GRACE)
        except subprocess.TimeoutExpired:
            pass

    def _signal(self, number: int) -> None:
        try:
            os.killpg(self._popen.pid, number)
        except (ProcessLookupError, PermissionError):
            pass


@atexit.register
def _stop_all() -> None:
    for process in list(_RUNNING):
        process.stop()
