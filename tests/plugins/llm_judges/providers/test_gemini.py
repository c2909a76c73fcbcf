"""``GeminiJudge`` through the real google-genai SDK (and, for Vertex AI, google-auth's real
token refresh) against the loopback ``FakeGeminiServer``.

Timeouts: the provider sets no client timeout of its own. The judge service bounds each
call with ``asyncio.wait_for``; the cancelled call's ``TimeoutError`` propagates unchanged
(the service counts it as a retryable ``judge_timeout``). Only a timeout raised inside the
SDK (e.g. a ``timeout`` in ``judge_model_config.http_options``) becomes a retryable
``JudgeCallError``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys

import pytest
from agenteval import JudgeRequest, JudgeResponse, JudgeService
from agenteval.errors import ConfigError, JudgeCallError
from agenteval_llm_judges.providers.gemini import GeminiJudge
from agenteval_tests_fixtures_fake_llm_servers import FakeGeminiServer, Reply

MODEL = "gemini-2.5-flash"
SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["valid", "invalid"]}, "reason": {"type": "string"}},
    "required": ["verdict"],
}


@pytest.fixture(params=["api", "vertex"])
def server(request: pytest.FixtureRequest) -> FakeGeminiServer:
    """The fake, reached through the Gemini API or through Vertex AI."""
    return request.getfixturevalue("gemini_env" if request.param == "api" else "vertex_env")


def call(request: JudgeRequest, model: str = MODEL) -> JudgeResponse:
    """One ``generate`` on a fresh judge, closed afterwards."""

    async def go() -> JudgeResponse:
        judge = GeminiJudge(model)
        try:
            return await judge.generate(request)
        finally:
            await judge.aclose()

    return asyncio.run(go())


def call_error(request: JudgeRequest) -> JudgeCallError:
    with pytest.raises(JudgeCallError) as caught:
        call(request)
    return caught.value


def is_vertex(server: FakeGeminiServer) -> bool:
    return bool(server.token_requests) or server.requests[-1].path.startswith("/v1beta1/")


# -- the request and the answer --------------------------------------------------------------
def test_text_answer_request_body_headers_and_usage(server: FakeGeminiServer) -> None:
    server.script(Reply(text='{"verdict": "valid"}', input_tokens=123, output_tokens=7))
    response = call(
        JudgeRequest(
            prompt="Is the answer right?",
            system_instruction="You are a strict judge.",
            response_schema=SCHEMA,
            temperature=0.0,
            max_output_tokens=256,
        )
    )

    assert response.text == '{"verdict": "valid"}'
    assert response.usage.input_tokens == 123 and response.usage.output_tokens == 7
    assert response.model_version == f"{MODEL}-fake-001"
    assert response.cached is False

    (sent,) = server.requests
    assert sent.body["contents"] == [{"role": "user", "parts": [{"text": "Is the answer right?"}]}]
    assert sent.body["systemInstruction"]["parts"] == [{"text": "You are a strict judge."}]
    assert sent.body["generationConfig"] == {
        "temperature": 0.0,
        "maxOutputTokens": 256,
        "responseMimeType": "application/json",
        "responseJsonSchema": SCHEMA,
    }
    assert "tools" not in sent.body
    if sent.path.startswith("/v1beta1/"):  # Vertex AI: the project's model, a refreshed bearer token
        assert sent.path == (
            f"/v1beta1/projects/fake-project/locations/us-central1/publishers/google/models/{MODEL}:generateContent"
        )
        assert sent.headers["authorization"] == "Bearer fake-access-token-1"
        assert "x-goog-api-key" not in sent.headers
        (refresh,) = server.token_requests
        assert refresh.body["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
        assert refresh.body["assertion"].count(".") == 2  # a signed JWT
    else:
        assert sent.path == f"/v1beta/models/{MODEL}:generateContent"
        assert sent.headers["x-goog-api-key"] == "fake"
        assert "authorization" not in sent.headers
        assert server.token_requests == []


def test_minimal_request_sends_no_generation_settings(gemini_env: FakeGeminiServer) -> None:
    call(JudgeRequest(prompt="hi"))
    (sent,) = gemini_env.requests
    assert "systemInstruction" not in sent.body
    assert sent.body.get("generationConfig", {}) == {}


def test_one_token_serves_many_calls(vertex_env: FakeGeminiServer) -> None:
    async def go() -> None:
        judge = GeminiJudge(MODEL)
        try:
            await asyncio.gather(*(judge.generate(JudgeRequest(prompt=f"q{i}")) for i in range(4)))
        finally:
            await judge.aclose()

    asyncio.run(go())
    assert len(vertex_env.requests) == 4
    assert len(vertex_env.token_requests) == 1
    assert {r.headers["authorization"] for r in vertex_env.requests} == {"Bearer fake-access-token-1"}


def test_vertex_express_mode_uses_the_api_key(clean_judge_env, monkeypatch, fake_gemini) -> None:
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_API_KEY", "express-key")
    monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", fake_gemini.base_url)
    GeminiJudge(MODEL).check_ready()
    assert call(JudgeRequest(prompt="hi")).text == '{"ok": true}'
    (sent,) = fake_gemini.requests
    assert sent.path == f"/v1beta1/publishers/google/models/{MODEL}:generateContent"
    assert sent.headers["x-goog-api-key"] == "express-key"


def test_gemini_api_key_is_an_alternative(clean_judge_env, monkeypatch, fake_gemini) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "other-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake_gemini.base_url)
    GeminiJudge(MODEL).check_ready()
    call(JudgeRequest(prompt="hi"))
    assert fake_gemini.requests[0].headers["x-goog-api-key"] == "other-key"


def test_judge_model_config_is_merged_and_the_request_wins(gemini_env: FakeGeminiServer) -> None:
    config = {"temperature": 0.9, "topK": 3, "thinking_config": {"thinking_budget": 0}, "seed": 7}
    call(JudgeRequest(prompt="hi", temperature=0.0, config=config))
    generation = gemini_env.requests[0].body["generationConfig"]
    assert generation["temperature"] == 0.0
    assert generation["topK"] == 3
    assert generation["seed"] == 7
    # The SDK sends nested settings with their Python names; the API accepts both spellings.
    assert list(generation["thinkingConfig"].values()) == [0]


def test_invalid_judge_model_config_is_a_clear_permanent_error(gemini_env: FakeGeminiServer) -> None:
    error = call_error(JudgeRequest(prompt="hi", config={"temprature": 0.1}))
    assert error.retryable is False
    assert "judge_model_config" in str(error) and "temprature" in str(error)
    assert gemini_env.requests == []


def test_sdk_retries_cannot_be_switched_on_through_the_config(gemini_env: FakeGeminiServer) -> None:
    config = {"http_options": {"retry_options": {"attempts": 5}}}
    error = call_error(JudgeRequest(prompt="hi", config=config))
    assert error.retryable is False and "retry_options" in str(error)
    assert gemini_env.requests == []


def test_thoughts_are_not_the_answer_but_count_as_output(gemini_env: FakeGeminiServer) -> None:
    body = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"text": "let me think", "thought": True}, {"text": "valid"}],
                },
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 1, "thoughtsTokenCount": 30},
    }
    gemini_env.script(Reply(raw_body=json.dumps(body)))
    response = call(JudgeRequest(prompt="hi"))
    assert response.text == "valid"
    assert response.usage.input_tokens == 20 and response.usage.output_tokens == 31


# -- errors ----------------------------------------------------------------------------------
def test_429_is_retryable_with_retry_after(server: FakeGeminiServer) -> None:
    server.script(Reply(status=429, retry_after=2))
    error = call_error(JudgeRequest(prompt="hi"))
    assert (error.retryable, error.status, error.retry_after) == (True, 429, 2.0)
    assert "RESOURCE_EXHAUSTED" in str(error)


def test_429_retry_delay_from_the_error_details(gemini_env: FakeGeminiServer) -> None:
    body = {
        "error": {
            "code": 429,
            "message": "Quota exceeded",
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "17s"}],
        }
    }
    gemini_env.script(Reply(status=429, raw_body=json.dumps(body)))
    error = call_error(JudgeRequest(prompt="hi"))
    assert (error.retryable, error.status, error.retry_after) == (True, 429, 17.0)


def test_500_is_retryable(server: FakeGeminiServer) -> None:
    server.script(Reply(status=500))
    error = call_error(JudgeRequest(prompt="hi"))
    assert error.retryable is True and error.status == 500 and error.retry_after is None


def test_400_is_not_retryable(server: FakeGeminiServer) -> None:
    server.script(Reply(status=400))
    error = call_error(JudgeRequest(prompt="hi"))
    assert error.retryable is False and error.status == 400 and "INVALID_ARGUMENT" in str(error)


@pytest.mark.parametrize("status", [503, 504, 408])
def test_other_retryable_statuses(gemini_env: FakeGeminiServer, status: int) -> None:
    gemini_env.script(Reply(status=status))
    error = call_error(JudgeRequest(prompt="hi"))
    assert error.retryable is True and error.status == status


@pytest.mark.parametrize(("status", "hint"), [(401, "API key"), (403, "API key"), (404, "model name")])
def test_other_permanent_statuses(gemini_env: FakeGeminiServer, status: int, hint: str) -> None:
    gemini_env.script(Reply(status=status))
    error = call_error(JudgeRequest(prompt="hi"))
    assert error.retryable is False and error.status == status and hint in str(error)


def test_html_error_page_is_still_an_http_error(gemini_env: FakeGeminiServer) -> None:
    gemini_env.script(Reply(status=502, raw_body="<html><body>Bad gateway</body></html>"))
    error = call_error(JudgeRequest(prompt="hi"))
    assert error.retryable is True and error.status == 502


def test_garbage_answer_is_a_judge_call_error(server: FakeGeminiServer) -> None:
    server.script(Reply(raw_body="this is not json"))
    error = call_error(JudgeRequest(prompt="hi"))
    assert error.retryable is False
    assert "not a valid generateContent response" in str(error)


@pytest.mark.parametrize("body", ['{"candidates": 5}', "[1, 2", '{"candidates": [{"content": "x"}]}'])
def test_malformed_answers(gemini_env: FakeGeminiServer, body: str) -> None:
    gemini_env.script(Reply(raw_body=body))
    error = call_error(JudgeRequest(prompt="hi"))
    assert error.retryable is False and "not a valid generateContent response" in str(error)


def test_empty_answer_is_a_permanent_error(server: FakeGeminiServer) -> None:
    server.script(Reply(text=None))
    error = call_error(JudgeRequest(prompt="hi"))
    assert error.retryable is False
    assert str(error) == "the judge returned no text (finish reason SAFETY)"


def test_thinking_that_used_up_the_budget_is_an_empty_answer(gemini_env: FakeGeminiServer) -> None:
    gemini_env.script(Reply(text=None, finish_reason="MAX_TOKENS"))
    error = call_error(JudgeRequest(prompt="hi"))
    assert str(error) == "the judge returned no text (finish reason MAX_TOKENS)"


def test_blocked_prompt_is_a_permanent_error(gemini_env: FakeGeminiServer) -> None:
    gemini_env.script(Reply(raw_body=json.dumps({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}})))
    error = call_error(JudgeRequest(prompt="hi"))
    assert error.retryable is False and "PROHIBITED_CONTENT" in str(error)


def test_a_hang_is_cut_by_wait_for_and_timeout_error_propagates(server: FakeGeminiServer) -> None:
    async def go() -> str:
        judge = GeminiJudge(MODEL)
        try:
            await judge.generate(JudgeRequest(prompt="warm up"))  # client set up, token fetched
            server.script(Reply(text="too late", delay=10))
            with pytest.raises(asyncio.TimeoutError):  # 2 s: the request reaches the server first
                await asyncio.wait_for(judge.generate(JudgeRequest(prompt="slow")), 2)
            # The client survives a cancelled call.
            return (await judge.generate(JudgeRequest(prompt="next"))).text
        finally:
            await judge.aclose()

    assert asyncio.run(go()) == '{"ok": true}'
    assert [r.body["contents"][0]["parts"][0]["text"] for r in server.requests] == ["warm up", "slow", "next"]


def test_sdk_side_timeout_is_retryable(gemini_env: FakeGeminiServer) -> None:
    gemini_env.script(Reply(text="too late", delay=10))
    error = call_error(JudgeRequest(prompt="slow", config={"http_options": {"timeout": 200}}))  # milliseconds
    assert error.retryable is True and "timed out" in str(error)


def test_refused_connection_takes_the_endpoint_out(clean_judge_env, monkeypatch) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("GOOGLE_API_KEY", "fake")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", f"http://127.0.0.1:{port}")
    error = call_error(JudgeRequest(prompt="hi"))
    assert error.retryable is False and error.code == "judge_unreachable" and error.endpoint_down
    assert "cannot connect" in str(error) and error.status is None


def test_token_endpoint_failure_is_reported(vertex_env: FakeGeminiServer, monkeypatch, tmp_path) -> None:
    from agenteval_tests_fixtures_fake_llm_servers import service_account_json

    broken = tmp_path / "broken-token-uri.json"
    broken.write_text(service_account_json(f"{vertex_env.base_url}/no-such-token-endpoint"), encoding="utf-8")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(broken))
    error = call_error(JudgeRequest(prompt="hi"))
    assert "access token" in str(error)
    assert vertex_env.requests == []


# -- preflight, identity, naming ---------------------------------------------------------------
def test_check_ready_names_what_to_set(clean_judge_env) -> None:
    with pytest.raises(ConfigError) as caught:
        GeminiJudge(MODEL).check_ready()
    message = str(caught.value)
    assert MODEL in message
    assert (
        "set GOOGLE_API_KEY (or GEMINI_API_KEY) for the Gemini API, or GOOGLE_GENAI_USE_VERTEXAI=true"
        in message
    )
    assert "GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION for Vertex AI" in message


@pytest.mark.parametrize(
    ("present", "missing"),
    [
        ({}, "GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION are"),
        ({"GOOGLE_CLOUD_PROJECT": "p"}, "GOOGLE_CLOUD_LOCATION is"),
    ],
)
def test_check_ready_vertex_without_project_or_location(
    clean_judge_env, monkeypatch, present, missing
) -> None:
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "TRUE")
    for name, value in present.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=f"GOOGLE_GENAI_USE_VERTEXAI is true but {missing} not set"):
        GeminiJudge(MODEL).check_ready()


def test_check_ready_missing_credentials_file(clean_judge_env, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "1")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "p")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "europe-west4")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "absent.json"))
    with pytest.raises(ConfigError, match="GOOGLE_APPLICATION_CREDENTIALS points to .*absent.json"):
        GeminiJudge(MODEL).check_ready()


def test_check_ready_passes_without_calling_anyone(clean_judge_env, monkeypatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "fake")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")  # nothing listens there
    GeminiJudge(MODEL).check_ready()
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "p")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
    GeminiJudge(MODEL).check_ready()  # ADC are looked up at the first call, not here


def test_identity_has_the_endpoint_but_never_the_key(gemini_env: FakeGeminiServer, monkeypatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "secret-key-123")
    identity = GeminiJudge(MODEL).identity()
    assert identity == {"provider": "gemini", "model": MODEL, "mode": "api", "base_url": gemini_env.base_url}
    assert "secret-key-123" not in json.dumps(identity)


def test_identity_vertex(vertex_env: FakeGeminiServer) -> None:
    assert GeminiJudge("gemini-2.5-pro").identity() == {
        "provider": "gemini",
        "model": "gemini-2.5-pro",
        "mode": "vertex",
        "base_url": vertex_env.base_url,
        "project": "fake-project",
        "location": "us-central1",
    }


def test_identity_default_endpoints(clean_judge_env, monkeypatch) -> None:
    assert GeminiJudge(MODEL).identity()["base_url"] == "https://generativelanguage.googleapis.com/"
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "p")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "europe-west4")
    assert GeminiJudge(MODEL).identity()["base_url"] == "https://europe-west4-aiplatform.googleapis.com/"


def test_names_resolve_through_the_entry_point() -> None:
    service = JudgeService()
    unprefixed = service.model("gemini-2.5-flash")
    prefixed = service.model("gemini:gemini-2.5-pro")
    assert isinstance(unprefixed, GeminiJudge) and unprefixed.model == "gemini-2.5-flash"
    assert isinstance(prefixed, GeminiJudge) and prefixed.model == "gemini-2.5-pro"


def test_the_sdks_are_imported_only_when_a_call_is_made(tmp_path) -> None:
    code = (
        "import os, sys\n"
        "os.environ['GOOGLE_API_KEY'] = 'k'; os.environ['OPENAI_API_KEY'] = 'k'\n"
        "from agenteval_llm_judges.providers.gemini import GeminiJudge\n"
        "from agenteval_llm_judges.providers.openai_compat import OpenAICompatibleJudge\n"
        "for judge in (GeminiJudge('gemini-2.5-flash'), OpenAICompatibleJudge('m')):\n"
        "    judge.check_ready(); judge.identity()\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('google.genai', 'openai', 'httpx')))\n"
        "print(loaded)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


# -- the request models: the SDK's own, with name lookups answered at once -------------------
def test_the_request_sent_is_the_one_the_sdks_own_models_give(server: FakeGeminiServer, monkeypatch) -> None:
    from agenteval_llm_judges.providers import _genai_models, gemini
    from google.genai import types

    request = JudgeRequest(
        prompt="Is the answer right?",
        system_instruction="You are a strict judge.",
        response_schema=SCHEMA,
        temperature=0.0,
        max_output_tokens=256,
        config={"topK": 3, "thinking_config": {"thinking_budget": 0}, "seed": 7, "stop_sequences": ["x"]},
    )
    call(request)
    plain = _genai_models.RequestModels(types.GenerateContentConfig, types.Content, types.Part)
    monkeypatch.setattr(gemini, "request_models", lambda: plain)
    call(request)
    ours, sdks = server.requests
    assert ours.body == sdks.body and ours.path == sdks.path


def test_the_request_models_answer_membership_as_iterating_them_would() -> None:
    from agenteval_llm_judges.providers._genai_models import request_models

    models = request_models()
    config = models.config(temperature=0.5, seed=3)
    assert "temperature" not in config and "seed" not in config  # a model iterates pairs, not names
    assert ("temperature", 0.5) in config and ("temperature", 0.4) not in config
    part = models.part(text="hi")
    assert "text" not in part and ("text", "hi") in part
    assert models.user_text("hi").parts == [part] and models.user_text("hi").role == "user"


def test_the_fake_server_keeps_connections_open_only_when_told(gemini_env: FakeGeminiServer) -> None:
    import http.client

    def two_calls_on_one_connection() -> list[str]:
        port = int(gemini_env.base_url.rsplit(":", 1)[1])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        said = []
        try:
            for _ in range(2):
                connection.request("POST", f"/v1beta/models/{MODEL}:generateContent", body="{}")
                answer = connection.getresponse()
                answer.read()
                said.append(answer.getheader("Connection") or "keep-alive")
        except (http.client.RemoteDisconnected, ConnectionError):
            said.append("closed")
        finally:
            connection.close()
        return said

    assert two_calls_on_one_connection()[0] == "close"  # the tests' default: no pooled connection
    gemini_env.keep_alive = True  # the benchmark's: as a real endpoint
    assert two_calls_on_one_connection() == ["keep-alive", "keep-alive"]
