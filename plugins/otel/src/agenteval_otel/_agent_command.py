"""The ``command`` agent adapter: ``agenteval run EVALSET --agent-command "CMD"``.

The run starts ``CMD`` (any language; run by ``/bin/sh -c``) for its duration and scores it as
the ``http-traces`` adapter scores an agent at an address (``_live_agent``): each turn is a
``POST /v1/chat/completions`` (OpenAI-compatible) with a W3C ``traceparent``, and the turn is
read from the spans the agent exports to a loopback OTLP/HTTP receiver. The process is given:

- ``PORT`` and ``AGENTEVAL_AGENT_PORT``: a free loopback port to serve its chat endpoint on;
- ``OTEL_EXPORTER_OTLP_ENDPOINT`` (and ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``): the receiver,
  on a free port; ``OTEL_EXPORTER_OTLP_PROTOCOL`` ``http/protobuf`` (the receiver takes JSON
  too), ``OTEL_TRACES_EXPORTER=otlp`` and, unless set, ``OTEL_BSP_SCHEDULE_DELAY=200``.

Before any case runs, the run waits until the process accepts connections on ``PORT``
(``AGENTEVAL_AGENT_READY_TIMEOUT`` seconds, default 30): a command that cannot start, exits,
or never listens stops the run with exit 2 and its last output lines. A process that dies
during the run makes each case still to run ERRORED (``agent_crashed``) with its last output
lines. The process group is stopped at the end of the run, on Ctrl-C and on failure (SIGTERM,
then SIGKILL after a grace). ``AGENTEVAL_AGENT_TRACE_WAIT`` (seconds, default 30): how long
after an answer its spans may take.
"""

from __future__ import annotations

import asyncio
import os
import socket
from typing import Optional

from agenteval.errors import AgentCrashed, ConfigError
from agenteval.models import Content, EvalCase, Invocation
from agenteval.plugins import AgentSession

from ._agent_process import AgentProcess, AgentProcessError
from ._live_agent import DEFAULT_TRACE_WAIT, TracedHttpAgent
from ._receiver import TRACES_PATH

__all__ = ["CommandAgent"]

DEFAULT_READY_TIMEOUT = 30.0
#: How long a failed request waits for the process to be seen dead (seconds).
_DEATH_WAIT = 1.0


def _seconds(name: str, default: float) -> float:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ConfigError(f"{name}={text!r}: give a number of seconds above 0")
    return value


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def agent_environment(port: int, otlp_endpoint: str) -> dict[str, str]:
    """The process's environment: this one's, with its port and the receiver's endpoint."""
    env = dict(os.environ)
    env.update(
        {
            "PORT": str(port),
            "AGENTEVAL_AGENT_PORT": str(port),
            "OTEL_EXPORTER_OTLP_ENDPOINT": otlp_endpoint,
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": otlp_endpoint + TRACES_PATH,
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",
            "OTEL_TRACES_EXPORTER": "otlp",
        }
    )
    env.setdefault("OTEL_BSP_SCHEDULE_DELAY", "200")
    return env


class _CommandSession(AgentSession):
    def __init__(self, agent: CommandAgent, inner: AgentSession) -> None:
        self._agent = agent
        self._inner = inner

    async def turn(self, user_content: Content) -> Invocation:
        process = self._agent.process()
        if process.exited() is not None:
            raise AgentCrashed(process.death())
        try:
            return await self._inner.turn(user_content)
        except Exception:
            if await asyncio.to_thread(process.exited, _DEATH_WAIT) is not None:
                raise AgentCrashed(process.death()) from None
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()


class CommandAgent(TracedHttpAgent):
    """An agent started as a process for the run and scored from the spans it exports."""

    description = (
        "a command that starts an agent serving an OpenAI-compatible chat endpoint on $PORT and "
        'exporting OTLP spans (--agent-command "CMD")'
    )

    def __init__(self, target: str) -> None:
        super().__init__("http://127.0.0.1/v1")  # the port is known once the process is started
        self.target = target
        self._process: Optional[AgentProcess] = None

    def check_ready(self) -> None:
        if self._process is not None:
            return
        if not self.target.strip():
            raise ConfigError('--agent-command "": give the command that starts the agent')
        ready_timeout = _seconds("AGENTEVAL_AGENT_READY_TIMEOUT", DEFAULT_READY_TIMEOUT)
        self.trace_wait = _seconds("AGENTEVAL_AGENT_TRACE_WAIT", DEFAULT_TRACE_WAIT)
        receiver = self.listen(0)
        port = _free_port()
        process: Optional[AgentProcess] = None
        try:
            process = AgentProcess(self.target, agent_environment(port, receiver.endpoint))
            process.wait_ready(port, ready_timeout)
        except AgentProcessError as exc:
            if process is not None:  # what it started may outlive it
                process.stop()
            receiver.close()
            self._receiver = None
            raise ConfigError(str(exc)) from None
        self._process = process
        self.endpoint = f"http://127.0.0.1:{port}/v1/chat/completions"

    def process(self) -> AgentProcess:
        if self._process is None:
            self.check_ready()
        assert self._process is not None
        return self._process

    async def session(self, case: EvalCase) -> AgentSession:
        self.process()
        return _CommandSession(self, await super().session(case))

    async def aclose(self) -> None:
        try:
            await super().aclose()
        finally:
            if self._process is not None:
                process, self._process = self._process, None
                await asyncio.to_thread(process.stop)
