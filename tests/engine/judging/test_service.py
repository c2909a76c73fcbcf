"""``judging/_service.py``: model resolution, preflight, retries, limits, cache, activity.

These drive the service with a provider class defined here, to pin the engine's own
logic; the providers themselves are tested against fake servers through the real SDKs in
``tests/plugins/llm_judges/providers``.
"""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from agenteval import JudgeCache, JudgeOptions, JudgeRequest, JudgeResponse, JudgeService, JudgeUsage
from agenteval._registry import ProviderRegistry
from agenteval.errors import ConfigError, JudgeCallError, JudgeUnavailable, PluginLoadError
from agenteval.plugins import AdaptiveLimit, JudgeModel, JudgeRates


class Scripted(JudgeModel):
    """Answers from a class-level script: an exception instance is raised, a str answered."""

    unprefixed_patterns = ("scripted-*",)
    script: list = []
    calls = 0
    in_flight = 0
    most_in_flight = 0
    ready_error: Exception | None = None

    async def generate(self, request: JudgeRequest) -> JudgeResponse:
        cls = type(self)
        cls.calls += 1
        cls.in_flight += 1
        cls.most_in_flight = max(cls.most_in_flight, cls.in_flight)
        try:
            await asyncio.sleep(0.01)
            step = cls.script.pop(0) if cls.script else "ok"
            if isinstance(step, BaseException):
                raise step
            if step == "hang":
                await asyncio.sleep(10)
            return JudgeResponse(text=step, usage=JudgeUsage(input_tokens=3, output_tokens=1))
        finally:
            cls.in_flight -= 1

    def check_ready(self) -> None:
        if type(self).ready_error is not None:
            raise type(self).ready_error

    def identity(self):
        return {"provider": "scripted", "model": self.model}


@pytest.fixture(autouse=True)
def reset(monkeypatch):
    monkeypatch.setenv("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "0.001")
    Scripted.script, Scripted.calls, Scripted.in_flight, Scripted.most_in_flight = [], 0, 0, 0
    Scripted.ready_error = None


def service(**kwargs) -> JudgeService:
    return JudgeService(providers=ProviderRegistry(classes={"scripted": Scripted}), **kwargs)


def options(**kwargs) -> JudgeOptions:
    return JudgeOptions(judge_model="scripted-1", **kwargs)


def test_resolution_by_prefix_and_by_pattern():
    judges = service()
    assert judges.model("scripted:any-name").model == "any-name"
    assert judges.model("scripted-7").model == "scripted-7"
    assert judges.model("scripted-7") is judges.model("scripted-7")


def test_unknown_model_and_provider_are_config_errors():
    with pytest.raises(ConfigError, match="no provider claims it.*scripted:MODEL"):
        service().model("gpt-4o")
    with pytest.raises(PluginLoadError, match="'nope' is not an installed judge model provider"):
        ProviderRegistry(classes={"scripted": Scripted}).load("nope")


def test_preflight_runs_check_ready_once_per_model():
    Scripted.ready_error = ConfigError("set SCRIPTED_KEY")
    with pytest.raises(ConfigError, match="SCRIPTED_KEY"):
        service().preflight(["scripted-1", "scripted-1"])


def test_retryable_errors_are_retried_then_succeed():
    Scripted.script = [JudgeCallError("busy", retryable=True, status=429, retry_after=0.001), "fine"]
    judges = service()
    answer = asyncio.run(judges.generate("c", JudgeRequest(prompt="q"), options()))
    assert answer.text == "fine"
    activity = judges.activity("c")
    assert (activity.calls, activity.retries, activity.input_tokens) == (1, 1, 3)


def test_persistent_failure_becomes_judge_unavailable_after_max_retries():
    Scripted.script = [JudgeCallError("down", retryable=True, status=500)] * 4
    judges = service()
    with pytest.raises(JudgeUnavailable) as info:
        asyncio.run(judges.generate("c", JudgeRequest(prompt="q"), options(max_retries=3)))
    assert info.value.code == "judge_error"
    assert "after 4 attempts" in str(info.value) and "HTTP 500" in str(info.value)
    assert Scripted.calls == 4
    assert judges.activity("c").failures == {"judge_error": 1}


def test_non_retryable_error_is_not_retried():
    Scripted.script = [JudgeCallError("bad request", retryable=False, status=400)]
    with pytest.raises(JudgeUnavailable):
        asyncio.run(service().generate("c", JudgeRequest(prompt="q"), options()))
    assert Scripted.calls == 1


def test_timeout_is_retried_then_reported():
    Scripted.script = ["hang", "hang"]
    with pytest.raises(JudgeUnavailable) as info:
        asyncio.run(
            service().generate("c", JudgeRequest(prompt="q"), options(timeout_seconds=0.05, max_retries=1))
        )
    assert info.value.code == "judge_timeout"


def test_run_wide_limit_and_per_criterion_cap():
    async def many(judges: JudgeService, **kwargs) -> None:
        await asyncio.gather(
            *(judges.generate("c", JudgeRequest(prompt=f"q{i}"), options(**kwargs)) for i in range(20))
        )

    asyncio.run(many(service(concurrency=3)))
    assert Scripted.most_in_flight == 3
    Scripted.most_in_flight = 0
    asyncio.run(many(service(concurrency=8), concurrency=2))
    assert Scripted.most_in_flight == 2


def test_cache_serves_the_second_run_and_never_stores_errors(tmp_path):
    request = JudgeRequest(prompt="q")
    first = service(cache=JudgeCache(tmp_path))
    asyncio.run(first.generate("c", request, options()))
    Scripted.script = [JudgeCallError("down", retryable=False)]
    with pytest.raises(JudgeUnavailable):
        asyncio.run(first.generate("c", request, options(), sample_index=1))
    calls = Scripted.calls
    second = service(cache=JudgeCache(tmp_path))
    hit = asyncio.run(second.generate("c", request, options()))
    assert hit.cached and Scripted.calls == calls
    asyncio.run(second.generate("c", request, options(), sample_index=1))  # the error was not cached
    assert Scripted.calls == calls + 1
    assert second.activity().cache_hits == 1


def test_samples_returns_failures_in_place():
    Scripted.script = ["a", JudgeCallError("no", retryable=False), "c"]
    judges = service(concurrency=1)
    outcomes = asyncio.run(judges.client("c").samples(JudgeRequest(prompt="q"), options(num_samples=3)))
    assert [o.text if isinstance(o, JudgeResponse) else o.code for o in outcomes] == ["a", "judge_error", "c"]


def test_activity_by_scope():
    judges = service()
    asyncio.run(judges.client("c", "case-1").generate(JudgeRequest(prompt="1"), options()))
    asyncio.run(judges.client("c", "case-2").generate(JudgeRequest(prompt="2"), options()))
    assert judges.activity("c", "case-1").calls == 1
    assert judges.activity("c").calls == 2
    assert judges.activity("other") is None


def test_an_unreasonable_retry_after_fails_the_call_instead_of_stalling():
    Scripted.script = [JudgeCallError("quota", retryable=True, status=429, retry_after=3600)]
    with pytest.raises(JudgeUnavailable, match="asked to wait 3600 s"):
        asyncio.run(service().generate("c", JudgeRequest(prompt="q"), options()))
    assert Scripted.calls == 1


def test_a_provider_can_name_the_failure_code():
    Scripted.script = [JudgeCallError("answer without a score", retryable=False, code="judge_unparseable")]
    with pytest.raises(JudgeUnavailable) as info:
        asyncio.run(service().generate("c", JudgeRequest(prompt="q"), options()))
    assert info.value.code == "judge_unparseable"


def test_a_service_serves_run_after_run_in_new_event_loops():
    judges = service(concurrency=2)
    for prompt in ("first", "second"):
        judges.begin_run()
        asyncio.run(judges.generate("c", JudgeRequest(prompt=prompt), options()))
        asyncio.run(judges.aclose())
        assert judges.activity("c").calls == 1  # the counts are this run's, readable after closing
    judges.begin_run()
    assert judges.activity() is None


# -- failing fast, staying bounded, adapting -------------------------------------------
@pytest.mark.parametrize("code", ["judge_unreachable", "judge_auth"])
def test_an_endpoint_that_is_down_gets_no_further_calls_and_one_warning(code):
    Scripted.script = [JudgeCallError("connection refused", retryable=False, code=code)]
    seen: list[str] = []
    judges = service(on_warning=seen.append)

    async def run():
        return await asyncio.gather(
            *(judges.generate("c", JudgeRequest(prompt=f"q{i}"), options()) for i in range(10)),
            return_exceptions=True,
        )

    judges.concurrency = 1  # one call at a time: the first one takes the endpoint down
    outcomes = asyncio.run(run())
    assert Scripted.calls == 1
    assert {o.code for o in outcomes} == {code}
    assert len(seen) == 1 and "no further calls" in seen[0] and judges.warnings == seen
    assert judges.activity("c").failures == {code: 10}


def test_an_endpoint_that_never_answers_costs_about_one_timeout():
    Scripted.script = ["hang"] * 100
    judges = service(concurrency=4, on_warning=lambda message: None)

    async def run():
        loop = asyncio.get_running_loop()
        started = loop.time()
        outcomes = await asyncio.gather(
            *(
                judges.generate("c", JudgeRequest(prompt=f"q{i}"), options(timeout_seconds=0.2))
                for i in range(40)
            ),
            return_exceptions=True,
        )
        return outcomes, loop.time() - started

    outcomes, elapsed = asyncio.run(run())
    assert {o.code for o in outcomes} == {"judge_timeout"}
    assert Scripted.calls <= 8 and elapsed < 2.0
    assert "4 calls in a row" in judges.warnings[0]


def test_an_answer_over_the_size_cap_is_not_evaluated():
    Scripted.script = ["x" * 5_000]
    with pytest.raises(JudgeUnavailable) as info:
        asyncio.run(service().generate("c", JudgeRequest(prompt="q"), options(max_response_bytes=4_000)))
    assert info.value.code == "judge_response_too_large" and "5,000 bytes" in str(info.value)
    assert Scripted.calls == 1


def test_credentials_never_appear_in_a_failure(monkeypatch):
    monkeypatch.setenv("SCRIPTED_API_KEY", "sk-very-secret-value")
    Scripted.script = [JudgeCallError("bad key sk-very-secret-value", retryable=False, status=400)]
    with pytest.raises(JudgeUnavailable) as info:
        asyncio.run(service().generate("c", JudgeRequest(prompt="q"), options()))
    assert "sk-very-secret-value" not in str(info.value) and "[redacted]" in str(info.value)


def test_429s_halve_the_endpoint_limit_and_progress_shows_retries():
    judges = service(concurrency=8)
    Scripted.script = [JudgeCallError("slow down", retryable=True, status=429, retry_after=0.05)] * 8
    snapshots = []

    async def run():
        calls = [
            asyncio.ensure_future(judges.generate("c", JudgeRequest(prompt=f"q{i}"), options()))
            for i in range(16)
        ]
        await asyncio.sleep(0.03)
        snapshots.append(judges.progress())
        await asyncio.gather(*calls)
        snapshots.append(judges.progress())

    asyncio.run(run())
    during, after = snapshots
    assert during.retrying == 8
    [limit] = during.limits.values()
    assert limit == 4  # halved once for the whole window of 429s, not eight times
    assert after.calls == 16 and after.retrying == after.waiting == after.in_flight == 0


def test_an_injected_limit_factory_makes_every_endpoints_limit():
    """``JudgeService(limits=...)``: an executor's shared limit replaces the in-process one, and
    the service drives it as it drives its own (acquire, release, succeeded, throttled)."""
    made, seen = [], []

    class Counting(AdaptiveLimit):
        def throttled(self, window):
            seen.append(("throttled", window))
            super().throttled(window)

        def succeeded(self):
            seen.append(("succeeded",))
            super().succeeded()

    def factory(spec):
        made.append((json.loads(spec.key)[:2], spec.label, spec.ceiling))
        return Counting(spec.ceiling)

    judges = service(concurrency=3, limits=factory)
    Scripted.script = [JudgeCallError("slow down", retryable=True, status=429, retry_after=0.001), "fine"]
    answer = asyncio.run(judges.generate("c", JudgeRequest(prompt="q"), options()))
    assert answer.text == "fine"
    assert made == [(["scripted", "scripted-1"], "scripted:scripted-1", 3)]
    assert seen == [("throttled", 0), ("succeeded",)]
    [limit] = judges.progress().limits.values()
    assert limit == 2  # halved from 3 to 1.5 once, then grown by 1/1.5


def test_a_failing_cache_never_costs_an_answer(tmp_path):
    (tmp_path / "judge-cache.sqlite3").write_bytes(b"not a database at all" * 100)
    judges = service(cache=JudgeCache(tmp_path), on_warning=lambda message: None)
    answer = asyncio.run(judges.generate("c", JudgeRequest(prompt="q"), options()))
    assert answer.text == "ok" and Scripted.calls == 1
    [warning] = judges.warnings
    assert "goes on without the cache" in warning


def test_at_concurrency_one_a_dead_endpoint_is_given_up_after_three_timeouts():
    Scripted.script = ["hang"] * 100
    judges = service(concurrency=1, on_warning=lambda message: None)

    async def run():
        return await asyncio.gather(
            *(
                judges.generate("c", JudgeRequest(prompt=f"q{i}"), options(timeout_seconds=0.1))
                for i in range(10)
            ),
            return_exceptions=True,
        )

    outcomes = asyncio.run(run())
    assert {o.code for o in outcomes} == {"judge_timeout"} and Scripted.calls == 3


# -- a judge server that never answers, over HTTP (loopback fake): calls counted, not seconds --
def _hung_server_calls(server, first: int, late: int = 0) -> list:
    """``first`` questions at once, then ``late`` more while they are out, to a judge
    server that never answers (default concurrency and retries, 1.5 s timeouts: on a loaded
    machine 0.5 s let the first calls time out before the server had read them)."""
    from agenteval_tests_fixtures_fake_llm_servers import Reply

    judges = JudgeService(on_warning=lambda message: None)
    options = JudgeOptions(judge_model="openai:judge", timeout_seconds=1.5)

    async def run():
        try:
            await judges.generate(
                "c", JudgeRequest(prompt="warm-up"), options.model_copy(update={"timeout_seconds": 60})
            )
            server.responder = lambda request: Reply(text="never sent", delay=3600)
            server.requests.clear()
            calls = [
                asyncio.ensure_future(judges.generate("c", JudgeRequest(prompt=f"q{i}"), options))
                for i in range(first)
            ]
            await asyncio.sleep(0.2)
            calls += [
                asyncio.ensure_future(judges.generate("c", JudgeRequest(prompt=f"late{i}"), options))
                for i in range(late)
            ]
            return await asyncio.gather(*calls, return_exceptions=True)
        finally:
            await judges.aclose()

    return asyncio.run(run())


#: Set in the fresh interpreter ``_alone`` starts: the hung-server tests run there, not in a
#: worker that ran other tests first (in the whole suite under ``bash .ci/run`` the second one
#: twice recorded 3 of 12 requests, and passed every time alone: some state another test leaves
#: in the process, not yet found).
_ALONE = "AGENTEVAL_TEST_ALONE"


def _alone(name: str) -> None:
    """Test ``name`` of this module run by itself in a fresh interpreter (it must pass)."""
    import subprocess
    import sys

    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:xdist",
        f"{__file__}::{name}",
    ]
    done = subprocess.run(
        command, env={**os.environ, _ALONE: "1"}, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_a_hung_judge_server_gets_one_call_per_question_when_fewer_are_out_than_the_concurrency(openai_env):
    if not os.environ.get(_ALONE):
        return _alone(
            "test_a_hung_judge_server_gets_one_call_per_question_when_fewer_are_out_than_the_concurrency"
        )
    outcomes = _hung_server_calls(openai_env, first=9)  # 9 questions, --judge-concurrency 16
    assert {getattr(o, "code", o) for o in outcomes} == {"judge_timeout"}
    assert len(openai_env.requests) == 9  # one timeout for all: no retry starts a second wave


def test_a_timed_out_call_is_not_retried_while_other_calls_to_the_server_are_still_out(openai_env):
    if not os.environ.get(_ALONE):
        return _alone("test_a_timed_out_call_is_not_retried_while_other_calls_to_the_server_are_still_out")
    outcomes = _hung_server_calls(openai_env, first=9, late=3)
    assert {getattr(o, "code", o) for o in outcomes} == {"judge_timeout"}
    assert len(openai_env.requests) == 12  # the first nine wait for the late three, then all give up


def test_tokens_are_counted_per_judge_model_and_cache_hits_are_free(tmp_path):
    from agenteval import JudgeCache

    judges = service(cache=JudgeCache(tmp_path))

    async def ask() -> None:
        await judges.generate("c", JudgeRequest(prompt="q"), options(), scope="case-1")
        await judges.generate("c", JudgeRequest(prompt="q"), options(), scope="case-1")  # cached
        await judges.generate(
            "c", JudgeRequest(prompt="r"), JudgeOptions(judge_model="scripted-2"), scope="case-2"
        )
        await judges.generate("d", JudgeRequest(prompt="s"), options(), scope="case-1")

    asyncio.run(ask())
    whole = judges.activity()
    assert {name: (u.calls, u.input_tokens, u.output_tokens) for name, u in whole.models.items()} == {
        "scripted-1": (2, 6, 2),
        "scripted-2": (1, 3, 1),
    }
    assert whole.cache_hits == 1 and whole.input_tokens == 9
    one_case = judges.activity("c", "case-1")
    assert {name: u.calls for name, u in one_case.models.items()} == {"scripted-1": 1}


class Hosted(Scripted):
    """One model, ``judge``, at the address given as the model name (``hosted:http://a``)."""

    unprefixed_patterns = ()

    def identity(self):
        return {"provider": "hosted", "model": "judge", "base_url": self.model}


def test_each_provider_model_and_endpoint_has_a_limit_of_its_own():
    """Two models on one endpoint, or one model on two endpoints, do not share a window (nor
    rates): a 429 for one halves only its own limit."""
    made = []

    def factory(spec):
        made.append(spec)
        return AdaptiveLimit.for_spec(spec)

    rates = JudgeRates(requests_per_minute=6000, tokens_per_minute=6_000_000)
    providers = ProviderRegistry(classes={"scripted": Scripted, "hosted": Hosted})
    judges = JudgeService(providers=providers, concurrency=4, limits=factory, rates=rates)
    Scripted.script = [JudgeCallError("slow down", retryable=True, status=429, retry_after=0.001)]
    judged = ["scripted-a", "scripted-b", "hosted:http://one", "hosted:http://two"]

    async def run():
        for name in judged:
            await judges.generate("c", JudgeRequest(prompt="q"), JudgeOptions(judge_model=name))

    asyncio.run(run())
    assert [(spec.provider, spec.model) for spec in made] == [
        ("scripted", "scripted-a"),
        ("scripted", "scripted-b"),
        ("hosted", "judge"),
        ("hosted", "judge"),
    ]
    assert len({spec.key for spec in made}) == 4 and {spec.rates for spec in made} == {rates}
    assert judges.progress().limits == {
        "scripted:scripted-a": 2,  # the 429 halved this one only (4 -> 2, +1/2 after the answer)
        "scripted:scripted-b": 4,
        "hosted:judge at http://one": 4,
        "hosted:judge at http://two": 4,
    }


def test_a_call_settles_its_reserved_tokens_with_the_usage_reported():
    settled = []

    class Settling(AdaptiveLimit):
        def settle(self, reserved, used):
            settled.append((reserved, used))
            super().settle(reserved, used)

    judges = service(limits=lambda spec: Settling(spec.ceiling, spec.rates))
    judges.rates = JudgeRates(tokens_per_minute=600_000)
    asyncio.run(judges.generate("c", JudgeRequest(prompt="x" * 40, max_output_tokens=20), options()))
    assert settled == [(10 + 20, 3 + 1)]  # the estimate, then what Scripted reports
