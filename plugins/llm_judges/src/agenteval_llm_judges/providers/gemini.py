"""Gemini judge models through ``google-genai``: the Gemini API or Vertex AI.

Configured like ADK and the SDK, from the environment:

* Gemini API: ``GOOGLE_API_KEY`` (or ``GEMINI_API_KEY``).
* Vertex AI: ``GOOGLE_GENAI_USE_VERTEXAI=true`` with ``GOOGLE_CLOUD_PROJECT`` and
  ``GOOGLE_CLOUD_LOCATION`` and Application Default Credentials (or, for Vertex AI
  express mode, an API key instead of the project and location).
* Endpoints: the SDK's own ``GOOGLE_GEMINI_BASE_URL`` / ``GOOGLE_VERTEX_BASE_URL``.

The SDK is imported only when a call is made, so listing criteria or a deterministic
run never pays for it. The SDK's own retries stay off (``HttpOptions`` without
``retry_options``): agenteval's judge service retries, with the run's backoff and limits.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import Any, ClassVar, Optional

from agenteval import JudgeRequest, JudgeResponse, JudgeUsage
from agenteval.errors import ConfigError, JudgeCallError
from agenteval.plugins import JudgeModel, google_auth_error

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
from ._genai_models import request_models

__all__ = ["GeminiJudge"]

_TRUE = ("true", "1")
_GEMINI_API_URL = "https://generativelanguage.googleapis.com/"
_SETUP_HINT = (
    "set GOOGLE_API_KEY (or GEMINI_API_KEY) for the Gemini API, or GOOGLE_GENAI_USE_VERTEXAI=true "
    "with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION for Vertex AI (with Application Default "
    "Credentials, e.g. `gcloud auth application-default login`)"
)


@dataclass(frozen=True)
class _Settings:
    """Where and how to call, read from the environment (``api_key`` is never shown)."""

    mode: str  # "api" or "vertex"
    api_key: Optional[str]
    project: Optional[str]
    location: Optional[str]
    base_url: Optional[str]  # the override, if any

    @classmethod
    def from_env(cls) -> _Settings:
        env = os.environ
        api_key = (
            (env.get("GOOGLE_API_KEY") or "").strip() or (env.get("GEMINI_API_KEY") or "").strip() or None
        )
        vertex = (env.get("GOOGLE_GENAI_USE_VERTEXAI") or "").strip().lower() in _TRUE
        if vertex:
            return cls(
                mode="vertex",
                api_key=api_key,
                project=(env.get("GOOGLE_CLOUD_PROJECT") or "").strip() or None,
                location=(env.get("GOOGLE_CLOUD_LOCATION") or "").strip() or None,
                base_url=(env.get("GOOGLE_VERTEX_BASE_URL") or "").strip() or None,
            )
        return cls(
            mode="api",
            api_key=api_key,
            project=None,
            location=None,
            base_url=(env.get("GOOGLE_GEMINI_BASE_URL") or "").strip() or None,
        )

    @property
    def uses_adc(self) -> bool:
        """Vertex AI with project and location (Application Default Credentials), as
        opposed to Vertex AI express mode (an API key)."""
        return self.mode == "vertex" and bool(self.project and self.location)

    def endpoint(self) -> str:
        if self.base_url:
            return self.base_url
        if self.mode == "api":
            return _GEMINI_API_URL
        if not self.uses_adc or self.location == "global":
            return "https://aiplatform.googleapis.com/"
        return f"https://{self.location}-aiplatform.googleapis.com/"

    def problem(self) -> Optional[str]:
        """What is missing, or ``None`` when a call can be made."""
        if self.mode == "api":
            return None if self.api_key else f"no Gemini credentials: {_SETUP_HINT}"
        if self.uses_adc:
            creds = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS")
            if creds and not os.path.isfile(creds):
                return f"GOOGLE_APPLICATION_CREDENTIALS points to {creds!r}, which is not a file"
            return None
        if self.api_key and not (self.project or self.location):
            return None  # Vertex AI express mode
        missing = [
            name
            for name, value in (
                ("GOOGLE_CLOUD_PROJECT", self.project),
                ("GOOGLE_CLOUD_LOCATION", self.location),
            )
            if not value
        ]
        return (
            f"GOOGLE_GENAI_USE_VERTEXAI is true but {' and '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not set: set GOOGLE_CLOUD_PROJECT and "
            "GOOGLE_CLOUD_LOCATION for Vertex AI (or unset GOOGLE_GENAI_USE_VERTEXAI and set "
            "GOOGLE_API_KEY for the Gemini API)"
        )


class GeminiJudge(JudgeModel):
    """A Gemini model as a judge (``gemini-2.5-flash`` or ``gemini:MODEL``)."""

    unprefixed_patterns: ClassVar[tuple[str, ...]] = ("gemini-*",)

    def __init__(self, model: str) -> None:
        super().__init__(model)
        self._clients = LoopClient(self._new_client)
        self._settings: Optional[_Settings] = None

    # -- the contract ------------------------------------------------------------------
    def check_ready(self) -> None:
        if importlib.util.find_spec("google.genai") is None:
            raise ConfigError(
                f"judge model {self.model!r} needs the google-genai package: pip install google-genai"
            )
        problem = _Settings.from_env().problem()
        if problem:
            raise ConfigError(f"judge model {self.model!r}: {problem}")

    def identity(self) -> dict[str, Any]:
        settings = self._current_settings()
        identity: dict[str, Any] = {
            "provider": "gemini",
            "model": self.model,
            "mode": settings.mode,
            "base_url": settings.endpoint(),
        }
        if settings.mode == "vertex":
            identity["project"] = settings.project
            identity["location"] = settings.location
        return identity

    async def generate(self, request: JudgeRequest) -> JudgeResponse:
        from google.genai import types

        config = self._config(request, types)
        client = await self._clients.get()
        failure: Optional[JudgeCallError] = None
        try:
            response = await client.aio.models.generate_content(
                model=self.model, contents=[request_models().user_text(request.prompt)], config=config
            )
        except Exception as exc:  # noqa: BLE001 - any SDK failure is classified as a judge-call error
            failure = self._call_error(exc)
            release(exc)  # the failed body goes now, not at the next full collection
        if failure is not None:
            raise failure  # outside the except: nothing chains to the released exception
        return self._read(response)

    async def aclose(self) -> None:
        await self._clients.aclose()

    # -- helpers ---------------------------------------------------------------------
    def _current_settings(self) -> _Settings:
        return self._settings if self._settings is not None else _Settings.from_env()

    def _new_client(self) -> tuple[Any, Any]:
        """A Gemini client for the running loop (``LoopClient``) and what closes it."""
        settings = _Settings.from_env()
        problem = settings.problem()
        if problem:
            raise JudgeCallError(f"judge model {self.model!r}: {problem}", retryable=False)
        from google import genai
        from google.genai import types

        kwargs: dict[str, Any] = {"vertexai": settings.mode == "vertex"}
        if settings.mode == "api":
            kwargs["api_key"] = settings.api_key
        elif settings.uses_adc:
            # Passed explicitly (not left to the SDK's own environment lookup): with a base
            # URL override the SDK drops environment-only project/location from the path.
            kwargs["project"] = settings.project
            kwargs["location"] = settings.location
        else:
            kwargs["api_key"] = settings.api_key
        try:
            # No retry_options: the SDK does not retry; the judge service does. The base
            # URL comes from GOOGLE_GEMINI_BASE_URL / GOOGLE_VERTEX_BASE_URL (the SDK).
            # The httpx client is ours: it stops reading a body past the size cap.
            http = capped_async_client()
            client = genai.Client(http_options=types.HttpOptions(httpx_async_client=http), **kwargs)
        except Exception as exc:
            raise JudgeCallError(
                f"judge model {self.model!r}: could not set up the Gemini client: {clip(exc)}",
                retryable=False,
            ) from exc
        self._settings = settings

        async def close() -> None:
            await client.aio.aclose()
            client.close()
            await http.aclose()

        return client, close

    def _config(self, request: JudgeRequest, types: Any) -> Any:
        import pydantic

        models = request_models()
        try:
            config = models.config.model_validate(request.config or {})
        except pydantic.ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(top level)'}: {err['msg']}"
                for err in exc.errors()
            )
            raise JudgeCallError(
                f"judge_model_config is not a valid google-genai GenerateContentConfig ({clip(problems)})",
                retryable=False,
            ) from exc
        if config.http_options is not None and config.http_options.retry_options is not None:
            raise JudgeCallError(
                "judge_model_config.http_options.retry_options: agenteval retries judge calls itself "
                "(judge_model_options.max_retries); remove retry_options",
                retryable=False,
            )
        update: dict[str, Any] = {
            "automatic_function_calling": types.AutomaticFunctionCallingConfig(disable=True),
        }
        if request.system_instruction is not None:
            update["system_instruction"] = models.user_text(request.system_instruction)
        if request.temperature is not None:
            update["temperature"] = request.temperature
        if request.max_output_tokens is not None:
            update["max_output_tokens"] = request.max_output_tokens
        if request.response_schema is not None:
            # A plain JSON-schema dict goes in response_json_schema (response_schema wants
            # the SDK's OpenAPI-subset Schema); one of the two, not both.
            update["response_mime_type"] = "application/json"
            update["response_json_schema"] = request.response_schema
            update["response_schema"] = None
        return config.model_copy(update=update)

    def _read(self, response: Any) -> JudgeResponse:
        candidates = getattr(response, "candidates", None) or []
        if not candidates:
            feedback = getattr(response, "prompt_feedback", None)
            reason = _name(getattr(feedback, "block_reason", None)) if feedback is not None else None
            why = f"the prompt was blocked: {reason}" if reason else "no candidates"
            raise JudgeCallError(f"the judge returned no text ({why})", retryable=False)
        candidate = candidates[0]
        content = getattr(candidate, "content", None)
        parts = getattr(content, "parts", None) or []
        text = "".join(p.text for p in parts if getattr(p, "text", None) and not getattr(p, "thought", False))
        if not text.strip():
            reason = _name(getattr(candidate, "finish_reason", None)) or "unknown"
            raise JudgeCallError(f"the judge returned no text (finish reason {reason})", retryable=False)
        usage = getattr(response, "usage_metadata", None)
        output_tokens = (getattr(usage, "candidates_token_count", None) or 0) + (
            getattr(usage, "thoughts_token_count", None) or 0
        )
        return JudgeResponse(
            text=text,
            usage=JudgeUsage(
                input_tokens=getattr(usage, "prompt_token_count", None) or 0,
                output_tokens=output_tokens,
            ),
            model_version=getattr(response, "model_version", None),
        )

    def _call_error(self, exc: Exception) -> JudgeCallError:
        from google.genai import errors

        where = "Vertex AI" if self._current_settings().mode == "vertex" else "the Gemini API"
        if isinstance(exc, JudgeCallError):
            return exc
        if isinstance(exc, errors.APIError):
            code = int(exc.code or 0)
            detail = clip(exc.message or exc.details or "no detail")
            hint = ""
            if code in (401, 403):
                hint = " (check the API key or the Application Default Credentials and their project)"
            elif code == 404:
                hint = f" (is {self.model!r} a model name {where} knows?)"
            retryable = is_retryable_status(code)
            return JudgeCallError(
                f"{where} answered {exc.status or 'an error'}: {detail}{hint}",
                retryable=retryable,
                status=code or None,
                retry_after=_retry_after(exc) if retryable else None,
                code=status_code(code),
            )
        transport = transport_failure(exc, f"{where} at {self._current_settings().endpoint()}")
        if transport is not None:
            return transport
        auth = google_auth_error(exc, "Vertex AI")
        if auth is not None:
            return auth
        if isinstance(exc, MALFORMED):  # the SDK could not read the body (not JSON, wrong shape)
            return JudgeCallError(
                f"{where} sent an answer that is not a valid generateContent response "
                f"({type(exc).__name__}: {clip(exc)}); is the base URL right?",
                retryable=False,
                code="judge_unparseable",
            )
        return JudgeCallError(f"{where}: unexpected {type(exc).__name__}: {clip(exc)}", retryable=False)


def _name(value: Any) -> Optional[str]:
    if value is None:
        return None
    return str(getattr(value, "name", None) or getattr(value, "value", None) or value)


def _retry_after(exc: Any) -> Optional[float]:
    """``Retry-After`` from the HTTP response, else the ``RetryInfo.retryDelay`` that the
    Gemini API puts in a 429's error details (``"17s"``)."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    seconds = retry_after_seconds(headers) if headers is not None else None
    if seconds is not None:
        return seconds
    details = getattr(exc, "details", None)
    error = details.get("error", details) if isinstance(details, dict) else None
    items = error.get("details") if isinstance(error, dict) else None
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("google.rpc.RetryInfo"):
            delay = str(item.get("retryDelay", "")).strip()
            if delay.endswith("s"):
                try:
                    return max(0.0, float(delay[:-1]))
                except ValueError:
                    return None
    return None
