"""What the providers share: ``LoopClient``, one SDK client per event loop, closed in that
loop."""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
import time
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from agenteval import JudgeRequest
from agenteval_llm_judges.providers._common import KEPT_CONNECTIONS, LoopClient, capped_async_client
from agenteval_llm_judges.providers.gemini import GeminiJudge
from agenteval_llm_judges.providers.openai_compat import OpenAICompatibleJudge


class Made:
    def __init__(self) -> None:
        self.made: list[int] = []
        self.closed: list[tuple[int, asyncio.AbstractEventLoop]] = []

    def make(self):
        number = len(self.made)
        self.made.append(number)

        async def close() -> None:
            self.closed.append((number, asyncio.get_running_loop()))

        return number, close


def test_one_client_per_loop_closed_in_its_loop_when_nobody_closes_it():
    made = Made()
    clients = LoopClient(made.make)
    loops = []

    async def use() -> tuple[int, int]:
        loops.append(asyncio.get_running_loop())
        return await clients.get(), await clients.get()

    assert asyncio.run(use()) == (0, 0)  # the same client within a loop
    assert made.closed == [(0, loops[0])]  # closed as its loop shut down, in that loop
    assert asyncio.run(use()) == (1, 1)  # another loop: a new client
    assert made.closed == [(0, loops[0]), (1, loops[1])]


def test_aclose_closes_now_once_and_the_next_call_makes_a_new_client():
    made = Made()
    clients = LoopClient(made.make)

    async def use() -> None:
        assert await clients.get() == 0
        await clients.aclose()
        assert [number for number, _ in made.closed] == [0] and clients.current is None
        await clients.aclose()  # nothing left: no second close
        assert await clients.get() == 1

    asyncio.run(use())
    assert [number for number, _ in made.closed] == [0, 1]


@pytest.mark.parametrize("provider", ["gemini", "openai"])
def test_a_judge_used_in_two_loops_without_aclose_leaves_nothing_open(
    provider, clean_judge_env, monkeypatch, caplog, fake_gemini, fake_openai
):
    # Kept-alive connections, as a real endpoint keeps them: a client left open leaves its
    # sockets to the collector, which reports them (ResourceWarning).
    if provider == "gemini":
        server, judge = fake_gemini, GeminiJudge("gemini-2.5-flash")
        monkeypatch.setenv("GOOGLE_API_KEY", "fake")
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake_gemini.base_url)
    else:
        server, judge = fake_openai, OpenAICompatibleJudge("judge")
        monkeypatch.setenv("OPENAI_API_KEY", "fake")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{fake_openai.base_url}/v1")
    server.keep_alive = True
    with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.ERROR, logger="asyncio"):
        warnings.simplefilter("always")
        for _ in range(2):
            response = asyncio.run(judge.generate(JudgeRequest(prompt="Is it right?")))
            assert response.text
        gc.collect()
    assert len(server.requests) == 2
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
    assert not [r for r in caplog.records if "Unclosed" in r.getMessage()]


class _CountingServer(ThreadingHTTPServer):
    """Answers every GET after 0.2 s on kept-alive connections, and counts the connections."""

    daemon_threads = True
    request_queue_size = 256

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _SlowOk)
        self.connections = 0

    def process_request(self, request, client_address):  # type: ignore[no-untyped-def]
        self.connections += 1
        super().process_request(request, client_address)


class _SlowOk(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format, *args):  # type: ignore[no-untyped-def]
        pass

    def do_GET(self) -> None:
        time.sleep(0.2)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")


def test_the_judges_http_client_keeps_more_connections_than_the_default_concurrency():
    """Two waves of 40 calls at once open 40 connections, not 40 and then 20 more: the pool
    keeps ``KEPT_CONNECTIONS`` (httpx ignored the limits given beside a transport, and kept 20),
    and sets no cap on connections (the judge service bounds the calls in flight)."""
    server = _CountingServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"

    async def waves() -> list[int]:
        client = capped_async_client()
        seen = []
        try:
            for _ in range(2):
                answers = await asyncio.gather(*(client.get(url) for _ in range(40)))
                assert {answer.status_code for answer in answers} == {200}
                seen.append(server.connections)
        finally:
            await client.aclose()
        return seen

    try:
        assert KEPT_CONNECTIONS >= 40
        assert asyncio.run(waves()) == [40, 40]
    finally:
        server.shutdown()
        server.server_close()
