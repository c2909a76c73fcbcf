"""The worker process of ``ProcessIsolatedAgent``: ``python -m agenteval.agents._worker FD``.

It speaks over the inherited socket ``FD`` (``multiprocessing.connection`` framing): one
request at a time, each answered with ``("ok", value)``, ``("raised", (description,
traceback))`` for what the agent raised, or ``("error", message)`` when the agent cannot
be loaded. Requests: ``hello`` (load the adapter), ``session`` (a case as JSON), ``turn``
(a ``Content`` as JSON; answers an ``Invocation`` as JSON), ``close``, ``exit``. Its
stdout and stderr are the parent's capture file.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
import traceback
from multiprocessing.connection import Connection
from typing import Any, Optional


def _load(spec: str, target: str) -> Any:
    module_name, _, qualname = spec.partition(":")
    klass: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        klass = getattr(klass, part)
    agent = klass(target)
    agent.check_ready()
    return agent


async def _serve(connection: Connection) -> None:
    from agenteval.agents import AgentBaseException
    from agenteval.models import Content, EvalCase

    agent: Any = None
    session: Optional[Any] = None
    while True:
        kind, payload = connection.recv()
        try:
            if kind == "hello":
                sys.path[:] = payload["sys_path"]
                try:
                    agent = _load(payload["adapter"], payload["target"])
                except BaseException as exc:  # noqa: BLE001 - reported to the parent
                    connection.send(("error", f"loading the agent in a worker process failed: {exc}"))
                    continue
                value = None
            elif kind == "session":
                session = await agent.session(EvalCase.model_validate_json(payload))
                value = None
            elif kind == "turn":
                invocation = await session.turn(Content.model_validate_json(payload))
                value = invocation.model_dump_json()
            elif kind == "close":
                if session is not None:
                    await session.aclose()
                session, value = None, None
            elif kind == "exit":
                if agent is not None:
                    await agent.aclose()
                connection.send(("ok", None))
                return
            else:
                raise ValueError(f"unknown request {kind!r}")
        except BaseException as exc:  # noqa: BLE001 - SystemExit and the like are the case's, too
            if isinstance(exc, AgentBaseException):
                exc = exc.original
            description = f"{type(exc).__name__}: {exc}"
            trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            connection.send(("raised", (description, trace)))
            continue
        connection.send(("ok", value))


def main(argv: list[str]) -> None:
    connection = Connection(int(argv[1]))
    asyncio.run(_serve(connection))


if __name__ == "__main__":
    main(sys.argv)
