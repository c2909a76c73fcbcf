"""The ADK plugins agenteval adds to the runner, after the app's own plugins.

* ``RequestRecorder`` keeps the first model request each agent makes in each invocation,
  so the turn's ``app_details`` (instructions and tool declarations, which rubric judges
  read) can be filled in. It only reads: session state and responses are left alone;
* ``RetryDefaults`` gives model requests that have no retry options of their own ADK's eval
  retries (7 attempts, 5 s initial delay doubling up to 120 s, on HTTP 408, 429 and 5xx), as
  ADK's eval inference does, so a rate limit does not turn a whole case into an error.

Importing this module imports google-adk.
"""

from __future__ import annotations

from typing import Any, Optional

from google.adk.plugins.base_plugin import BasePlugin
from google.genai import types

__all__ = ["RequestRecorder", "RetryDefaults"]

_RETRY = types.HttpRetryOptions(
    attempts=7,
    initial_delay=5.0,
    max_delay=120.0,
    exp_base=2.0,
    http_status_codes=[408, 429, 500, 502, 503, 504],
)


class RequestRecorder(BasePlugin):
    """Remembers ``{invocation id: {agent name: first LlmRequest}}``."""

    def __init__(self) -> None:
        super().__init__(name="agenteval_request_recorder")
        self._requests: dict[str, dict[str, Any]] = {}

    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> Optional[Any]:
        by_agent = self._requests.setdefault(callback_context.invocation_id, {})
        by_agent.setdefault(callback_context.agent_name, llm_request)
        return None

    def take(self, invocation_id: str) -> dict[str, Any]:
        """The requests recorded for ``invocation_id``, forgotten once taken."""
        return self._requests.pop(invocation_id, {})


class RetryDefaults(BasePlugin):
    """Adds retry options to model requests that set none."""

    def __init__(self) -> None:
        super().__init__(name="agenteval_retry_defaults")

    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> Optional[Any]:
        config = llm_request.config = llm_request.config or types.GenerateContentConfig()
        options = config.http_options = config.http_options or types.HttpOptions()
        if options.retry_options is None:
            options.retry_options = _RETRY.model_copy()
        return None
