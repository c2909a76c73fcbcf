"""Chatting with an agent from the browser, turn by turn, and saving the chat as a case.

Any ``--agent`` target works: the adapter comes from the engine (``resolve_agent``, the
installed ``agenteval.agents`` plugins), never from a plugin imported here. A chat is one
``AgentSession`` opened for a case whose ``session_input`` (app, user, starting ``state``) is
the one the user gave; each message is one ``AgentSession.turn`` and comes back as the
engine's ``Invocation``. Sessions run on one event loop in a daemon thread, so an agent
bound to a loop keeps working from turn to turn.

A turn's events (``turn_events``) are streamed as they are known: the user message, then,
when the adapter returns the turn, each tool call with its arguments and response, each
intermediate response, the final response and the whole ``Invocation``. Adapters return
whole turns, so that is per turn. An agent that raises (anything, ``SystemExit`` included)
or does not answer within the timeout gives an ``error`` event with a reason code
(``agent_error``, ``agent_timeout``, ``agent_crashed``); the server goes on. After a timeout
the session may still be busy, so the chat is closed.

``case_from_chat`` turns the chat into an eval case: its turns as the expected
conversation, the ``session_input`` it started with (the starting state kept, not reset;
its ``app_name`` the agent's, ``app_name``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
import secrets
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

__all__ = ["Chat", "ChatError", "Chats", "app_name", "case_from_chat"]

_DROPPED = {"duration", "model_duration", "tool_duration"}


class ChatError(Exception):
    """A chat request that cannot be served (HTTP 400, or ``status``)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Chat:
    """One conversation: its agent target, the session input it started with, its turns."""

    chat_id: str
    target: str
    agent_type: Optional[str]
    session_input: dict[str, Any]
    session: Any = None
    invocations: list[Any] = field(default_factory=list)
    closed: Optional[str] = None
    busy: threading.Lock = field(default_factory=threading.Lock)

    def describe(self) -> dict[str, Any]:
        return {
            "chat_id": self.chat_id,
            "target": self.target,
            "agent_type": self.agent_type,
            "session_input": self.session_input,
            "turns": len(self.invocations),
            "closed": self.closed,
        }


def _dump(invocation: Any) -> dict[str, Any]:
    import json

    return json.loads(invocation.model_dump_json(exclude_none=True, exclude_defaults=True))


def _pairs(invocation: Any) -> list[dict[str, Any]]:
    """Each tool call with its response: by id when both have one, else in order."""
    calls = invocation.tool_calls()
    responses = list(invocation.tool_responses())
    by_id = {r.id: r for r in responses if getattr(r, "id", None)}
    rows = []
    for i, call in enumerate(calls):
        response = by_id.get(call.id) if getattr(call, "id", None) else None
        if response is None and i < len(responses) and not getattr(responses[i], "id", None):
            response = responses[i]
        rows.append(
            {
                "name": call.name,
                "args": call.args,
                "response": None if response is None else response.response,
            }
        )
    return rows


def turn_events(invocation: Any, index: int) -> list[dict[str, Any]]:
    """The events that show one finished turn."""
    events: list[dict[str, Any]] = [{"type": "tool_call", **row} for row in _pairs(invocation)]
    events += [{"type": "intermediate", "author": a, "text": t} for a, t in invocation.intermediate_texts()]
    events.append({"type": "final", "text": invocation.final_text()})
    events.append({"type": "invocation", "index": index, "invocation": _dump(invocation)})
    return events


_GENERIC_STEMS = {"agent", "__init__", "main", "app"}


def app_name(target: str, agent: Any = None) -> str:
    """The app name a chat's ``session_input`` carries, as ``adk web`` would name the agent:
    the adapter's own (an ADK agent folder: its folder name), else from ``--agent``'s target:
    a folder's name; a file's stem, or its folder's name for ``agent.py`` (and ``__init__``,
    ``main``, ``app``); a module's last name that is not one of those; an URL's ``model``
    query parameter, else its host. Letters, digits and ``_`` only (an ADK app name is an
    identifier); ``agent`` when nothing is left."""
    from urllib.parse import parse_qs, urlsplit

    adk = getattr(agent, "adk_app", None)
    try:
        found = adk() if callable(adk) else None
    except Exception:  # noqa: BLE001 - an adapter's hook failing only costs it its own name
        found = None
    if found:
        name = found[1]
    elif "://" in target:
        parts = urlsplit(target)
        name = (parse_qs(parts.query).get("model") or [parts.hostname or ""])[0]
    else:
        path_part = target.rsplit(":", 1)[0] if re.search(r":[A-Za-z_][\w.]*$", target) else target
        path = Path(path_part)
        if path.suffix == ".py" or "/" in path_part or "\\" in path_part or path.exists():
            stem = path.stem if path.suffix == ".py" else path.name
            name = path.resolve().parent.name if stem in _GENERIC_STEMS else stem
        else:  # package.module
            names = [n for n in path_part.split(".") if n and n not in _GENERIC_STEMS]
            name = names[-1] if names else ""
    name = re.sub(r"\W+", "_", name, flags=re.ASCII).strip("_")
    return name or "agent"


def case_from_chat(chat: Chat, case_id: str) -> dict[str, Any]:
    """The chat as an eval case (snake_case JSON): its turns as the expected conversation
    (timings left out: they describe one run, not what is expected), and the session input
    the chat started with."""
    conversation = []
    for number, invocation in enumerate(chat.invocations, start=1):
        turn = {k: v for k, v in _dump(invocation).items() if k not in _DROPPED}
        turn.setdefault("invocation_id", f"{case_id}-{number}")
        conversation.append(turn)
    case: dict[str, Any] = {"eval_id": case_id, "conversation": conversation}
    if chat.session_input:
        case["session_input"] = chat.session_input
    case["creation_timestamp"] = round(time.time(), 3)
    return case


class Chats:
    """The chats of one viewer session, on one event loop in a daemon thread.

    ``resolve`` stands in for ``agenteval.resolve_agent`` (tests)."""

    def __init__(self, timeout: float = 120.0, resolve: Optional[Callable[..., Any]] = None) -> None:
        self.timeout = timeout
        self._resolve = resolve
        self._agents: dict[tuple[str, Optional[str]], Any] = {}
        self._chats: dict[str, Chat] = {}
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="agenteval-view-chats", daemon=True
        )
        self._thread.start()

    # ------------------------------------------------------------------ agents

    def _agent(self, target: str, agent_type: Optional[str]) -> Any:
        from agenteval.errors import AgentEvalError

        key = (target, agent_type)
        with self._lock:
            if key in self._agents:
                return self._agents[key]
        try:
            if self._resolve is not None:
                agent = self._resolve(target, agent_type)
            else:
                from agenteval import resolve_agent

                agent = resolve_agent(target, agent_type)
            agent.check_ready()
        except AgentEvalError as exc:
            raise ChatError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - an agent that cannot even load is a message
            raise ChatError(f"--agent {target!r} could not be loaded: {type(exc).__name__}: {exc}") from None
        with self._lock:
            return self._agents.setdefault(key, agent)

    def _call(self, coroutine: Any) -> Any:
        """Run ``coroutine`` on the chats' loop within the timeout; its exception, any
        ``BaseException`` the agent raised included, comes back as an ``Exception``."""

        async def guarded() -> Any:
            try:
                return await asyncio.wait_for(coroutine, self.timeout)
            except (asyncio.CancelledError, asyncio.TimeoutError):
                raise
            except Exception:
                raise
            except BaseException as exc:  # SystemExit, KeyboardInterrupt raised by the agent
                raise RuntimeError(f"the agent raised {type(exc).__name__}: {exc}") from exc

        future = asyncio.run_coroutine_threadsafe(guarded(), self._loop)
        try:
            return future.result(self.timeout + 5)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise asyncio.TimeoutError() from None

    # ------------------------------------------------------------------ chats

    def start(self, target: object, agent_type: object = None, session_input: object = None) -> Chat:
        """Open a chat with ``target`` (anything ``--agent`` accepts)."""
        from agenteval.models import EvalCase, SessionInput
        from pydantic import ValidationError

        if not isinstance(target, str) or not target.strip():
            raise ChatError("give the agent: anything --agent accepts (a folder, file.py:function, an URL)")
        if agent_type is not None and not isinstance(agent_type, str):
            raise ChatError("agent_type is the name of an agent adapter (python, http, adk)")
        given = session_input if isinstance(session_input, dict) else {}
        state = given.get("state", {})
        if not isinstance(state, dict):
            raise ChatError("session_input.state must be a JSON object")
        agent = self._agent(target.strip(), agent_type or None)
        data = {"app_name": app_name(target.strip(), agent), "user_id": "user", **given, "state": state}
        try:
            case = EvalCase(eval_id="chat", conversation=[], session_input=SessionInput.model_validate(data))
        except ValidationError as exc:
            raise ChatError(f"session_input: {exc.errors()[0]['msg']}") from None
        chat = Chat(secrets.token_hex(8), target.strip(), agent_type or None, data)
        try:
            chat.session = self._call(agent.session(case))
        except asyncio.TimeoutError:
            raise ChatError(f"the agent's session did not start within {self.timeout:g} s") from None
        except Exception as exc:  # noqa: BLE001 - the agent's fault, shown to the user
            raise ChatError(f"the agent's session could not start: {_describe(exc)}") from None
        with self._lock:
            self._chats[chat.chat_id] = chat
        return chat

    def get(self, chat_id: str) -> Chat:
        with self._lock:
            chat = self._chats.get(chat_id)
        if chat is None:
            raise ChatError(f"no chat {chat_id[:40]!r} (the viewer was restarted?)", status=404)
        return chat

    def send(self, chat_id: str, text: object) -> Iterator[dict[str, Any]]:
        """One user message; yields the turn's events (see the module docstring). Never
        raises for the agent's faults."""
        from agenteval.models import Content, Invocation
        from agenteval.plugins import scrub_secrets

        chat = self.get(chat_id)
        if not isinstance(text, str) or not text.strip():
            raise ChatError("type a message first")
        if chat.closed:
            raise ChatError(f"this chat is closed ({chat.closed}); start a new one", status=409)
        if not chat.busy.acquire(blocking=False):
            raise ChatError("the agent is still answering the previous message", status=409)
        try:
            number = len(chat.invocations) + 1
            yield {"type": "user", "index": number - 1, "text": text}
            started = time.monotonic()
            try:
                invocation = self._call(chat.session.turn(Content.from_text(text, role="user")))
            except asyncio.TimeoutError:
                chat.closed = "the agent did not answer in time"
                yield {
                    "type": "error",
                    "code": "agent_timeout",
                    "message": f"turn {number}: the agent did not answer within {self.timeout:g} s; "
                    "this chat is closed (the agent may still be busy). Start a new chat",
                }
                return
            except Exception as exc:  # noqa: BLE001 - the agent's crash is shown in the chat
                code = "agent_crashed" if type(exc).__name__ == "AgentCrashed" else "agent_error"
                yield {
                    "type": "error",
                    "code": code,
                    "message": scrub_secrets(f"turn {number}: {_describe(exc)}"),
                    "traceback": scrub_secrets("".join(traceback.format_exception(exc))[-4000:]),
                }
                return
            if not isinstance(invocation, Invocation):
                kind = type(invocation).__name__
                message = f"turn {number}: the adapter returned {kind}, not an Invocation"
                yield {"type": "error", "code": "agent_error", "message": message}
                return
            if invocation.duration is None:
                invocation = invocation.model_copy(update={"duration": round(time.monotonic() - started, 3)})
            chat.invocations.append(invocation)
            yield from turn_events(invocation, number - 1)
        finally:
            chat.busy.release()

    def undo(self, chat_id: str) -> Chat:
        """Forget the last turn (the agent's own session keeps its memory of it)."""
        chat = self.get(chat_id)
        if chat.invocations:
            chat.invocations.pop()
        return chat

    def close(self, chat_id: str) -> None:
        with self._lock:
            chat = self._chats.pop(chat_id, None)
        if chat is not None and chat.session is not None:
            try:
                self._call(chat.session.aclose())
            except BaseException:  # noqa: BLE001 - closing must never fail the request
                pass

    def shutdown(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)


def _describe(exc: BaseException) -> str:
    cause = exc.__cause__ if isinstance(exc, RuntimeError) and exc.__cause__ else exc
    if cause is not exc:
        return str(exc)
    return f"the agent raised {type(exc).__name__}: {exc}"
