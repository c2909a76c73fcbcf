"""An adaptive concurrency limit (AIMD) for the calls to one judge, paced by its rates.

The limit starts at its ceiling. Every success adds ``1 / limit`` (one more slot per
window of successful calls: additive increase); a call throttled by the server (HTTP 429,
or any answer with ``Retry-After``) halves it (multiplicative decrease), at most once per
window: a throttled call that was started before the last decrease does not decrease it
again, so a burst of 429s for one window of calls halves the limit once, not sixteen times.
The limit never goes below 1 nor above the ceiling. With ``JudgeRates`` set, a call that has
its slot also waits for the requests-per-minute and tokens-per-minute buckets
(``agenteval._judging._rates``): it reserves its estimated tokens and ``settle`` corrects
them with what the provider reported.

One limit per judge: a (provider, model, endpoint), described by a ``LimitSpec`` (two models
on one endpoint, or one model on two endpoints, have limits of their own, as providers
count their quotas). ``EndpointLimit`` is what the judge service needs of such a limit;
``AdaptiveLimit`` (this process's calls) is the default, and a ``LimitFactory`` given to
``JudgeService(limits=...)`` makes another kind (an executor's limit shared by its workers,
e.g. ``agenteval-ray``'s).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Optional, Protocol

from ._rates import JudgeRates, TokenBucket

__all__ = ["AdaptiveLimit", "EndpointLimit", "LimitFactory", "LimitSpec"]


@dataclass(frozen=True)
class LimitSpec:
    """The judge a limit is for, and what the user set for it.

    Attributes:
        provider: the provider's name (``openai``).
        model: the model's name as the provider has it (``gpt-4o``).
        endpoint: where the calls go: the provider's identity without provider and model,
            as JSON (base URL, project, region...; ``{}`` for the provider's default).
        label: the judge for people (``openai:gpt-4o at http://...``).
        ceiling: the most calls in flight (the run's ``--judge-concurrency``).
        rates: requests and tokens per minute (``--judge-rpm``, ``--judge-tpm``).
    """

    provider: str
    model: str
    endpoint: str
    label: str
    ceiling: int
    rates: JudgeRates = field(default_factory=JudgeRates)

    @property
    def key(self) -> str:
        """What tells limits apart: provider, model and endpoint, as JSON."""
        return json.dumps([self.provider, self.model, self.endpoint])


class EndpointLimit(Protocol):
    """The slots for calls to one judge, as the judge service uses them (one event loop).

    ``acquire(tokens)`` waits for a slot (and, with rates set, for the call's turn under
    them, reserving ``tokens``, its estimate) and returns its window (epoch); every granted
    slot is given back with ``release``; ``succeeded`` after an answer, ``settle(reserved,
    used)`` with the tokens the provider reported, ``throttled(window)`` after a 429 or
    ``Retry-After`` (a decrease at most once per window). ``in_flight`` counts the slots
    this process holds; ``open_slots`` is the limit as last known (at least 1)."""

    ceiling: int
    in_flight: int

    @property
    def open_slots(self) -> int: ...

    async def acquire(self, tokens: int = 0) -> int: ...

    def release(self) -> None: ...

    def succeeded(self) -> None: ...

    def settle(self, reserved: int, used: int) -> None: ...

    def throttled(self, window: Optional[int]) -> None: ...


#: Makes the limit of one judge (provider, model, endpoint) from its ``LimitSpec``.
LimitFactory = Callable[[LimitSpec], EndpointLimit]


class AdaptiveLimit:
    """Slots for calls to one judge (one event loop; not thread-safe), paced by ``rates``.

    Attributes:
        ceiling: the most slots (the run's judge concurrency).
        current: the limit now (a float; ``int(current)`` slots are open, at least 1).
        in_flight: slots taken (a call waiting for its turn under the rates holds its slot).
        requests / tokens: the buckets of ``rates`` (``None`` where no rate is set).
    """

    def __init__(
        self,
        ceiling: int,
        rates: Optional[JudgeRates] = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ceiling = max(1, ceiling)
        self.current = float(self.ceiling)
        self.in_flight = 0
        self._epoch = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._clock = clock
        self._pacing: Optional[asyncio.Lock] = None
        rates = rates or JudgeRates()
        now = clock()
        rpm, tpm = rates.requests_per_minute, rates.tokens_per_minute
        self.requests = TokenBucket(rpm, 1, now) if rpm else None
        self.tokens = TokenBucket(tpm, tpm / 60.0, now) if tpm else None

    @classmethod
    def for_spec(cls, spec: LimitSpec) -> AdaptiveLimit:
        """The default ``LimitFactory``: a limit of this process's calls only."""
        return cls(spec.ceiling, spec.rates)

    @property
    def open_slots(self) -> int:
        return max(1, int(self.current))

    @property
    def waiting(self) -> int:
        return sum(1 for waiter in self._waiters if not waiter.done())

    def _wake(self) -> None:
        while self._waiters and self.in_flight < self.open_slots:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                self.in_flight += 1

    async def acquire(self, tokens: int = 0) -> int:
        """Wait for a slot, then for the call's turn under the rates (reserving ``tokens``);
        returns the window the slot was granted in (for ``throttled``)."""
        window = await self._slot()
        if self.requests is None and self.tokens is None:
            return window
        try:
            await self._paced(tokens)
        except asyncio.CancelledError:
            self.release()
            raise
        return window

    async def _paced(self, tokens: int) -> None:
        """Wait for the call's turn under the rates, first come first served, and take it then:
        one request and ``tokens``. The turn is taken when it comes, not booked ahead, so an
        event loop that stalled for a while sends its waiting calls spaced out, not at once."""
        if self._pacing is None:
            self._pacing = asyncio.Lock()
        async with self._pacing:
            while True:
                now = self._clock()
                moment = max(bucket.ready_at(amount, now) for bucket, amount in self._buckets(tokens))
                if moment <= now:
                    break
                await asyncio.sleep(moment - now)
            for bucket, amount in self._buckets(tokens):
                bucket.take(amount, now)

    def _buckets(self, tokens: int) -> list[tuple[TokenBucket, int]]:
        taken: list[tuple[TokenBucket, int]] = []
        if self.requests is not None:
            taken.append((self.requests, 1))
        if self.tokens is not None:
            taken.append((self.tokens, tokens))
        return taken

    def settle(self, reserved: int, used: int) -> None:
        """A call reserved ``reserved`` tokens and the provider reported ``used``."""
        if self.tokens is not None:
            self.tokens.settle(reserved, used)

    async def _slot(self) -> int:
        if not self._waiters and self.in_flight < self.open_slots:
            self.in_flight += 1
            return self._epoch
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # granted, then cancelled before use
            else:
                try:
                    self._waiters.remove(waiter)
                except ValueError:
                    pass
            raise
        return self._epoch

    def release(self) -> None:
        """Give a slot back."""
        self.in_flight = max(0, self.in_flight - 1)
        self._wake()

    def succeeded(self) -> None:
        """A call answered: additive increase."""
        self.current = min(float(self.ceiling), self.current + 1.0 / max(self.current, 1.0))
        self._wake()

    def throttled(self, window: Optional[int]) -> None:
        """The server asked to slow down a call granted in ``window``: multiplicative
        decrease, once per window."""
        if window is not None and window < self._epoch:
            return
        self._epoch += 1
        self.current = max(1.0, self.current / 2.0)
