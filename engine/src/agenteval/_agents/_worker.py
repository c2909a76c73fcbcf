"""The worker process of ``ProcessIsolatedAgent``: ``python -m agenteval._agents._worker FD``.

It speaks over the inherited socket ``FD`` (``multiprocessing.connection`` framing, pickled
objects, so what crosses is exactly what was sent: a lone surrogate, arguments nested
thousands of levels deep): one request at a time, each answered with ``("ok", value)``,
``("raised", (description, traceback))`` for what the agent raised, or ``("error",
message)`` when the agent cannot be loaded. Requests: ``hello`` (load the adapter),
``session`` (an ``EvalCase``), ``turn`` (a ``Content``; answers the ``Invocation``),
``close``, ``exit``.

Its stdout and stderr are the parent's capture file. ``sys.stdout`` and ``sys.stderr`` are
detached from file descriptors 1 and 2 and cannot be closed (``agents._capture``), and a
descriptor the agent closed is reopened after each request, with a note in the output: an
agent that closes its standard output costs nothing, as in the parent process.
"""

from __future__ import annotations

import asyncio
import importlib
import pickle
import sys
import threading
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

T = TypeVar("T")
#: The stack and recursion limit for pickling a message nested deeper than the usual limit.
_DEEP_STACK_BYTES = 512 * 1024 * 1024
_DEEP_RECURSION = 1_000_000


def _with_deep_stack(function: Callable[[], T]) -> T:
    """``function()`` in a thread with a large stack and recursion limit."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, function()))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
            outcome.append((False, exc))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _DEEP_RECURSION))
    try:
        threading.stack_size(_DEEP_STACK_BYTES)
        try:
            thread = threading.Thread(target=run, name="agenteval-deep-pickle", daemon=True)
            thread.start()
        finally:
            threading.stack_size(0)
        thread.join()
    finally:
        sys.setrecursionlimit(limit)
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


def send(connection: Connection, message: Any) -> None:
    """``connection.send(message)``, also for a message nested deeper than the recursion
    limit (pickling recurses; unpickling does not)."""
    try:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    except RecursionError:
        data = _with_deep_stack(lambda: pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
    connection.send_bytes(data)


def _load(spec: str, target: str) -> Any:
    module_name, _, qualname = spec.partition(":")
    klass: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        klass = getattr(klass, part)
    agent = klass(target)
    agent.check_ready()
    return agent


def _reopen_closed_std_streams() -> None:
    from agenteval._agents._capture import Capture, repair_std_streams

    capture = Capture()
    repair_std_streams(capture)
    noted = capture.text()
    if noted:
        sys.stderr.write(noted)
        sys.stderr.flush()


async def _serve(connection: Connection) -> None:
    from agenteval.errors import AgentBaseException

    agent: Any = None
    session: Any = None
    while True:
        kind, payload = connection.recv()
        try:
            if kind == "hello":
                sys.path[:] = payload["sys_path"]
                try:
                    agent = _load(payload["adapter"], payload["target"])
                except BaseException as exc:  # noqa: BLE001 - reported to the parent
                    send(connection, ("error", f"loading the agent in a worker process failed: {exc}"))
                    continue
                value = None
            elif kind == "session":
                session = await agent.session(payload)
                value = None
            elif kind == "turn":
                value = await session.turn(payload)
            elif kind == "close":
                if session is not None:
                    await session.aclose()
                session, value = None, None
            elif kind == "exit":
                if agent is not None:
                    await agent.aclose()
                send(connection, ("ok", None))
                return
            else:
                raise ValueError(f"unknown request {kind!r}")
        except BaseException as exc:  # noqa: BLE001 - SystemExit and the like are the case's, too
            if isinstance(exc, AgentBaseException):
                exc = exc.original
            description = f"{type(exc).__name__}: {exc}"
            trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            send(connection, ("raised", (description, trace)))
            continue
        finally:
            _reopen_closed_std_streams()
        try:
            send(connection, ("ok", value))
        except Exception as exc:  # noqa: BLE001 - a reply that cannot cross is the agent's failure
            description = f"the agent's answer cannot be sent to agenteval: {type(exc).__name__}: {exc}"
            send(connection, ("raised", (description, "")))


def main(argv: list[str]) -> None:
    from agenteval._agents._capture import detach_std_streams, install_std_stream_routers

    connection = Connection(int(argv[1]))
    detach_std_streams(fd1_to_stderr=False, line_buffered=True)
    install_std_stream_routers()
    asyncio.run(_serve(connection))


if __name__ == "__main__":
    main(sys.argv)
