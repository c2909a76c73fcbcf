"""A judge model under a LiteLLM prefix (``groq/...``) when the ``litellm`` provider is not
installed names the distribution to install, before any call."""

from __future__ import annotations

import pytest
from agenteval import JudgeService
from agenteval._registry import ProviderRegistry
from agenteval.errors import ConfigError
from agenteval.plugins import JudgeModel


class _Gemini(JudgeModel):
    """Stands in for an installed provider that is not LiteLLM's."""

    unprefixed_patterns = ("gemini-*",)

    async def generate(self, request):  # pragma: no cover - never called here
        raise NotImplementedError


def _service(**providers) -> JudgeService:
    return JudgeService(providers=ProviderRegistry(providers))  # in memory: nothing else installed


@pytest.mark.parametrize(
    "spec",
    [
        "groq/llama-3.3-70b-versatile",
        "openai/gpt-4o-mini",
        "ollama/llama3",
        "anthropic/claude-3-5-sonnet",
        "azure/my-deployment",
    ],
)
@pytest.mark.parametrize("installed", [{}, {"gemini": _Gemini}])
def test_a_litellm_name_without_the_provider_says_what_to_install(spec, installed):
    with pytest.raises(ConfigError) as info:
        _service(**installed).preflight([spec])
    message = str(info.value)
    assert f"judge model {spec!r} is a LiteLLM model name" in message
    assert "agenteval-llm-judges[litellm] (pip install -e './plugins/llm_judges[litellm]')" in message


def test_other_unclaimed_names_keep_the_provider_model_advice():
    with pytest.raises(ConfigError) as info:
        _service(gemini=_Gemini).preflight(["mistral-large"])
    assert "no provider claims it" in str(info.value) and "LiteLLM" not in str(info.value)
