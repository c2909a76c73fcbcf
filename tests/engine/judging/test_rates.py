"""``judging/_rates.py`` and the rates of ``AdaptiveLimit``: requests and tokens per minute on
a fake clock. Over any span of ``T`` seconds the grants add up to at most the bucket plus the
rate times ``T``: one request plus ``rpm * T / 60`` requests, one second of tokens plus
``tpm * T / 60`` tokens."""

from __future__ import annotations

import asyncio
import heapq
import itertools

import pytest
from agenteval import JudgeRequest
from agenteval._judging._rates import DEFAULT_OUTPUT_ESTIMATE, TokenBucket, estimate_tokens
from agenteval.plugins import AdaptiveLimit, JudgeRates
from hypothesis import given, settings
from hypothesis import strategies as st

EPSILON = 1e-6


def _granted(bucket: TokenBucket, asks: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Each ask ``(arrival, amount)``, in arrival order, granted as the limit grants it:
    ``(moment, amount)``."""
    grants = []
    for arrival, amount in sorted(asks):
        moment = bucket.ready_at(amount, arrival)
        assert moment >= arrival
        bucket.take(amount, moment)
        grants.append((moment, amount))
    return grants


def _most_in_a_span(grants: list[tuple[float, float]], span: float) -> float:
    """The most granted in any closed span of ``span`` seconds (one starting at each grant)."""
    return max(
        sum(amount for moment, amount in grants if start <= moment <= start + span) for start, _ in grants
    )


arrivals = st.lists(st.floats(0, 30, allow_nan=False), min_size=1, max_size=60)


@given(arrivals, st.floats(6, 6000), st.sampled_from([0.5, 1.0, 5.0, 60.0]))
def test_requests_never_exceed_one_plus_the_rate_over_any_span(times, per_minute, span):
    bucket = TokenBucket(per_minute, 1, now=0.0)
    grants = _granted(bucket, [(t, 1) for t in times])
    assert _most_in_a_span(grants, span) <= 1 + per_minute * span / 60 + EPSILON
    moments = [moment for moment, _ in grants]
    gaps = [later - earlier for earlier, later in itertools.pairwise(moments)]
    assert all(gap >= 60 / per_minute - EPSILON for gap in gaps)  # evenly spaced at the most


@given(
    st.lists(st.tuples(st.floats(0, 30, allow_nan=False), st.integers(1, 1000)), min_size=1, max_size=60),
    st.floats(60_000, 600_000),
    st.sampled_from([0.5, 1.0, 5.0, 60.0]),
)
def test_tokens_never_exceed_one_second_plus_the_rate_over_any_span(asks, per_minute, span):
    capacity = per_minute / 60  # one second of tokens: at least 1,000, every ask fits
    grants = _granted(TokenBucket(per_minute, capacity, now=0.0), asks)
    assert _most_in_a_span(grants, span) <= capacity + per_minute * span / 60 + EPSILON


@given(st.lists(st.floats(0, 10, allow_nan=False), min_size=2, max_size=30))
def test_a_call_larger_than_the_bucket_goes_from_a_full_bucket_and_the_next_pays_its_debt(times):
    bucket = TokenBucket(600, 10, now=0.0)  # 10 tokens a second, at most 10 at once
    grants = _granted(bucket, [(t, 30) for t in times])  # each call: 3 seconds of tokens
    moments = [moment for moment, _ in grants]
    assert all(later - earlier >= 3 - EPSILON for earlier, later in itertools.pairwise(moments))


def test_settling_refunds_what_a_call_did_not_use_and_charges_what_it_used_beyond():
    bucket = TokenBucket(60, 10, now=0.0)  # 1 token a second
    bucket.take(10, 0.0)
    bucket.settle(10, 4)  # used 4 of the 10 reserved: 6 back
    assert bucket.ready_at(6, 0.0) == 0.0
    bucket.take(6, 0.0)
    bucket.settle(6, 9)  # used 3 more than reserved: owed
    assert bucket.ready_at(1, 0.0) == pytest.approx(4.0)
    bucket.settle(0, -100)  # a refund never fills the bucket past its capacity
    assert bucket.level == 10


def test_a_call_reserves_its_text_and_its_output():
    assert estimate_tokens(JudgeRequest(prompt="x" * 400)) == 100 + DEFAULT_OUTPUT_ESTIMATE
    request = JudgeRequest(prompt="x" * 10, system_instruction="y" * 10, max_output_tokens=50)
    assert estimate_tokens(request) == 5 + 50


class FakeTime:
    """Virtual time for the limit: its clock, and a sleep that wakes sleepers in the order of
    their wake-up moments, moving the clock there, once every other task has run."""

    def __init__(self) -> None:
        self.now = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future]] = []
        self._order = itertools.count()

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float, result=None):
        future = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + max(0.0, seconds), next(self._order), future))
        await future
        return result

    def run(self, main) -> None:
        """``asyncio.run(main)`` with the limit's ``asyncio.sleep`` on this time."""

        async def drive() -> None:
            task = asyncio.ensure_future(main)
            while not task.done():
                for _ in range(10):
                    await REAL_SLEEP(0)
                if self._sleepers:
                    moment, _, future = heapq.heappop(self._sleepers)
                    self.now = max(self.now, moment)
                    if not future.done():  # a sleeper cancelled meanwhile
                        future.set_result(None)
            await task

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("agenteval._judging._adaptive.asyncio.sleep", self.sleep)
            asyncio.run(drive())


REAL_SLEEP = asyncio.sleep


def test_the_limit_waits_for_both_buckets_and_holds_its_slot_meanwhile():
    time = FakeTime()
    limit = AdaptiveLimit(2, JudgeRates(requests_per_minute=120, tokens_per_minute=600), clock=time)
    granted: list[float] = []

    async def run() -> None:
        for tokens in (10, 10, 5, 5):
            await limit.acquire(tokens)
            granted.append(time.now)
            limit.release()

    time.run(run())
    # 2 requests a second; 10 tokens a second, at most 10 at once: the first goes at once,
    # the second waits a second for its 10 tokens, then the requests bucket spaces the rest.
    assert granted == pytest.approx([0.0, 1.0, 1.5, 2.0])


def test_a_call_cancelled_while_it_waits_for_its_turn_gives_back_its_slot_and_takes_no_tokens():
    time = FakeTime()
    limit = AdaptiveLimit(1, JudgeRates(tokens_per_minute=60), clock=time)  # 1 token a second

    async def run() -> None:
        await limit.acquire(1)
        limit.release()
        waiting = asyncio.ensure_future(limit.acquire(1))
        await REAL_SLEEP(0)
        assert limit.in_flight == 1  # the slot is held while the call waits for its token
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting

    time.run(run())
    assert limit.in_flight == 0
    assert limit.tokens is not None and limit.tokens.level == 0  # the cancelled call took no token


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=25), st.integers(1, 4))
def test_concurrent_callers_under_the_limit_never_exceed_its_rates(tokens, ceiling):
    time = FakeTime()
    limit = AdaptiveLimit(ceiling, JudgeRates(requests_per_minute=300, tokens_per_minute=2400), clock=time)
    grants: list[tuple[float, int]] = []

    async def call(amount: int) -> None:
        await limit.acquire(amount)
        grants.append((time.now, amount))
        await time.sleep(0.05)  # the call itself
        limit.release()

    async def run() -> None:
        await asyncio.gather(*(call(amount) for amount in tokens))

    time.run(run())
    assert len(grants) == len(tokens) and limit.in_flight == 0
    requests = [(moment, 1) for moment, _ in grants]
    for span in (1.0, 3.0):  # 5 requests and 40 tokens a second
        assert _most_in_a_span(requests, span) <= 1 + 5 * span + EPSILON
        assert _most_in_a_span(grants, span) <= 40 + 40 * span + EPSILON


def test_after_a_stalled_event_loop_the_waiting_calls_go_spaced_out_not_at_once():
    """Turns are taken when they come: calls that waited through a stall (a blocking import
    on a loaded machine) are spaced by the rate from the end of the stall."""
    time = FakeTime()
    limit = AdaptiveLimit(8, JudgeRates(requests_per_minute=600), clock=time)  # one every 0.1 s
    granted: list[float] = []

    async def call() -> None:
        await limit.acquire()
        granted.append(time.now)
        limit.release()

    async def run() -> None:
        calls = [asyncio.ensure_future(call()) for _ in range(4)]
        await REAL_SLEEP(0)
        time.now += 10.0  # the loop stalls for 10 s while three calls wait
        await asyncio.gather(*calls)

    time.run(run())
    assert granted[0] == 0.0
    assert [round(later - earlier, 6) for earlier, later in itertools.pairwise(granted[1:])] == [0.1, 0.1]
