"""Judge models reached through LiteLLM, under ADK's LiteLLM-prefixed names
(``openai/gpt-4o``, ``azure/my-deployment``, ``ollama/llama3``, ``groq/llama-3.3-70b-versatile``,
``anthropic/claude-...``...), or explicitly as ``litellm:PROVIDER/MODEL``.

Needs the ``litellm`` extra (``pip install 'agenteval-llm-judges[litellm]'``); without it,
such a name stops the run before any call with that command. Credentials and endpoints
are LiteLLM's own environment variables (``GROQ_API_KEY``, ``OPENAI_API_KEY`` and
``OPENAI_API_BASE``, ``AZURE_API_KEY`` and ``AZURE_API_BASE``, ``OLLAMA_API_BASE``...),
checked before any call with LiteLLM's ``validate_environment``.

LiteLLM fetches a model-price map from the internet when imported unless
``LITELLM_LOCAL_MODEL_COST_MAP`` is set: it is set to ``True`` (unless already set) before
LiteLLM is imported, so no call is made that the run did not ask for. LiteLLM's own retries
are off (``num_retries=0``); the judge service retries, with the run's limits. A JSON schema
is sent as OpenAI's ``response_format`` (``drop_params`` lets LiteLLM leave it out for a
provider that has none; the prompt states the format too).
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any, ClassVar

from agenteval import JudgeRequest, JudgeResponse, JudgeUsage
from agenteval.errors import ConfigError, JudgeCallError
from agenteval.plugins import JudgeModel

from ._common import clip, is_retryable_status, release, retry_after_seconds, status_code, transport_failure

__all__ = ["INSTALL", "LiteLLMJudge", "import_litellm"]

#: What to run when LiteLLM is missing.
INSTALL = "pip install 'agenteval-llm-judges[litellm]'"


def import_litellm() -> Any:
    """``litellm``, imported with its price map read locally (no network call)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    return litellm


class LiteLLMJudge(JudgeModel):
    """A judge model reached through LiteLLM (``groq/...``, ``ollama/...``, ``litellm:...``)."""

    #: ADK's LiteLLM-prefixed model names (its LLM registry sends these to LiteLLM).
    unprefixed_patterns: ClassVar[tuple[str, ...]] = (
        "openai/*",
        "azure/*",
        "azure_ai/*",
        "ollama/*",
        "ollama_chat/*",
        "groq/*",
        "anthropic/*",
        "mistral/*",
        "together_ai/*",
        "fireworks_ai/*",
        "deepseek/*",
        "xai/*",
        "openrouter/*",
        "bedrock/*",
        "huggingface/*",
        "hosted_vllm/*",
    )

    def check_ready(self) -> None:
        if importlib.util.find_spec("litellm") is None:
            raise ConfigError(
                f"judge model {self.model!r} is reached through LiteLLM, which is not installed: {INSTALL}"
            )
        litellm = import_litellm()
        try:
            found = litellm.validate_environment(model=self.model)
        except Exception as exc:  # noqa: BLE001 - LiteLLM does not know the provider
            raise ConfigError(f"judge model {self.model!r}: LiteLLM cannot use it: {clip(exc)}") from None
        missing = found.get("missing_keys") or []
        if missing and not found.get("keys_in_environment"):
            raise ConfigError(f"judge model {self.model!r} (through LiteLLM): set {', '.join(missing)}")

    def identity(self) -> dict[str, Any]:
        base = None
        for name in ("OPENAI_API_BASE", "OPENAI_BASE_URL", "AZURE_API_BASE", "OLLAMA_API_BASE"):
            if self.model.split("/", 1)[0].upper() in name and os.environ.get(name):
                base = os.environ[name].rstrip("/")
                break
        return {"provider": "litellm", "model": self.model, "base_url": base}

    async def generate(self, request: JudgeRequest) -> JudgeResponse:
        litellm = import_litellm()
        kwargs: dict[str, Any] = dict(request.config or {})
        messages = []
        if request.system_instruction is not None:
            messages.append({"role": "system", "content": request.system_instruction})
        messages.append({"role": "user", "content": request.prompt})
        kwargs.update(model=self.model, messages=messages, num_retries=0, drop_params=True)
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature
        if request.max_output_tokens is not None:
            kwargs["max_tokens"] = request.max_output_tokens
        if request.response_schema is not None and "response_format" not in kwargs:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "verdict", "schema": request.response_schema, "strict": False},
            }
        failure = None
        try:
            response = await litellm.acompletion(**kwargs)
        except Exception as exc:  # noqa: BLE001 - any SDK failure is classified as a judge-call error
            failure = self._call_error(exc)
            release(exc)
        if failure is not None:
            raise failure
        return self._read(response)

    def _read(self, response: Any) -> JudgeResponse:
        choices = getattr(response, "choices", None) or []
        message = getattr(choices[0], "message", None) if choices else None
        text = getattr(message, "content", None)
        if not isinstance(text, str) or not text.strip():
            raise JudgeCallError(f"the judge {self.model!r} returned no text", retryable=False)
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
        where = f"judge model {self.model!r} (through LiteLLM)"
        name = type(exc).__name__
        if "Timeout" in name:
            return JudgeCallError(f"{where}: timed out", retryable=True, code="judge_timeout")
        code = getattr(exc, "status_code", None)
        transport = transport_failure(exc, where)
        if transport is not None:
            return transport
        if isinstance(code, int) and 400 <= code < 600 and name != "APIConnectionError":
            retryable = is_retryable_status(code, conflict=True)
            headers = getattr(getattr(exc, "response", None), "headers", None)
            return JudgeCallError(
                f"{where} answered HTTP {code}: {clip(getattr(exc, 'message', None) or exc)}",
                retryable=retryable,
                status=code,
                retry_after=retry_after_seconds(headers) if retryable else None,
                code=status_code(code),
            )
        if name == "APIConnectionError":
            return JudgeCallError(f"{where}: connection failed: {clip(exc)}", retryable=True)
        return JudgeCallError(f"{where}: unexpected {name}: {clip(exc)}", retryable=False)
