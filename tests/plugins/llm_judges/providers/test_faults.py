"""Judge faults through the real SDKs against loopback servers, for every provider: the
same failure gets the same reason code, dead endpoints stop being called, bodies are
capped, cancelled requests are closed, keys never echo, memory stays bounded."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from agenteval import JudgeOptions, JudgeRequest, JudgeService
from agenteval._registry import ProviderRegistry
from agenteval.errors import JudgeUnavailable
from agenteval_llm_judges.providers.gemini import GeminiJudge
from agenteval_llm_judges.providers.openai_compat import OpenAICompatibleJudge
from agenteval_tests_fixtures_fake_llm_servers import FakeGeminiServer, FakeOpenAIServer, Reply

PROVIDERS = {"gemini": GeminiJudge, "openai": OpenAICompatibleJudge}
MODELS = {"gemini": "gemini-2.5-flash", "openai": "openai:judge"}
SECRET = "sk-test-0123456789abcdef"


def point_at(provider: str, base_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if provider == "gemini":
        monkeypatch.setenv("GOOGLE_API_KEY", SECRET)
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", base_url)
    else:
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        monkeypatch.setenv("OPENAI_BASE_URL", f"{base_url}/v1")


@pytest.fixture(params=sorted(PROVIDERS))
def provider(request, clean_judge_env, monkeypatch) -> str:
    monkeypatch.setenv("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "0.001")
    return request.param


@pytest.fixture
def server(provider):
    klass = FakeGeminiServer if provider == "gemini" else FakeOpenAIServer
    with klass() as fake:
        yield fake


def ask(
    provider: str, count: int = 1, warnings: list | None = None, concurrency: int = 16, **options
) -> list:
    """``count`` different questions through a fresh service; each outcome in order."""
    judges = JudgeService(
        concurrency=concurrency,
        providers=ProviderRegistry(classes=PROVIDERS),
        on_warning=(warnings if warnings is not None else []).append,
    )
    judge_options = JudgeOptions(judge_model=MODELS[provider], **options)

    async def run() -> list:
        try:
            return await asyncio.gather(
                *(judges.generate("c", JudgeRequest(prompt=f"q{i}"), judge_options) for i in range(count)),
                return_exceptions=True,
            )
        finally:
            await judges.aclose()

    return asyncio.run(run())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(
    "base_url",
    [
        pytest.param(lambda: f"http://127.0.0.1:{free_port()}", id="refused"),
        pytest.param(lambda: "http://judge.invalid:8080", id="dns"),
    ],
)
def test_an_unreachable_endpoint_is_reported_once_and_not_retried(provider, base_url, monkeypatch):
    point_at(provider, base_url(), monkeypatch)
    warnings: list[str] = []
    started = time.monotonic()
    outcomes = ask(provider, count=6, warnings=warnings)
    assert time.monotonic() - started < 10
    assert {type(o) for o in outcomes} == {JudgeUnavailable}
    assert {o.code for o in outcomes} == {"judge_unreachable"}
    assert len(warnings) == 1 and "no further calls" in warnings[0] and "cannot connect" in warnings[0]


def test_a_tls_failure_is_unreachable(provider, server, monkeypatch):
    point_at(provider, server.base_url.replace("http://", "https://"), monkeypatch)
    [outcome] = ask(provider)
    assert outcome.code == "judge_unreachable"


@pytest.mark.parametrize("status", [401, 403])
def test_refused_credentials_stop_the_endpoint_and_never_echo_the_key(provider, server, monkeypatch, status):
    point_at(provider, server.base_url, monkeypatch)
    body = json.dumps(
        {"error": {"code": status, "message": f"bad key {SECRET}", "status": "UNAUTHENTICATED"}}
    )
    server.responder = lambda request: Reply(status=status, raw_body=body)
    warnings: list[str] = []
    outcomes = ask(provider, count=10, warnings=warnings, concurrency=2)
    assert {o.code for o in outcomes} == {"judge_auth"}
    assert len(server.requests) <= 2  # the calls after the first answer are not made
    texts = [str(o) for o in outcomes] + warnings
    assert all(SECRET not in text for text in texts)
    assert any("[redacted]" in text for text in texts)


def test_a_non_json_answer_is_unparseable_for_every_provider(provider, server, monkeypatch):
    point_at(provider, server.base_url, monkeypatch)
    server.script(Reply(raw_body="<html>gateway says hello</html>"))
    [outcome] = ask(provider, max_retries=0)
    assert outcome.code == "judge_unparseable"
    assert str(outcome).startswith("the judge's answer cannot be read")


def test_a_body_over_the_cap_is_not_read_further(provider, server, monkeypatch):
    point_at(provider, server.base_url, monkeypatch)
    server.script(Reply(raw_body="x" * 300_000), Reply(text="y" * 300_000))
    outcomes = ask(provider, count=2, max_response_bytes=50_000)
    assert {o.code for o in outcomes} == {"judge_response_too_large"}


class RawServer:
    """A loopback TCP server that hands each accepted connection to ``handle`` (in a thread
    of its own) and counts them in ``accepted``."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.accepted = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()

    def handle(self, conn: socket.socket) -> None:
        raise NotImplementedError


class HangingServer(RawServer):
    """Accepts HTTP requests and never answers; records when each client hangs up."""

    def __init__(self) -> None:
        self.closed_by_client: list[float] = []
        super().__init__()

    def handle(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(10)
            try:
                while conn.recv(65536):
                    pass
            except OSError:
                return
            self.closed_by_client.append(time.monotonic())


class DroppingServer(RawServer):
    """Reads each request, then closes the connection without an answer."""

    def handle(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            with contextlib.suppress(OSError):
                conn.recv(65536)


def test_a_dropped_connection_is_a_retried_judge_error_not_a_timeout(provider, monkeypatch):
    dropping = DroppingServer()
    point_at(provider, dropping.base_url, monkeypatch)
    [outcome] = ask(provider, max_retries=2)
    assert outcome.code == "judge_error"
    assert "dropped" in str(outcome) and "timed out" not in str(outcome)
    assert dropping.accepted == 3  # the first call and both retries


def test_a_request_cancelled_on_timeout_is_closed(provider, monkeypatch):
    hanging = HangingServer()
    point_at(provider, hanging.base_url, monkeypatch)
    started = time.monotonic()
    [outcome] = ask(provider, timeout_seconds=0.3, max_retries=1)
    assert outcome.code == "judge_timeout"
    deadline = time.monotonic() + 3
    while len(hanging.closed_by_client) < hanging.accepted and time.monotonic() < deadline:
        time.sleep(0.05)
    assert hanging.accepted >= 1 and len(hanging.closed_by_client) == hanging.accepted
    assert max(hanging.closed_by_client) - started < 3


_MEMORY_SCRIPT = """
import asyncio, ctypes, gc, importlib.util, sys
spec = importlib.util.spec_from_file_location("fake_llm_servers", sys.argv[1])
servers = importlib.util.module_from_spec(spec); sys.modules["fake_llm_servers"] = servers
spec.loader.exec_module(servers)
import os
from agenteval import JudgeOptions, JudgeRequest, JudgeService
body = "not json " * (5_000_000 // 9)
def rss_mb():
    # what is held, not what the allocator keeps cached: collect, then give free heap back
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
with servers.FakeOpenAIServer() as server:
    server.responder = lambda request: servers.Reply(raw_body=body)
    os.environ.update(OPENAI_API_KEY="k" * 20, OPENAI_BASE_URL=server.base_url + "/v1",
                      AGENTEVAL_JUDGE_BACKOFF_SECONDS="0.001")
    judges = JudgeService(concurrency=int(sys.argv[3]), on_warning=lambda m: None)
    options = JudgeOptions(judge_model="openai:judge", max_retries=0, max_response_bytes=int(sys.argv[2]))
    gc.freeze()  # as the CLI runs
    async def run(start, count):
        return await asyncio.gather(*(judges.generate("c", JudgeRequest(prompt=str(i)), options)
                                      for i in range(start, start + count)), return_exceptions=True)
    async def main():
        first = await run(0, 100)
        after_100 = rss_mb()
        rest = await run(100, 100)
        await judges.aclose()
        return first + rest, after_100
    outcomes, after_100 = asyncio.run(main())
    codes = sorted({o.code for o in outcomes})
    # VmHWM, not ru_maxrss: the latter keeps the parent's peak across fork and exec.
    with open("/proc/self/status") as f:
        peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024
    print(len(outcomes), ",".join(codes), f"{peak:.0f}", f"{after_100:.0f}", f"{rss_mb():.0f}")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self")
@pytest.mark.parametrize(
    ("cap", "concurrency"),
    [(2_000_000, 16), (8_000_000, 2)],
    ids=["default-cap-and-concurrency", "read-whole-at-concurrency-2"],
)
def test_memory_of_200_failed_5mb_answers_stays_bounded(cap, concurrency, fixtures_dir: Path):
    """The fake server runs in the same process (its copies of the body count too)."""
    script = [_MEMORY_SCRIPT, str(fixtures_dir / "fake_llm_servers.py"), str(cap), str(concurrency)]
    done = subprocess.run(
        [sys.executable, "-c", *script],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    count, codes, peak, after_100, after_200 = done.stdout.split()
    expected = "judge_response_too_large" if cap < 5_000_000 else "judge_unparseable"
    assert (count, codes) == ("200", expected)
    assert float(peak) < 300, done.stdout
    # 100 more failed answers hold no more memory (each one is 2-5 MB)
    assert float(after_200) - float(after_100) < 60, done.stdout
