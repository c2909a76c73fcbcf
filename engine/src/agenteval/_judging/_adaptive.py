"""An adaptive concurrency limit (AIMD) for the calls to one judge endpoint.

The limit starts at its ceiling. Every success adds ``1 / limit`` (one more slot per
window of successful calls: additive increase); a call throttled by the server (HTTP 429,
or any answer with ``Retry-After``) halves it (multiplicative decrease), at most once per
window: a throttled call that was started before the last decrease does not decrease it
again, so a burst of 429s for one window of calls halves the limit once, not sixteen times.
The limit never goes below 1 nor above the ceiling.

``EndpointLimit`` is what the judge service needs of such a limit; ``AdaptiveLimit`` (this
process's calls) is the default, and a ``LimitFactory`` given to ``JudgeService(limits=...)``
makes another kind (an executor's limit shared by its workers, e.g. ``agenteval-ray``'s).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Optional, Protocol

__all__ = ["AdaptiveLimit", "EndpointLimit", "LimitFactory"]


class EndpointLimit(Protocol):
    """The slots for calls to one endpoint, as the judge service uses them (one event loop).

    ``acquire`` waits for a slot and returns its window (epoch); every granted slot is given
    back with ``release``; ``succeeded`` after an answer, ``throttled(window)`` after a 429
    or ``Retry-After`` (a decrease at most once per window). ``in_flight`` counts the slots
    this process holds; ``open_slots`` is the limit as last known (at least 1)."""

    ceiling: int
    in_flight: int

    @property
    def open_slots(self) -> int: ...

    async def acquire(self) -> int: ...

    def release(self) -> None: ...

    def succeeded(self) -> None: ...

    def throttled(self, window: Optional[int]) -> None: ...


#: Makes the limit of one endpoint: ``(key, label, ceiling)`` -> the limit. ``key`` tells
#: endpoints apart (provider and address, JSON), ``label`` names one for people
#: (``openai at http://...``), ``ceiling`` is the run's judge concurrency.
LimitFactory = Callable[[str, str, int], EndpointLimit]


class AdaptiveLimit:
    """Slots for calls to one endpoint (one event loop; not thread-safe).

    Attributes:
        ceiling: the most slots (the run's judge concurrency).
        current: the limit now (a float; ``int(current)`` slots are open, at least 1).
        in_flight: slots taken.
    """

    def __init__(self, ceiling: int) -> None:
        self.ceiling = max(1, ceiling)
        self.current = float(self.ceiling)
        self.in_flight = 0
        self._epoch = 0
        self._waiters: deque[asyncio.Future[None]] = deque()

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

    async def acquire(self) -> int:
        """Wait for a slot; returns the window it was granted in (for ``throttled``)."""
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
