"""The ``http-traces`` agent adapter: an HTTP agent scored from the spans it exports.

``agenteval run EVALSET --agent "http://127.0.0.1:8000/v1?model=NAME" --agent-type
http-traces`` talks to the agent as the ``http`` adapter does (an OpenAI-compatible
``/chat/completions``) and, while the run lasts, receives the agent's spans on a loopback
OTLP/HTTP receiver (``_receiver``) at ``http://127.0.0.1:4318`` (``?otlp_port=N`` in the
target: another port; the agent's ``OTEL_EXPORTER_OTLP_ENDPOINT`` must name it). Each turn's
request carries a new W3C ``traceparent`` (a fresh trace id; its parent span is agenteval's
and is never exported), so the agent's spans of that turn are the spans of that trace. When
the span the agent parented to ours has arrived (its local root ends last), and the trace has
been quiet a moment, the turn is read from the trace exactly as ``--actual TRACE`` reads it:
tool calls and responses, per-agent text, token usage, model and tool time, and the lint's
findings (a criterion whose inputs the trace lacks is NOT_EVALUATED). Beside the trace: the
user message is the one sent, and the HTTP answer's text is the final response when the
trace records none. The turn's ``invocation_id`` is its trace id, so every record names the
trace to open in a tracing backend.

No span within ``?trace_wait=SECONDS`` (default 30) after the answer: the case is ERRORED
with what to set. The receiver binds its port before any case runs (``check_ready``): a busy
port stops the run with exit 2.
"""

from __future__ import annotations

import asyncio
import contextvars
import secrets
import time
from typing import Any, Optional
from urllib.parse import parse_qs, urlsplit

from agenteval.errors import ConfigError
from agenteval.models import Content, EvalCase, Invocation
from agenteval.plugins import AgentSession
from agenteval_builtin.http_agent import HttpAgent

from ._otlp import Span
from ._receiver import OtlpReceiver
from ._turns import CAPTURE_SETTING, turns_of

__all__ = ["TracedHttpAgent"]

#: OTLP/HTTP's standard port: where an agent's exporter sends spans unless told otherwise.
DEFAULT_OTLP_PORT = 4318
DEFAULT_TRACE_WAIT = 30.0
#: How long a trace must have been quiet after its root arrived before it is read (seconds):
#: spans other processes of the agent export after the root.
_SETTLE = 0.3
_POLL = 0.05
#: The ``traceparent`` the current turn's request carries (per asyncio task: sessions run concurrently).
_TRACEPARENT: contextvars.ContextVar[Optional[str]] = contextvars.ContextVar("traceparent", default=None)


async def _add_traceparent(request: Any) -> None:
    header = _TRACEPARENT.get()
    if header is not None:
        request.headers["traceparent"] = header


class _TracedSession(AgentSession):
    def __init__(self, agent: TracedHttpAgent, inner: AgentSession) -> None:
        self._agent = agent
        self._inner = inner

    async def turn(self, user_content: Content) -> Invocation:
        trace_id, parent_id = secrets.token_hex(16), secrets.token_hex(8)
        token = _TRACEPARENT.set(f"00-{trace_id}-{parent_id}-01")
        try:
            answered = await self._inner.turn(user_content)
        finally:
            _TRACEPARENT.reset(token)
        spans = await self._agent.trace(trace_id, parent_id)
        return _invocation(spans, answered, trace_id)

    async def aclose(self) -> None:
        await self._inner.aclose()


def _invocation(spans: list[Span], answered: Invocation, trace_id: str) -> Invocation:
    """The turn read from its trace, with the message sent and, when the trace has no final
    text, the HTTP answer's; ``invocation_id`` is the trace id."""
    turns, empty = turns_of(spans)
    if not turns:
        reason = empty[0][1].message if empty else f"trace {trace_id}: no spans"
        raise ValueError(f"the agent's spans hold no turn: {reason}")
    turn = turns[0]  # one request, one turn (agent spans one after another are one: _turns)
    final = turn.invocation.final_response or answered.final_response
    known = {"user_content"} | ({"final_response"} if final is not None else set())
    invocation = turn.invocation.model_copy(
        update={"invocation_id": trace_id, "user_content": answered.user_content, "final_response": final}
    )
    invocation.mark_missing(tuple(m for f in turn.findings for m in f.missing() if m.input not in known))
    return invocation


class TracedHttpAgent(HttpAgent):
    """An OpenAI-compatible endpoint whose turns are read from the spans it exports."""

    description = (
        "an OpenAI-compatible chat endpoint scored from its OTLP spans: "
        "http(s)://HOST/v1?model=NAME[&otlp_port=4318][&trace_wait=30]"
    )
    not_in_workers = (
        "an agent scored from its spans is read through a loopback OTLP receiver in the run's own "
        "process, which worker processes cannot share (each would bind its port). Fix: drop "
        "--agent-isolation process; the agent runs in its own process already, so a hung or crashed "
        "agent costs only its case"
    )

    def __init__(self, target: str) -> None:
        super().__init__(target)
        query = parse_qs(urlsplit(target).query)
        self._port_text = (query.get("otlp_port") or [str(DEFAULT_OTLP_PORT)])[0]
        self._wait_text = (query.get("trace_wait") or [str(DEFAULT_TRACE_WAIT)])[0]
        self._receiver: Optional[OtlpReceiver] = None

    @classmethod
    def claims(cls, target: str) -> bool:
        return False  # chosen by name only (--agent-type http-traces): `http` claims http(s) targets

    def check_ready(self) -> None:
        super().check_ready()
        try:
            port, self.trace_wait = int(self._port_text), float(self._wait_text)
        except ValueError:
            raise ConfigError(
                f"--agent {self.target!r}: otlp_port must be a port number and trace_wait a number of "
                f"seconds (got {self._port_text!r}, {self._wait_text!r})"
            ) from None
        if not 0 <= port <= 65535 or self.trace_wait <= 0:
            raise ConfigError(f"--agent {self.target!r}: otlp_port 0..65535 and trace_wait > 0 expected")
        self.listen(port)

    def listen(self, port: int) -> OtlpReceiver:
        """The receiver, started on ``port`` (``0``: any free port) unless it runs already;
        ``ConfigError`` when the port is taken."""
        if self._receiver is None:
            try:
                self._receiver = OtlpReceiver(port)
            except OSError as exc:
                raise ConfigError(
                    f"--agent-type http-traces: cannot receive spans on 127.0.0.1:{port} ({exc.strerror}). "
                    "Fix: stop what listens there, or give another port with ?otlp_port=N in the --agent "
                    "target and the agent's OTEL_EXPORTER_OTLP_ENDPOINT"
                ) from None
        return self._receiver

    def _started(self) -> OtlpReceiver:
        if self._receiver is None:
            self.check_ready()
        assert self._receiver is not None
        return self._receiver

    def client(self) -> Any:
        client = super().client()
        if _add_traceparent not in client.event_hooks["request"]:
            client.event_hooks = {
                **client.event_hooks,
                "request": [*client.event_hooks["request"], _add_traceparent],
            }
        return client

    async def session(self, case: EvalCase) -> AgentSession:
        self._started()
        return _TracedSession(self, await super().session(case))

    async def trace(self, trace_id: str, parent_id: str) -> list[Span]:
        """The spans of ``trace_id`` once the agent's span parented to ``parent_id`` has arrived
        and the trace has been quiet for a moment; ``RuntimeError`` after ``trace_wait`` (not
        ``TimeoutError``: that is the engine's own --agent-timeout)."""
        receiver = self._started()
        deadline = time.monotonic() + self.trace_wait
        seen, quiet_since = -1, time.monotonic()
        while True:
            spans = receiver.spans(trace_id)
            now = time.monotonic()
            if len(spans) != seen:
                seen, quiet_since = len(spans), now
            rooted = any(s.parent_id == parent_id or s.parent_id is None for s in spans)
            if rooted and now - quiet_since >= _SETTLE:
                return receiver.take(trace_id)
            if now >= deadline:
                break
            await asyncio.sleep(_POLL)
        refused = f"; the receiver refused: {receiver.refused[-1]}" if receiver.refused else ""
        raise RuntimeError(
            f"the agent's spans of trace {trace_id} did not reach {receiver.endpoint} within "
            f"{self.trace_wait:g}s ({seen} received{refused}). Fix: run the agent with "
            f"OTEL_EXPORTER_OTLP_ENDPOINT={receiver.endpoint}, OTEL_EXPORTER_OTLP_PROTOCOL=http/json or "
            "http/protobuf, OTEL_BSP_SCHEDULE_DELAY=200, a W3C traceparent propagator on its HTTP server, "
            f"and {CAPTURE_SETTING}"
        )

    async def aclose(self) -> None:
        await super().aclose()
        if self._receiver is not None:
            self._receiver.close()
            self._receiver = None
