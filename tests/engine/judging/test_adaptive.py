"""``judging/_adaptive.py``: the AIMD limit of one judge endpoint."""

from __future__ import annotations

import asyncio

from agenteval._judging import AdaptiveLimit
from hypothesis import given
from hypothesis import strategies as st


def test_halves_once_per_window_and_grows_back_by_one_per_window():
    limit = AdaptiveLimit(16)
    window = asyncio.run(limit.acquire())
    for _ in range(16):  # a burst of 429s for calls of one window
        limit.throttled(window)
    assert limit.open_slots == 8
    limit.throttled(window + 1)  # a call granted after the decrease: a new window
    assert limit.open_slots == 4
    for _ in range(5):
        limit.succeeded()
    assert limit.open_slots == 5  # +1/limit per success: one more slot after about a window
    for _ in range(1000):
        limit.succeeded()
    assert limit.open_slots == 16


@given(st.lists(st.sampled_from(["ok", "429", "429-old"]), max_size=200), st.integers(1, 64))
def test_the_limit_stays_between_one_and_the_ceiling(events, ceiling):
    limit = AdaptiveLimit(ceiling)
    for event in events:
        if event == "ok":
            limit.succeeded()
        else:
            limit.throttled(None if event == "429" else -1)
        assert 1 <= limit.open_slots <= ceiling and 1.0 <= limit.current <= ceiling


def test_waiters_are_served_in_order_and_a_cancelled_waiter_takes_no_slot():
    async def run() -> list[str]:
        limit = AdaptiveLimit(1)
        order: list[str] = []
        await limit.acquire()

        async def take(name: str) -> None:
            await limit.acquire()
            order.append(name)
            limit.release()

        first = asyncio.ensure_future(take("first"))
        cancelled = asyncio.ensure_future(take("cancelled"))
        last = asyncio.ensure_future(take("last"))
        await asyncio.sleep(0)
        assert limit.waiting == 3
        cancelled.cancel()
        limit.release()
        await asyncio.gather(first, last, return_exceptions=True)
        assert limit.in_flight == 0 and limit.waiting == 0
        return order

    assert asyncio.run(run()) == ["first", "last"]


def test_a_smaller_limit_holds_new_calls_until_slots_free():
    async def run() -> int:
        limit = AdaptiveLimit(4)
        for _ in range(4):
            await limit.acquire()
        limit.throttled(None)  # now 2 slots, 4 taken
        waiter = asyncio.ensure_future(limit.acquire())
        limit.release()
        limit.release()
        await asyncio.sleep(0)
        assert not waiter.done()  # 2 in flight = the limit
        limit.release()
        await asyncio.sleep(0)
        assert waiter.done()
        return limit.in_flight

    assert asyncio.run(run()) == 2
