"""``OpenAICompatibleJudge`` through the real openai SDK against the loopback
``FakeOpenAIServer``.

Timeouts: as for Gemini, the provider sets no timeout below the SDK's default; the judge
service's ``asyncio.wait_for`` cancels a hung call and its ``TimeoutError`` propagates
unchanged (the service retries it as ``judge_timeout``). An SDK-side timeout becomes a
retryable ``JudgeCallError``.
"""

from __future__ import annotations

import asyncio
import json
import socket

import openai
import pytest
from agenteval import JudgeRequest, JudgeResponse, JudgeService
from agenteval.errors import ConfigError, JudgeCallError
from agenteval_llm_judges.providers.openai_compat import OpenAICompatibleJudge
from agenteval_tests_fixtures_fake_llm_servers import FakeOpenAIServer, Reply

MODEL = "llama3.1:8b"
SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["valid", "invalid"]}},
    "required": ["verdict"],
}


def call(request: JudgeRequest) -> JudgeResponse:
    async def go() -> JudgeResponse:
        judge = OpenAICompatibleJudge(MODEL)
        try:
            return await judge.generate(request)
        finally:
            await judge.aclose()

    return asyncio.run(go())


def call_error(request: JudgeRequest) -> JudgeCallError:
    with pytest.raises(JudgeCallError) as caught:
        call(request)
    return caught.value


# -- the request and the answer --------------------------------------------------------------
def test_text_answer_request_body_headers_and_usage(openai_env: FakeOpenAIServer) -> None:
    openai_env.script(Reply(text='{"verdict": "invalid"}', input_tokens=321, output_tokens=9))
    response = call(
        JudgeRequest(
            prompt="Is the answer right?",
            system_instruction="You are a strict judge.",
            response_schema=SCHEMA,
            temperature=0.0,
            max_output_tokens=128,
        )
    )
    assert response.text == '{"verdict": "invalid"}'
    assert (response.usage.input_tokens, response.usage.output_tokens) == (321, 9)
    assert response.model_version == MODEL

    (sent,) = openai_env.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-fake"
    assert sent.body == {
        "model": MODEL,
        "messages": [
            {"role": "system", "content": "You are a strict judge."},
            {"role": "user", "content": "Is the answer right?"},
        ],
        "temperature": 0.0,
        "max_tokens": 128,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "verdict", "schema": SCHEMA, "strict": False},
        },
    }


def test_minimal_request(openai_env: FakeOpenAIServer) -> None:
    call(JudgeRequest(prompt="hi"))
    assert openai_env.requests[0].body == {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}


def test_a_local_server_needs_no_key(clean_judge_env, monkeypatch, fake_openai: FakeOpenAIServer) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{fake_openai.base_url}/v1")
    OpenAICompatibleJudge(MODEL).check_ready()
    assert call(JudgeRequest(prompt="hi")).text == '{"ok": true}'
    assert fake_openai.requests[0].headers["authorization"] == "Bearer not-needed"


def test_judge_model_config_is_passed_and_gemini_names_translated(openai_env: FakeOpenAIServer) -> None:
    config = {"temperature": 0.7, "maxOutputTokens": 50, "top_p": 0.5, "seed": 3, "extra_body": {"top_k": 4}}
    call(JudgeRequest(prompt="hi", temperature=0.1, config=config))
    body = openai_env.requests[0].body
    assert body["temperature"] == 0.1  # the request's own setting wins
    assert (body["max_tokens"], body["top_p"], body["seed"], body["top_k"]) == (50, 0.5, 3, 4)


@pytest.mark.parametrize("key", ["temprature", "messages", "stream"])
def test_unknown_or_managed_config_keys_are_refused(openai_env: FakeOpenAIServer, key: str) -> None:
    error = call_error(JudgeRequest(prompt="hi", config={key: 1}))
    assert error.retryable is False and repr(key) in str(error) and "extra_body" in str(error)
    assert openai_env.requests == []


def test_openai_itself_gets_max_completion_tokens(clean_judge_env, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    judge = OpenAICompatibleJudge("gpt-5-mini")
    client = openai.AsyncOpenAI(api_key="sk-test", max_retries=0)  # never used to call
    kwargs = judge._arguments(JudgeRequest(prompt="hi", max_output_tokens=64), client)
    assert kwargs["max_completion_tokens"] == 64 and "max_tokens" not in kwargs


# -- structured output on servers without json_schema ------------------------------------------
LLAMA_CPP_PYTHON_REFUSAL = json.dumps(
    {
        "error": {
            "message": "1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', "
            "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}",
            "type": "internal_server_error",
            "param": None,
            "code": None,
        }
    }
)


def test_a_server_refusing_json_schema_gets_json_object_with_the_schema(openai_env: FakeOpenAIServer) -> None:
    openai_env.script(Reply(status=500, raw_body=LLAMA_CPP_PYTHON_REFUSAL), '{"verdict": "valid"}', "{}")

    async def go() -> list[str]:
        judge = OpenAICompatibleJudge(MODEL)
        try:
            first = await judge.generate(JudgeRequest(prompt="one", response_schema=SCHEMA))
            second = await judge.generate(JudgeRequest(prompt="two", response_schema=SCHEMA))
            return [first.text, second.text]
        finally:
            await judge.aclose()

    assert asyncio.run(go()) == ['{"verdict": "valid"}', "{}"]
    formats = [r.body.get("response_format") for r in openai_env.requests]
    assert formats[0]["type"] == "json_schema"
    assert formats[1] == formats[2] == {"type": "json_object", "schema": SCHEMA}  # remembered


def test_a_server_refusing_both_gets_the_prompt_alone(openai_env: FakeOpenAIServer) -> None:
    refusal = json.dumps({"error": {"message": "Unsupported response_format type"}})
    openai_env.script(Reply(status=400, raw_body=refusal), Reply(status=422, raw_body=refusal), "ok")
    assert call(JudgeRequest(prompt="hi", response_schema=SCHEMA)).text == "ok"
    assert ["response_format" in r.body for r in openai_env.requests] == [True, True, False]


def test_other_errors_do_not_change_the_format(openai_env: FakeOpenAIServer) -> None:
    openai_env.script(Reply(status=500), Reply(status=400))
    assert call_error(JudgeRequest(prompt="hi", response_schema=SCHEMA)).retryable is True
    assert call_error(JudgeRequest(prompt="hi", response_schema=SCHEMA)).retryable is False
    assert [r.body["response_format"]["type"] for r in openai_env.requests] == ["json_schema", "json_schema"]


def test_response_format_in_the_config_wins(openai_env: FakeOpenAIServer) -> None:
    call(
        JudgeRequest(prompt="hi", response_schema=SCHEMA, config={"response_format": {"type": "json_object"}})
    )
    assert openai_env.requests[0].body["response_format"] == {"type": "json_object"}


# -- errors ----------------------------------------------------------------------------------
def test_429_is_retryable_with_retry_after(openai_env: FakeOpenAIServer) -> None:
    openai_env.script(Reply(status=429, retry_after=1.5))
    error = call_error(JudgeRequest(prompt="hi"))
    assert (error.retryable, error.status, error.retry_after) == (True, 429, 1.5)
    assert "scripted HTTP 429" in str(error)


@pytest.mark.parametrize("status", [500, 503, 409, 408])
def test_retryable_statuses(openai_env: FakeOpenAIServer, status: int) -> None:
    openai_env.script(Reply(status=status))
    error = call_error(JudgeRequest(prompt="hi"))
    assert error.retryable is True and error.status == status and error.retry_after is None


@pytest.mark.parametrize(("status", "hint"), [(400, ""), (401, "OPENAI_API_KEY"), (404, "/v1")])
def test_permanent_statuses(openai_env: FakeOpenAIServer, status: int, hint: str) -> None:
    openai_env.script(Reply(status=status))
    error = call_error(JudgeRequest(prompt="hi"))
    assert error.retryable is False and error.status == status and hint in str(error)


@pytest.mark.parametrize("body", ["this is not json", '{"choices": 5}', '{"object": "list"}'])
def test_garbage_answer_is_a_judge_call_error(openai_env: FakeOpenAIServer, body: str) -> None:
    openai_env.script(Reply(raw_body=body))
    error = call_error(JudgeRequest(prompt="hi"))
    assert error.retryable is False and "not a chat completion" in str(error)


def test_empty_answer_is_a_permanent_error(openai_env: FakeOpenAIServer) -> None:
    openai_env.script(Reply(text=None), Reply(text="   ", finish_reason="length"))
    first, second = call_error(JudgeRequest(prompt="hi")), call_error(JudgeRequest(prompt="hi"))
    assert str(first) == "the judge returned no text (finish reason content_filter)"
    assert str(second) == "the judge returned no text (finish reason length)"
    assert first.retryable is False and second.retryable is False


def test_refusal_is_reported(openai_env: FakeOpenAIServer) -> None:
    body = {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "refusal": "I can't"},
                "finish_reason": "stop",
            }
        ],
    }
    openai_env.script(Reply(raw_body=json.dumps(body)))
    assert "refused: I can't" in str(call_error(JudgeRequest(prompt="hi")))


def test_a_hang_is_cut_by_wait_for_and_timeout_error_propagates(openai_env: FakeOpenAIServer) -> None:
    async def go() -> str:
        judge = OpenAICompatibleJudge(MODEL)
        try:
            await judge.generate(JudgeRequest(prompt="warm up"))  # the SDK client is built
            openai_env.script(Reply(text="too late", delay=10))
            with pytest.raises(asyncio.TimeoutError):  # 2 s: the request reaches the server first
                await asyncio.wait_for(judge.generate(JudgeRequest(prompt="slow")), 2)
            # The client survives a cancelled call.
            return (await judge.generate(JudgeRequest(prompt="next"))).text
        finally:
            await judge.aclose()

    assert asyncio.run(go()) == '{"ok": true}'
    assert len(openai_env.requests) == 3


def test_sdk_side_timeout_is_retryable(openai_env: FakeOpenAIServer) -> None:
    openai_env.script(Reply(text="too late", delay=10))
    error = call_error(JudgeRequest(prompt="slow", config={"timeout": 0.2}))
    assert error.retryable is True and "timed out" in str(error)


def test_refused_connection_takes_the_endpoint_out(clean_judge_env, monkeypatch) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    error = call_error(JudgeRequest(prompt="hi"))
    assert error.retryable is False and error.code == "judge_unreachable" and error.endpoint_down
    assert "cannot connect" in str(error) and error.status is None


# -- preflight, identity, naming ---------------------------------------------------------------
def test_check_ready_names_what_to_set(clean_judge_env) -> None:
    with pytest.raises(ConfigError) as caught:
        OpenAICompatibleJudge(MODEL).check_ready()
    message = str(caught.value)
    assert f"openai:{MODEL}" in message
    assert (
        "set OPENAI_API_KEY for api.openai.com, or OPENAI_BASE_URL for an OpenAI-compatible server" in message
    )
    assert "OPENAI_BASE_URL=http://127.0.0.1:8000/v1" in message


def test_check_ready_with_a_key_only(clean_judge_env, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    OpenAICompatibleJudge(MODEL).check_ready()


def test_identity_never_has_the_key(openai_env: FakeOpenAIServer, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-123")
    identity = OpenAICompatibleJudge(MODEL).identity()
    assert identity == {"provider": "openai", "model": MODEL, "base_url": f"{openai_env.base_url}/v1"}
    assert "sk-secret-123" not in json.dumps(identity)


def test_identity_default_endpoint(clean_judge_env, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert OpenAICompatibleJudge("gpt-4o-mini").identity()["base_url"] == "https://api.openai.com/v1"


def test_names_resolve_through_the_entry_point() -> None:
    judge = JudgeService().model("openai:llama3.1:8b")
    assert isinstance(judge, OpenAICompatibleJudge) and judge.model == "llama3.1:8b"
