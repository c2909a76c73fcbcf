"""Opt-in: one real call per provider, to the real service.

Runs only with ``AGENTEVAL_LIVE=1`` and credentials in the environment:

* Gemini: ``GOOGLE_API_KEY`` / ``GEMINI_API_KEY`` (or Vertex AI settings);
  model ``AGENTEVAL_LIVE_GEMINI_MODEL`` (default ``gemini-2.5-flash``).
* OpenAI: ``OPENAI_API_KEY`` (and ``OPENAI_BASE_URL`` for another server);
  model ``AGENTEVAL_LIVE_OPENAI_MODEL`` (default ``gpt-4o-mini``).

    AGENTEVAL_LIVE=1 GOOGLE_API_KEY=... python -m pytest -m live tests/plugins/llm_judges
"""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from agenteval import JudgeRequest, JudgeResponse
from agenteval.plugins import JudgeModel
from agenteval_llm_judges.providers.gemini import GeminiJudge
from agenteval_llm_judges.providers.openai_compat import OpenAICompatibleJudge

pytestmark = pytest.mark.live

LIVE = os.environ.get("AGENTEVAL_LIVE") == "1"
GEMINI_CONFIGURED = bool(
    os.environ.get("GOOGLE_API_KEY")
    or os.environ.get("GEMINI_API_KEY")
    or os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in ("true", "1")
)
SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "integer"}},
    "required": ["answer"],
}
REQUEST = JudgeRequest(
    prompt='What is 2 + 3? Answer as JSON: {"answer": <integer>}.',
    system_instruction="You answer arithmetic questions.",
    response_schema=SCHEMA,
    temperature=0.0,
    max_output_tokens=1024,
)


def one_call(judge: JudgeModel) -> JudgeResponse:
    async def go() -> JudgeResponse:
        try:
            return await asyncio.wait_for(judge.generate(REQUEST), 120)
        finally:
            await judge.aclose()

    judge.check_ready()
    return asyncio.run(go())


@pytest.mark.skipif(not (LIVE and GEMINI_CONFIGURED), reason="set AGENTEVAL_LIVE=1 and GOOGLE_API_KEY")
def test_live_gemini() -> None:
    response = one_call(GeminiJudge(os.environ.get("AGENTEVAL_LIVE_GEMINI_MODEL", "gemini-2.5-flash")))
    assert json.loads(response.text)["answer"] == 5
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0


@pytest.mark.skipif(
    not (LIVE and os.environ.get("OPENAI_API_KEY")), reason="set AGENTEVAL_LIVE=1 and OPENAI_API_KEY"
)
def test_live_openai() -> None:
    response = one_call(OpenAICompatibleJudge(os.environ.get("AGENTEVAL_LIVE_OPENAI_MODEL", "gpt-4o-mini")))
    assert json.loads(response.text)["answer"] == 5
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0
