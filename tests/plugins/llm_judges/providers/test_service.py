"""``agenteval.JudgeService`` end to end: the real providers (found through their
entry points), the real SDKs, the fake servers. Retries, timeouts, the concurrency
limit and the cache are the service's; these tests check they hold with real clients."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Optional

import pytest
from agenteval import JudgeCache, JudgeOptions, JudgeRequest, JudgeResponse, JudgeService
from agenteval.errors import JudgeUnavailable
from agenteval_tests_fixtures_fake_llm_servers import Reply

CRITERION = "some_judge_criterion"


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "0.01")


@pytest.fixture(params=["gemini", "openai"])
def target(request: pytest.FixtureRequest) -> tuple[Any, str]:
    """(fake server, judge model name) for each provider."""
    if request.param == "gemini":
        return request.getfixturevalue("gemini_env"), "gemini-2.5-flash"
    return request.getfixturevalue("openai_env"), "openai:judge-model"


def run(service: JudgeService, body) -> Any:
    async def go() -> Any:
        try:
            return await body(service.client(CRITERION))
        finally:
            await service.aclose()

    return asyncio.run(go())


def options(model: str, **overrides: Any) -> JudgeOptions:
    return JudgeOptions(judge_model=model, **overrides)


REQUEST = JudgeRequest(prompt="Is it right?", system_instruction="Judge.", temperature=0.0)


def test_preflight_and_one_call(target) -> None:
    server, model = target
    service = JudgeService()
    service.preflight([model])
    response = run(service, lambda judge: judge.generate(REQUEST, options(model)))
    assert response.text == '{"ok": true}'
    activity = service.activity(CRITERION)
    assert activity is not None
    assert (activity.calls, activity.retries, activity.input_tokens, activity.output_tokens) == (1, 0, 10, 5)
    assert len(server.requests) == 1


def test_429_storm_then_success_counts_retries(target) -> None:
    server, model = target
    server.script(*[Reply(status=429, retry_after=0) for _ in range(3)], Reply(text="finally"))
    service = JudgeService()
    response = run(service, lambda judge: judge.generate(REQUEST, options(model, max_retries=5)))
    assert response.text == "finally"
    activity = service.activity(CRITERION)
    assert (activity.calls, activity.retries, activity.failures) == (1, 3, {})
    assert len(server.requests) == 4


def test_persistent_500_ends_in_judge_unavailable(target) -> None:
    server, model = target
    server.responder = lambda _request: Reply(status=500)
    service = JudgeService()
    with pytest.raises(JudgeUnavailable) as caught:
        run(service, lambda judge: judge.generate(REQUEST, options(model, max_retries=2)))
    assert caught.value.code == "judge_error"
    assert "after 3 attempts" in str(caught.value) and "HTTP 500" in str(caught.value)
    assert len(server.requests) == 3
    activity = service.activity(CRITERION)
    assert (activity.calls, activity.retries, activity.failures) == (0, 2, {"judge_error": 1})


def test_a_permanent_error_is_not_retried(target) -> None:
    server, model = target
    server.script(Reply(status=400))
    service = JudgeService()
    with pytest.raises(JudgeUnavailable, match="HTTP 400"):
        run(service, lambda judge: judge.generate(REQUEST, options(model, max_retries=5)))
    assert len(server.requests) == 1


def test_hang_times_out_and_is_retried(target) -> None:
    server, model = target
    server.script(Reply(text="too late", delay=10), Reply(text="too late", delay=10))
    service = JudgeService()
    opts = options(model, timeout_seconds=1.0, max_retries=1)
    with pytest.raises(JudgeUnavailable) as caught:
        run(service, lambda judge: judge.generate(REQUEST, opts))
    assert caught.value.code == "judge_timeout"
    assert len(server.requests) == 2


@pytest.mark.parametrize(("run_limit", "criterion_cap", "expected"), [(3, None, 3), (8, 2, 2)])
def test_concurrency_limit_bounds_requests_in_flight(
    target, run_limit: int, criterion_cap: Optional[int], expected: int
) -> None:
    server, model = target
    server.latency = 0.2  # long enough for every permitted request to be in flight together
    service = JudgeService(concurrency=run_limit)
    opts = options(model, num_samples=2 * expected, concurrency=criterion_cap)
    samples = run(service, lambda judge: judge.samples(REQUEST, opts))
    assert all(isinstance(s, JudgeResponse) for s in samples)
    assert len(server.requests) == 2 * expected
    assert server.max_in_flight == expected


def test_second_identical_call_is_served_by_the_cache(target, tmp_path: Path) -> None:
    server, model = target
    server.script(Reply(text="first answer", input_tokens=40, output_tokens=4))

    async def twice(judge) -> tuple[JudgeResponse, JudgeResponse]:
        first = await judge.generate(REQUEST, options(model))
        second = await judge.generate(REQUEST, options(model))
        return first, second

    service = JudgeService(cache=JudgeCache(tmp_path))
    first, second = run(service, twice)
    assert (first.text, first.cached) == ("first answer", False)
    assert (second.text, second.cached) == ("first answer", True)
    assert second.usage == first.usage
    assert len(server.requests) == 1
    activity = service.activity(CRITERION)
    assert (activity.calls, activity.cache_hits) == (1, 1)

    # A new run with the same cache folder: still no request.
    again = JudgeService(cache=JudgeCache(tmp_path))
    third = run(again, lambda judge: judge.generate(REQUEST, options(model)))
    assert third.cached and third.text == "first answer"
    assert len(server.requests) == 1


def test_errors_are_never_cached(target, tmp_path: Path) -> None:
    server, model = target
    server.script(Reply(status=400), Reply(text=None), Reply(text="good"))

    async def calls(judge) -> list[Any]:
        outcomes: list[Any] = []
        for _ in range(4):
            try:
                outcomes.append(await judge.generate(REQUEST, options(model, max_retries=0)))
            except JudgeUnavailable as exc:
                outcomes.append(exc)
        return outcomes

    service = JudgeService(cache=JudgeCache(tmp_path))
    outcomes = run(service, calls)
    assert [type(o).__name__ for o in outcomes] == [
        "JudgeUnavailable",
        "JudgeUnavailable",
        "JudgeResponse",
        "JudgeResponse",
    ]
    assert (outcomes[2].text, outcomes[2].cached, outcomes[3].cached) == ("good", False, True)
    assert len(server.requests) == 3


def test_samples_are_distinct_cache_entries(target, tmp_path: Path) -> None:
    server, model = target
    service = JudgeService(cache=JudgeCache(tmp_path))
    run(service, lambda judge: judge.samples(REQUEST, options(model, num_samples=3)))
    assert len(server.requests) == 3
    service = JudgeService(cache=JudgeCache(tmp_path))
    samples = run(service, lambda judge: judge.samples(REQUEST, options(model, num_samples=3)))
    assert all(s.cached for s in samples)
    assert len(server.requests) == 3


def test_vertex_through_the_service(vertex_env, tmp_path: Path) -> None:
    vertex_env.script(Reply(status=503, retry_after=0), Reply(text="vertex says yes"))
    service = JudgeService(cache=JudgeCache(tmp_path))
    service.preflight(["gemini-2.5-flash"])
    response = run(service, lambda judge: judge.generate(REQUEST, options("gemini-2.5-flash")))
    assert response.text == "vertex says yes"
    assert service.activity(CRITERION).retries == 1
    assert len(vertex_env.token_requests) == 1
