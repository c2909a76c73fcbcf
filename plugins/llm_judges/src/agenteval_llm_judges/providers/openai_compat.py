"""Judge models behind OpenAI's chat-completions API: OpenAI itself or any compatible
server (vLLM, Ollama, llama.cpp, LM Studio...). Named ``openai:MODEL``.

Configured from the environment, as the ``openai`` SDK is:

* ``OPENAI_API_KEY`` for api.openai.com;
* ``OPENAI_BASE_URL`` for another server (e.g. ``http://127.0.0.1:8000/v1``); the key is
  then optional (``not-needed`` is sent when none is set).

A request's JSON schema is sent as OpenAI's ``response_format`` ``json_schema``; servers
that refuse that get ``{"type": "json_object", "schema": ...}`` (llama-cpp-python) and
then no ``response_format`` at all (the prompt states the format).

The SDK is imported only when a call is made, and its own retries are off
(``max_retries=0``): agenteval's judge service retries, with the run's backoff and limits.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
from typing import Any, Optional
from urllib.parse import urlparse

from agenteval import JudgeRequest, JudgeResponse, JudgeUsage
from agenteval.errors import ConfigError, JudgeCallError
from agenteval.plugins import JudgeModel

from ._common import (
    MALFORMED,
    LoopClient,
    capped_async_client,
    clip,
    is_retryable_status,
    release,
    retry_after_seconds,
    status_code,
    transport_failure,
)

__all__ = ["OpenAICompatibleJudge"]


_OPENAI_URL = "https://api.openai.com/v1"
_NO_KEY = "not-needed"
# ADK's judge_model_config is a Gemini GenerateContentConfig; its common generation keys
# are translated, anything else must be a chat.completions.create() argument.
_GEMINI_NAMES = {
    "max_output_tokens": "max_tokens",
    "maxOutputTokens": "max_tokens",
    "top_p": "top_p",
    "topP": "top_p",
    "stop_sequences": "stop",
    "stopSequences": "stop",
    "presence_penalty": "presence_penalty",
    "presencePenalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "frequencyPenalty": "frequency_penalty",
    "candidate_count": "n",
    "candidateCount": "n",
}
# Managed here: the request's own fields and the client's settings.
_RESERVED = {"model", "messages", "stream", "stream_options"}


# How a JSON schema is sent, in the order tried (see ``generate``).
_SCHEMA_MODES = ("json_schema", "json_object", "none")


def _response_format(mode: str, schema: dict[str, Any]) -> Optional[dict[str, Any]]:
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "verdict", "schema": schema, "strict": False}}
    if mode == "json_object":  # llama-cpp-python's server (and llama.cpp's) take the schema here
        return {"type": "json_object", "schema": schema}
    return None


def _refuses_response_format(exc: Exception) -> bool:
    """The server rejected the request's ``response_format`` (400/422, or llama-cpp-python's
    500 for a request that fails validation)."""
    import openai

    if not isinstance(exc, openai.APIStatusError) or exc.status_code not in (400, 422, 500):
        return False
    text = f"{_message(exc)} {exc.body}".lower()
    return any(word in text for word in ("response_format", "response format", "json_schema"))


def _base_url() -> Optional[str]:
    return (os.environ.get("OPENAI_BASE_URL") or "").strip() or None


def _api_key() -> Optional[str]:
    return (os.environ.get("OPENAI_API_KEY") or "").strip() or None


class OpenAICompatibleJudge(JudgeModel):
    """A chat model behind an OpenAI-compatible API as a judge (``openai:MODEL``)."""

    def __init__(self, model: str) -> None:
        super().__init__(model)
        self._clients = LoopClient(self._new_client)
        self._client_base_url: Optional[str] = None
        self._schema_mode = _SCHEMA_MODES[0]

    # -- the contract ------------------------------------------------------------------
    def check_ready(self) -> None:
        if importlib.util.find_spec("openai") is None:
            raise ConfigError(
                f"judge model 'openai:{self.model}' needs the openai package: pip install openai"
            )
        if _api_key() is None and _base_url() is None:
            raise ConfigError(
                f"judge model 'openai:{self.model}': set OPENAI_API_KEY for api.openai.com, or "
                "OPENAI_BASE_URL for an OpenAI-compatible server (e.g. "
                "OPENAI_BASE_URL=http://127.0.0.1:8000/v1 for a local vLLM, Ollama or llama.cpp server)"
            )

    def identity(self) -> dict[str, Any]:
        base_url = self._client_base_url if self._clients.current is not None else _base_url()
        return {"provider": "openai", "model": self.model, "base_url": (base_url or _OPENAI_URL).rstrip("/")}

    async def generate(self, request: JudgeRequest) -> JudgeResponse:
        client = await self._clients.get()
        kwargs = self._arguments(request, client)
        schema = request.response_schema
        # Structured output: OpenAI's json_schema first; a server that refuses it (e.g.
        # llama-cpp-python's, which answers HTTP 500) gets {"type": "json_object",
        # "schema": ...}, then nothing (the prompt states the format). A format
        # negotiation, not a retry: each step is a different request, and the instance
        # remembers what worked. A response_format in judge_model_config wins outright.
        negotiate = schema is not None and "response_format" not in (request.config or {})
        modes = _SCHEMA_MODES[_SCHEMA_MODES.index(self._schema_mode) :] if negotiate else (None,)
        for position, mode in enumerate(modes):
            if negotiate:
                response_format = _response_format(mode, schema)
                if response_format is None:
                    kwargs.pop("response_format", None)
                else:
                    kwargs["response_format"] = response_format
            failure: Optional[JudgeCallError] = None
            try:
                response = await client.chat.completions.create(**kwargs)
            except Exception as exc:  # noqa: BLE001 - any SDK failure is classified as a judge-call error
                if position + 1 < len(modes) and _refuses_response_format(exc):
                    release(exc)
                    continue
                failure = self._call_error(exc)
                release(exc)  # the failed body goes now, not at the next full collection
            if failure is not None:
                raise failure  # outside the except: nothing chains to the released exception
            if negotiate:
                self._schema_mode = mode
            return self._read(response)
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    async def aclose(self) -> None:
        await self._clients.aclose()

    # -- helpers ---------------------------------------------------------------------
    def _endpoint(self) -> str:
        base_url = self._client_base_url if self._clients.current is not None else _base_url()
        return (base_url or _OPENAI_URL).rstrip("/")

    def _new_client(self) -> tuple[Any, Any]:
        """An OpenAI client for the running loop (``LoopClient``) and what closes it."""
        base_url, api_key = _base_url(), _api_key()
        if api_key is None and base_url is None:
            raise JudgeCallError(
                f"judge model 'openai:{self.model}': set OPENAI_API_KEY or OPENAI_BASE_URL", retryable=False
            )
        import openai

        try:
            # The httpx client is ours: it stops reading a body past the size cap.
            client = openai.AsyncOpenAI(
                base_url=base_url,
                api_key=api_key or _NO_KEY,
                max_retries=0,
                http_client=capped_async_client(),
            )
        except Exception as exc:
            raise JudgeCallError(
                f"judge model 'openai:{self.model}': could not set up the OpenAI client: {clip(exc)}",
                retryable=False,
            ) from exc
        self._client_base_url = base_url
        return client, client.close

    def _arguments(self, request: JudgeRequest, client: Any) -> dict[str, Any]:
        official = urlparse(self._endpoint()).hostname == "api.openai.com"
        # OpenAI's reasoning models refuse max_tokens; compatible servers know max_tokens best.
        max_name = "max_completion_tokens" if official else "max_tokens"
        accepted = set(inspect.signature(client.chat.completions.create).parameters)
        kwargs: dict[str, Any] = {}
        for key, value in (request.config or {}).items():
            name = _GEMINI_NAMES.get(key, key)
            if name == "max_tokens":
                name = max_name
            if name in _RESERVED or name not in accepted:
                raise JudgeCallError(
                    f"judge_model_config key {key!r} is not a chat.completions.create() argument of the "
                    "openai SDK; put server-specific settings under 'extra_body'",
                    retryable=False,
                )
            kwargs[name] = value
        messages = []
        if request.system_instruction is not None:
            messages.append({"role": "system", "content": request.system_instruction})
        messages.append({"role": "user", "content": request.prompt})
        kwargs["model"] = self.model
        kwargs["messages"] = messages
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature
        if request.max_output_tokens is not None:
            kwargs.pop("max_tokens", None)
            kwargs.pop("max_completion_tokens", None)
            kwargs[max_name] = request.max_output_tokens
        return kwargs

    def _read(self, response: Any) -> JudgeResponse:
        choices = getattr(response, "choices", None)
        if not isinstance(choices, list):
            raise JudgeCallError(
                f"{self._endpoint()} sent an answer that is not a chat completion "
                f"({clip(response, 120)!r}); is the base URL right?",
                retryable=False,
                code="judge_unparseable",
            )
        if not choices:
            raise JudgeCallError("the judge returned no text (no choices)", retryable=False)
        choice = choices[0]
        message = getattr(choice, "message", None)
        text = getattr(message, "content", None)
        if not isinstance(text, str) or not text.strip():
            refusal = getattr(message, "refusal", None)
            why = (
                f"refused: {clip(refusal)}"
                if refusal
                else f"finish reason {getattr(choice, 'finish_reason', None)}"
            )
            raise JudgeCallError(f"the judge returned no text ({why})", retryable=False)
        usage = getattr(response, "usage", None)
        return JudgeResponse(
            text=text,
            usage=JudgeUsage(
                input_tokens=getattr(usage, "prompt_tokens", None) or 0,
                output_tokens=getattr(usage, "completion_tokens", None) or 0,
            ),
            model_version=getattr(response, "model", None),
        )

    def _call_error(self, exc: Exception) -> JudgeCallError:
        import openai

        where = self._endpoint()
        if isinstance(exc, openai.APIStatusError):
            code = int(exc.status_code)
            hint = ""
            if code in (401, 403):
                hint = " (check OPENAI_API_KEY)"
            elif code == 404:
                hint = f" (is {self.model!r} a model the server serves, and does the base URL end in /v1?)"
            retryable = is_retryable_status(code, conflict=True)
            headers = getattr(getattr(exc, "response", None), "headers", None)
            return JudgeCallError(
                f"{where} answered: {clip(_message(exc))}{hint}",
                retryable=retryable,
                status=code,
                retry_after=retry_after_seconds(headers) if retryable else None,
                code=status_code(code),
            )
        if isinstance(exc, openai.APITimeoutError):
            return JudgeCallError(f"{where}: timed out", retryable=True, code="judge_timeout")
        transport = transport_failure(exc, where)
        if transport is not None:
            return transport
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            detail = f" ({type(cause).__name__}: {clip(cause)})" if cause is not None else ""
            return JudgeCallError(f"{where}: connection failed{detail}", retryable=True)
        if isinstance(exc, (openai.APIResponseValidationError, *MALFORMED)):
            # the SDK could not read the body (not JSON, wrong shape)
            return JudgeCallError(
                f"{where} sent an answer that is not a chat completion "
                f"({type(exc).__name__}: {clip(exc)}); is the base URL right?",
                retryable=False,
                code="judge_unparseable",
            )
        return JudgeCallError(f"{where}: unexpected {type(exc).__name__}: {clip(exc)}", retryable=False)


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str):
            return error
    return str(getattr(exc, "message", None) or exc)
