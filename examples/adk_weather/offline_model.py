"""A STAND-IN for a real LLM, so that this example runs offline and without an API key.

``OfflineWeatherModel`` is an ADK ``BaseLlm`` that follows a few fixed rules instead of
calling a model: it looks at the latest user message (or the tool result it was just
given) and answers with a tool call, a ``transfer_to_agent`` call or a sentence built from
the tool's result. It understands exactly what this example's eval set asks, nothing
more. Set ``ADK_EXAMPLE_MODEL`` (e.g. ``gemini-2.5-flash``) to run the agents on a real
model instead; see ``agent.py``.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

CITIES = ("Paris", "Tokyo", "Cairo", "London")
_DAYS = re.compile(r"next (\d+) days")


def _latest_user_text(request: LlmRequest) -> str:
    """The user's latest own message (ADK quotes other agents' turns as user messages
    starting with "For context:"; those are skipped)."""
    for content in reversed(request.contents):
        texts = [p.text for p in content.parts or [] if p.text]
        if content.role == "user" and texts and not texts[0].startswith("For context:"):
            return " ".join(texts)
    return ""


def _city(request: LlmRequest) -> str:
    """The last city the user named in this conversation."""
    for content in reversed(request.contents):
        for part in reversed(content.parts or []):
            for city in CITIES:
                if part.text and content.role == "user" and city in part.text:
                    return city
    return ""


def _all_text(request: LlmRequest) -> str:
    return " ".join(p.text for c in request.contents for p in c.parts or [] if p.text)


def _call(name: str, **args: Any) -> types.Part:
    return types.Part(function_call=types.FunctionCall(name=name, args=args))


def _answer_tool_result(response: types.FunctionResponse) -> str:
    found = response.response or {}
    if response.name == "get_weather":
        return (
            f"It is {found['temperature']}°{found['unit']} and {found['conditions']} "
            f"in {found['city']} right now."
        )
    return f"Expect {found['summary']} in {found['city']} over the next {found['days']} days."


class OfflineWeatherModel(BaseLlm):
    """Rule-based replies for ``role`` ``"assistant"`` (the root agent) or ``"packing"``."""

    model: str = "offline-weather-stand-in"
    role: str = "assistant"

    def _reply(self, request: LlmRequest) -> list[types.Part]:
        last = request.contents[-1] if request.contents else None
        responses = [p.function_response for p in (last.parts or []) if p.function_response] if last else []
        if self.role == "packing":
            if "rain" in _all_text(request).lower():
                return [types.Part(text="Pack an umbrella and a waterproof jacket for the rain.")]
            return [types.Part(text="Pack light layers, sunglasses and a hat.")]
        if responses:
            return [types.Part(text=_answer_tool_result(responses[-1]))]
        message = _latest_user_text(request).lower()
        city = _city(request)
        if "pack" in message or "wear" in message:
            return [_call("transfer_to_agent", agent_name="packing_advisor")]
        if city and "forecast" in message:
            days = _DAYS.search(message)
            return [_call("get_forecast", city=city, days=int(days.group(1)) if days else 3)]
        if city:
            return [_call("get_weather", city=city)]
        return [types.Part(text="I can tell you the current weather or the forecast for a city.")]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        parts = self._reply(llm_request)
        # Word counts stand in for token counts, so that usage is reported as a model would.
        prompt = len(_all_text(llm_request).split())
        reply = sum(len((p.text or "").split()) or 1 for p in parts)
        usage = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=prompt, candidates_token_count=reply, total_token_count=prompt + reply
        )
        yield LlmResponse(
            content=types.Content(role="model", parts=parts), usage_metadata=usage, model_version=self.model
        )
