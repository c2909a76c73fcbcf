"""What the providers share: ``LoopClient``, one SDK client per event loop, closed in that
loop."""

from __future__ import annotations

import asyncio
import gc
import logging
import warnings

import pytest
from agenteval import JudgeRequest
from agenteval_llm_judges.providers._common import LoopClient
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
