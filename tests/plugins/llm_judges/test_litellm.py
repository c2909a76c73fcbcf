"""``LiteLLMJudge`` through the real LiteLLM client against the loopback
``FakeOpenAIServer``: ADK's LiteLLM-prefixed names, the judge service, the CLI, the
install hint, and no network call at import."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from agenteval import JudgeOptions, JudgeRequest, JudgeService
from agenteval.cli import main
from agenteval.errors import ConfigError, JudgeCallError
from agenteval_llm_judges.providers.litellm import INSTALL, LiteLLMJudge

pytest.importorskip("litellm")
# LiteLLM's response types trip a pydantic warning on import; the suite treats warnings as errors.
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly.*", "ignore::DeprecationWarning")

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "travel"
SCHEMA = {"type": "object", "properties": {"verdict": {"type": "string"}}, "required": ["verdict"]}


@pytest.fixture
def litellm_env(clean_judge_env, monkeypatch, fake_openai):
    """``openai/MODEL`` through LiteLLM reaches ``fake_openai``."""
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    monkeypatch.setenv("OPENAI_API_BASE", f"{fake_openai.base_url}/v1")
    monkeypatch.setenv("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "0.01")
    return fake_openai


@pytest.mark.parametrize(
    "name",
    [
        "openai/gpt-4o-mini",
        "azure/my-deployment",
        "ollama/llama3:8b",
        "groq/llama-3.3-70b-versatile",
        "anthropic/x",
    ],
)
def test_adks_litellm_names_resolve_to_the_litellm_provider(name):
    model = JudgeService().model(name)
    assert isinstance(model, LiteLLMJudge) and model.model == name
    assert JudgeService().model("litellm:groq/x").model == "groq/x"
    assert JudgeService().model("gemini-2.5-flash").identity()["provider"] == "gemini"


def test_without_litellm_installed_the_run_stops_with_the_install_command(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "litellm" else real(n, *a))
    with pytest.raises(ConfigError) as raised:
        LiteLLMJudge("groq/llama-3.3-70b-versatile").check_ready()
    assert "not installed: pip install 'agenteval-llm-judges[litellm]'" in str(raised.value)
    assert INSTALL in str(raised.value)


def test_missing_credentials_are_named_by_litellms_rule(clean_judge_env, monkeypatch):
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="set GROQ_API_KEY"):
        LiteLLMJudge("groq/llama-3.3-70b-versatile").check_ready()
    monkeypatch.setenv("GROQ_API_KEY", "k")
    LiteLLMJudge("groq/llama-3.3-70b-versatile").check_ready()


def test_a_call_through_the_service_reaches_the_fake_server(litellm_env):
    from agenteval_tests_fixtures_fake_llm_servers import Reply

    litellm_env.script(Reply(text='{"verdict": "valid"}', input_tokens=40, output_tokens=3))
    service = JudgeService()
    request = JudgeRequest(prompt="Is it right?", system_instruction="Be strict.", response_schema=SCHEMA)
    options = JudgeOptions(judge_model="openai/judge-model", num_samples=1)

    async def go():
        try:
            return await service.client("final_response_match_v2").generate(request, options)
        finally:
            await service.aclose()

    response = asyncio.run(go())
    assert response.text == '{"verdict": "valid"}'
    assert (response.usage.input_tokens, response.usage.output_tokens) == (40, 3)
    [sent] = litellm_env.requests
    assert sent.body["model"] == "judge-model"
    assert [m["role"] for m in sent.body["messages"]] == ["system", "user"]
    assert sent.body["response_format"]["json_schema"]["schema"] == SCHEMA


def test_server_errors_become_classified_judge_errors(litellm_env):
    from agenteval_tests_fixtures_fake_llm_servers import Reply

    litellm_env.script(Reply(status=429), Reply(status=401))
    judge = LiteLLMJudge("openai/judge-model")

    async def go():
        errors = []
        for _ in range(2):
            with pytest.raises(JudgeCallError) as raised:
                await judge.generate(JudgeRequest(prompt="q"))
            errors.append(raised.value)
        return errors

    rate_limited, unauthorised = asyncio.run(go())
    assert rate_limited.retryable and rate_limited.status == 429
    assert not unauthorised.retryable and unauthorised.status == 401


def test_the_cli_runs_a_litellm_named_judge_against_the_fake_server(litellm_env, schema_answers, tmp_path):
    from click.testing import CliRunner

    runner = CliRunner()
    litellm_env.responder = lambda request: schema_answers.answer_for(request.body)
    config = tmp_path / "config.json"
    options = {"judge_model": "openai/judge-model", "num_samples": 1}
    config.write_text(
        json.dumps(
            {"criteria": {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": options}}}
        )
    )
    args = ["run", str(EXAMPLE / "travel.evalset.json"), "--actual", str(EXAMPLE / "travel.actual.json")]
    args += ["--config", str(config), "--no-cache", "--format", "json"]
    result = runner.invoke(main, args)
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    judged = [r for c in doc["eval_sets"][0]["cases"] for r in c["criteria"]]
    assert judged and all(r["status"] in ("PASSED", "FAILED") for r in judged)
    assert len(litellm_env.requests) == doc["summary"]["judge"]["calls"] > 0


def test_importing_litellm_the_providers_way_makes_no_network_call():
    code = (
        "import socket\n"
        "calls = []\n"
        "def refuse(*args, **kwargs):\n"
        "    calls.append(args)\n"
        "    raise OSError('no network in this test')\n"
        "socket.getaddrinfo = refuse\n"
        "socket.socket.connect = refuse\n"
        "import os\n"
        "os.environ.pop('LITELLM_LOCAL_MODEL_COST_MAP', None)\n"
        "from agenteval_llm_judges.providers.litellm import import_litellm\n"
        "litellm = import_litellm()\n"
        "litellm.validate_environment(model='groq/x')\n"
        "assert os.environ['LITELLM_LOCAL_MODEL_COST_MAP'] == 'True'\n"
        "print(len(calls))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0", done.stderr
