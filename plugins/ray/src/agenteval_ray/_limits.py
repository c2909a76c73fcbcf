"""Judge limits shared by every Ray worker of a run: one named actor per judge (provider,
model, endpoint: the engine's ``LimitSpec``).

The actor holds the judge's limit, the engine's own ``AdaptiveLimit``: the adaptive (AIMD)
window (ceiling: the run's judge concurrency, halved once per window on a 429 or
``Retry-After`` seen by any worker, grown back by successes) and, where the run sets them
(``--judge-rpm``, ``--judge-tpm``), the requests-per-minute and tokens-per-minute buckets:
a call reserves its estimated tokens with its slot and settles them with what the provider
reported. Each worker's ``JudgeService`` gets ``SharedLimit``s through ``shared_limits``
(its ``limits`` injection point); a slot costs one actor round trip (about 2 ms) before the
call.

Actors are named ``agenteval-limit-<run token>-<judge hash>`` in the ``agenteval``
namespace, detached (they outlive the worker that made them), and killed by the driver at
the end of the run after it has read their state (``limit_states``). A worker lost while
it held a slot keeps that slot taken until the run ends.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any, Optional

from agenteval.plugins import AdaptiveLimit, EndpointLimit, LimitFactory, LimitSpec

__all__ = ["NAMESPACE", "SharedLimit", "kill_limits", "limit_states", "shared_limits"]

#: The Ray namespace of the limit actors.
NAMESPACE = "agenteval"
_PREFIX = "agenteval-limit-"


class SharedWindow:
    """The actor's state (a Ray async actor: one event loop, no locks needed): the engine's
    own ``AdaptiveLimit`` for the judge of ``spec``, with its rates."""

    def __init__(self, spec: LimitSpec) -> None:
        self.spec = spec
        self.limit = AdaptiveLimit(spec.ceiling, spec.rates)
        self.halvings = 0
        self.granted = 0
        self.tokens = 0
        self.most_in_flight = 0

    async def acquire(self, tokens: int = 0) -> tuple[int, int]:
        """A slot, and the call's turn under the rates (reserving ``tokens``): its window and
        the limit now."""
        window = await self.limit.acquire(tokens)
        self.granted += 1
        self.tokens += tokens
        self.most_in_flight = max(self.most_in_flight, self.limit.in_flight)
        return window, self.limit.open_slots

    def release(self) -> None:
        self.limit.release()

    def succeeded(self) -> None:
        self.limit.succeeded()

    def settle(self, reserved: int, used: int) -> None:
        self.tokens += used - reserved
        self.limit.settle(reserved, used)

    def throttled(self, window: Optional[int]) -> None:
        before = self.limit.current
        self.limit.throttled(window)
        if self.limit.current < before:
            self.halvings += 1

    def state(self) -> dict[str, Any]:
        """What the manifest records of the judge's shared limit."""
        rates = self.spec.rates
        return {
            "label": self.spec.label,
            "provider": self.spec.provider,
            "model": self.spec.model,
            "ceiling": self.limit.ceiling,
            "window": self.limit.open_slots,
            "halvings": self.halvings,
            "granted": self.granted,
            "most_in_flight": self.most_in_flight,
            "requests_per_minute": rates.requests_per_minute,
            "tokens_per_minute": rates.tokens_per_minute,
            "tokens": self.tokens if rates.tokens_per_minute else None,
        }


class SharedLimit:
    """An ``EndpointLimit`` whose window is the actor's: ``in_flight`` counts this worker's
    slots, ``open_slots`` is the shared window as of this worker's last grant."""

    def __init__(self, actor: Any, ceiling: int) -> None:
        self.actor = actor
        self.ceiling = ceiling
        self.in_flight = 0
        self._open = ceiling

    @property
    def open_slots(self) -> int:
        return self._open

    async def acquire(self, tokens: int = 0) -> int:
        reference = self.actor.acquire.remote(tokens)
        try:
            window, self._open = await reference
        except asyncio.CancelledError:
            asyncio.ensure_future(self._give_back(reference))  # granted later: hand it back
            raise
        self.in_flight += 1
        return int(window)

    async def _give_back(self, reference: Any) -> None:
        try:
            await reference
        except Exception:  # noqa: BLE001 - the actor is gone: nothing to give back
            return
        self.actor.release.remote()

    def release(self) -> None:
        self.in_flight = max(0, self.in_flight - 1)
        self.actor.release.remote()

    def succeeded(self) -> None:
        self.actor.succeeded.remote()

    def settle(self, reserved: int, used: int) -> None:
        self.actor.settle.remote(reserved, used)

    def throttled(self, window: Optional[int]) -> None:
        self.actor.throttled.remote(window)


def shared_limits(run_token: str) -> LimitFactory:
    """The ``JudgeService.limits`` of a worker of run ``run_token``: each judge's limit is the
    run's actor for it (made by the first worker that calls the judge, with its ``spec``)."""
    import ray

    window_actor = ray.remote(SharedWindow)

    def make(spec: LimitSpec) -> EndpointLimit:
        digest = hashlib.sha256(spec.key.encode()).hexdigest()[:16]
        actor = window_actor.options(
            name=f"{_PREFIX}{run_token}-{digest}",
            namespace=NAMESPACE,
            get_if_exists=True,
            lifetime="detached",
            max_concurrency=10_000,
            num_cpus=0,
        ).remote(spec)
        return SharedLimit(actor, spec.ceiling)

    return make


def _actors(run_token: str) -> list[Any]:
    import ray
    from ray.util import list_named_actors

    names = [
        entry["name"]
        for entry in list_named_actors(all_namespaces=True)
        if entry.get("namespace") == NAMESPACE and entry["name"].startswith(f"{_PREFIX}{run_token}-")
    ]
    return [ray.get_actor(name, namespace=NAMESPACE) for name in names]


def limit_states(run_token: str) -> list[dict[str, Any]]:
    """The state of each shared limit of the run, by judge label."""
    import ray

    states = ray.get([actor.state.remote() for actor in _actors(run_token)], timeout=30)
    return sorted(states, key=lambda state: state["label"])


def kill_limits(run_token: str) -> None:
    """End the run's limit actors (they are detached: nothing else ends them)."""
    import ray

    for actor in _actors(run_token):
        ray.kill(actor)
