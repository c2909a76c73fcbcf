"""The ``http`` agent adapter: an agent served behind an OpenAI-compatible chat API.

``agenteval run EVALSET --agent http://127.0.0.1:8000/v1?model=my-agent`` sends each user
turn to ``POST {base}/chat/completions`` with the conversation so far (user messages and the
agent's earlier answers, as ``user`` and ``assistant`` text messages; for a case that starts
with history, ``EvalCase.history()``, its turns come first, written the same way: the
recorded final responses as ``assistant`` messages, their tool calls left out as the agent's
own are) and records the answer: its ``content`` is the final response (text, or the text of
a list of text parts) and its ``tool_calls`` (name and JSON object arguments) the turn's
tool calls, in the legacy ``tool_uses`` form. When the answer has OpenAI's ``usage`` object,
the turn is recorded in ADK's event form instead, with one model-call event carrying that
usage (as Gemini ``usage_metadata``) and the answer's ``model``: ``token_usage_v1`` reports
the endpoint's tokens and ``inference_call_count_v1`` counts the one completion the endpoint
answered (calls the agent makes behind the endpoint are not visible). Without ``usage`` both
are NOT_EVALUATED for the turn. ``model`` defaults to ``agent``. A bearer token is taken
from ``AGENTEVAL_AGENT_API_KEY`` when set; it is scrubbed from every error message, even
when the server echoes it. A non-2xx answer or a malformed body raises, which makes that
case ERRORED with the reason; the run goes on.
"""

from __future__ import annotations

import json
import os
from typing import Any, Optional
from urllib.parse import parse_qs, urlsplit, urlunsplit

from agenteval.errors import ConfigError
from agenteval.models import Content, EvalCase, Invocation
from agenteval.plugins import Agent, AgentSession, register_secret, scrub_secrets

from ._usage import model_call_event

__all__ = ["HttpAgent"]

DEFAULT_MODEL = "agent"
#: The author of the events recorded for the endpoint's answer.
_AUTHOR = "agent"


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tool_call(call: Any, index: int) -> dict[str, Any]:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        raise ValueError(f"tool_calls[{index}] has no function name: {_clip(json.dumps(call))}")
    raw = function.get("arguments")
    try:
        args = (
            json.loads(raw)
            if isinstance(raw, str) and raw.strip()
            else (raw if isinstance(raw, dict) else {})
        )
    except json.JSONDecodeError:
        msg = f"tool_calls[{index}] ({function['name']}) has arguments that are not JSON: {_clip(raw)}"
        raise ValueError(msg) from None
    if not isinstance(args, dict):
        msg = (
            f"tool_calls[{index}] ({function['name']}) has arguments that are not a JSON object: {_clip(raw)}"
        )
        raise ValueError(msg)
    call_id = call.get("id")
    return {"id": call_id if isinstance(call_id, str) else None, "name": function["name"], "args": args}


def _content(message: dict[str, Any]) -> str:
    """The answer's text: ``content`` as a string (``null``: none), or the text of a list of
    content parts (``{"type": "text", "text": ...}``, as some OpenAI-compatible servers send)."""
    content = message.get("content")
    if content is None or isinstance(content, str):
        return content or ""
    parts = content if isinstance(content, list) else None
    if parts is not None and all(isinstance(p, dict) and isinstance(p.get("text", ""), str) for p in parts):
        return "".join(p.get("text", "") for p in parts if p.get("type", "text") == "text")
    raise ValueError(f"content is neither text nor a list of text parts: {_clip(json.dumps(content))}")


def _messages(history: list[Invocation]) -> list[dict[str, Any]]:
    """Recorded turns as chat messages: the user's text, then the final response's."""
    messages = []
    for turn in history:
        messages.append({"role": "user", "content": turn.user_content.text()})
        messages.append({"role": "assistant", "content": turn.final_text()})
    return messages


class _Session(AgentSession):
    def __init__(self, agent: HttpAgent, history: list[Invocation]) -> None:
        self._agent = agent
        self._messages = _messages(history)

    async def turn(self, user_content: Content) -> Invocation:
        self._messages.append({"role": "user", "content": user_content.text()})
        body = {"model": self._agent.model, "messages": self._messages}
        answer = await self._agent.client().post(self._agent.endpoint, json=body)
        if answer.status_code // 100 != 2:
            raise RuntimeError(
                scrub_secrets(
                    f"{self._agent.endpoint} answered HTTP {answer.status_code}: {_clip(answer.text)}"
                )
            )
        try:
            completion = answer.json()
            message = completion["choices"][0]["message"]
            if not isinstance(message, dict):
                raise TypeError("a message is an object")
        except (ValueError, KeyError, IndexError, TypeError):
            raise ValueError(
                scrub_secrets(f"{self._agent.endpoint} sent no chat completion: {_clip(answer.text)}")
            ) from None
        try:
            content = _content(message)
            tool_calls = message.get("tool_calls") or []
            if not isinstance(tool_calls, list):
                raise ValueError(f"tool_calls is not a list: {_clip(json.dumps(tool_calls))}")
            calls = [_tool_call(call, i) for i, call in enumerate(tool_calls)]
        except ValueError as exc:
            raise ValueError(
                scrub_secrets(f"{self._agent.endpoint} sent a malformed message: {exc}")
            ) from None
        self._messages.append({"role": "assistant", "content": content})
        return Invocation.model_validate(
            {
                "invocation_id": f"turn-{len(self._messages) // 2}",
                "user_content": user_content,
                "final_response": {"role": "model", "parts": [{"text": content}]},
                "intermediate_data": self._intermediate(calls, completion),
            }
        )

    def _intermediate(self, calls: list[dict[str, Any]], completion: dict[str, Any]) -> dict[str, Any]:
        usage = completion.get("usage")
        if usage is None:
            return {"tool_uses": calls}
        model = completion.get("model")
        try:
            model_call = model_call_event(_AUTHOR, usage, model if isinstance(model, str) else None)
        except ValueError as exc:
            raise ValueError(f"{self._agent.endpoint} sent a malformed usage: {exc}") from None
        events = [
            {"author": _AUTHOR, "content": {"role": "model", "parts": [{"function_call": c}]}} for c in calls
        ]
        return {"invocation_events": [*events, model_call]}


class HttpAgent(Agent):
    """Talks to an agent behind an OpenAI-compatible ``/chat/completions`` endpoint."""

    description = "an OpenAI-compatible chat endpoint: http(s)://HOST/v1?model=NAME"
    takes_history = True  # the case's history opens the ``messages``

    def __init__(self, target: str) -> None:
        super().__init__(target)
        parts = urlsplit(target)
        self.model = (parse_qs(parts.query).get("model") or [DEFAULT_MODEL])[0]
        base = urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
        self.endpoint = f"{base}/chat/completions"
        self._client: Optional[Any] = None

    @classmethod
    def claims(cls, target: str) -> bool:
        return target.startswith(("http://", "https://"))

    def check_ready(self) -> None:
        parts = urlsplit(self.target)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(f"--agent {self.target!r}: expected http(s)://HOST[:PORT]/v1[?model=NAME]")

    def client(self) -> Any:
        if self._client is None:
            import httpx

            key = os.environ.get("AGENTEVAL_AGENT_API_KEY")
            register_secret(key)  # never echoed in a case's error, whatever the server says
            headers = {"Authorization": f"Bearer {key}"} if key else {}
            # The engine enforces --agent-timeout per turn; no second, shorter timeout here.
            self._client = httpx.AsyncClient(headers=headers, timeout=None)
        return self._client

    async def session(self, case: EvalCase) -> AgentSession:
        return _Session(self, case.history())

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
