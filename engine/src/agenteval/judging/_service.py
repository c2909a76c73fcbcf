"""``JudgeService``: every judge call of a run goes through here.

One service per run. It resolves judge-model names to provider instances (once each),
runs preflight checks before any work, and wraps each call with, in order:

1. the cache (a hit returns at once and costs nothing);
2. one bounded concurrency limit for the whole run (cases × criteria × samples), plus an
   optional per-criterion cap;
3. a per-call timeout;
4. retries with exponential backoff and full jitter on retryable failures (429, 5xx,
   timeouts), waiting at least as long as a ``Retry-After`` asks.

A call that still fails raises ``JudgeUnavailable`` to the criterion, which records the
invocation as NOT_EVALUATED with the reason code; nothing is cached then. Activity (calls,
cache hits, retries, failures by code, tokens) is counted per criterion.
"""

from __future__ import annotations

import asyncio
import fnmatch
import os
import random
from collections.abc import Sequence
from typing import Optional, Union

from .._registry import ProviderRegistry
from ..errors import ConfigError
from ..results import JudgeActivity
from ._cache import JudgeCache, cache_key
from ._errors import JudgeCallError, JudgeUnavailable
from ._options import JudgeOptions
from ._provider import JudgeModel
from ._types import JudgeRequest, JudgeResponse

__all__ = ["DEFAULT_JUDGE_CONCURRENCY", "JudgeClient", "JudgeService"]

DEFAULT_JUDGE_CONCURRENCY = 8
_MAX_BACKOFF_SECONDS = 60.0
#: A ``Retry-After`` longer than this fails the call instead of stalling the run.
_MAX_RETRY_AFTER_SECONDS = 300.0


def _base_delay() -> float:
    # Tests shorten the backoff; users have no reason to.
    return float(os.environ.get("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "1.0"))


class _Tally:
    def __init__(self) -> None:
        self.calls = self.cache_hits = self.retries = 0
        self.input_tokens = self.output_tokens = 0
        self.failures: dict[str, int] = {}

    def record(self, response: JudgeResponse) -> None:
        if response.cached:
            self.cache_hits += 1
        else:
            self.calls += 1
            self.input_tokens += response.usage.input_tokens
            self.output_tokens += response.usage.output_tokens

    def snapshot(self) -> JudgeActivity:
        return JudgeActivity(
            calls=self.calls,
            cache_hits=self.cache_hits,
            retries=self.retries,
            failures=dict(self.failures),
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
        )


class JudgeService:
    """Judge calls for one run (see the module docstring).

    Args:
        concurrency: the most judge calls in flight at once, over the whole run.
        cache: where answers are kept; ``None`` disables caching.
        providers: where providers come from (default: installed entry points).
    """

    def __init__(
        self,
        *,
        concurrency: int = DEFAULT_JUDGE_CONCURRENCY,
        cache: Optional[JudgeCache] = None,
        providers: Optional[ProviderRegistry] = None,
    ) -> None:
        self.concurrency = max(1, concurrency)
        self.cache = cache
        self._providers = providers or ProviderRegistry()
        self._models: dict[str, JudgeModel] = {}
        self._limit: Optional[asyncio.Semaphore] = None
        self._caps: dict[tuple[str, int], asyncio.Semaphore] = {}
        self._tallies: dict[tuple[str, str], _Tally] = {}

    # -- resolving and preflight (before any work) ----------------------------------
    def model(self, spec: str) -> JudgeModel:
        """The provider instance for ``provider:model`` or an unprefixed name it claims."""
        if spec in self._models:
            return self._models[spec]
        provider, _, name = spec.partition(":")
        names = self._providers.names()
        if name and provider in names:
            klass = self._providers.load(provider)
            model_name = name
        else:
            matches = [
                p
                for p in names
                if any(
                    fnmatch.fnmatch(spec, pat)
                    for pat in getattr(self._providers.load(p), "unprefixed_patterns", ())
                )
            ]
            if not matches:
                listed = (
                    ", ".join(f"{p}:MODEL" for p in names)
                    or "none installed (pip install agenteval-llm-judges)"
                )
                msg = (
                    f"judge model {spec!r}: no provider claims it. Name it as provider:model "
                    f"(e.g. 'openai:{spec}' for an OpenAI-compatible server); providers: {listed}"
                )
                raise ConfigError(msg)
            klass, model_name = self._providers.load(matches[0]), spec
        instance = klass(model_name)
        self._models[spec] = instance
        return instance

    def preflight(self, specs: Sequence[str]) -> None:
        """Resolve every judge model a run will use and run its ``check_ready``."""
        for spec in dict.fromkeys(specs):
            self.model(spec).check_ready()

    # -- calls ---------------------------------------------------------------------
    def client(self, criterion: str, scope: str = "") -> JudgeClient:
        """The handle a criterion's evaluator gets as ``ctx.judge``; ``scope`` (the case)
        separates the activity counts of one criterion's cases."""
        return JudgeClient(self, criterion, scope)

    def _tally(self, criterion: str, scope: str) -> _Tally:
        return self._tallies.setdefault((criterion, scope), _Tally())

    def activity(
        self, criterion: Optional[str] = None, scope: Optional[str] = None
    ) -> Optional[JudgeActivity]:
        """What the matching calls did, summed (``None`` if there were none): one
        criterion in one case, one criterion over the run, or everything."""
        matching = [
            tally
            for (name, where), tally in self._tallies.items()
            if (criterion is None or name == criterion) and (scope is None or where == scope)
        ]
        if not matching:
            return None
        total = _Tally()
        for tally in matching:
            total.calls += tally.calls
            total.cache_hits += tally.cache_hits
            total.retries += tally.retries
            total.input_tokens += tally.input_tokens
            total.output_tokens += tally.output_tokens
            for code, count in tally.failures.items():
                total.failures[code] = total.failures.get(code, 0) + count
        return total.snapshot()

    async def generate(
        self,
        criterion: str,
        request: JudgeRequest,
        options: JudgeOptions,
        sample_index: int = 0,
        scope: str = "",
    ) -> JudgeResponse:
        """One sample of one question; ``JudgeUnavailable`` when it cannot be had."""
        tally = self._tally(criterion, scope)
        model = self.model(options.judge_model)
        key = cache_key(model.identity(), request, sample_index) if self.cache is not None else None
        if key is not None:
            hit = self.cache.get(key)
            if hit is not None:
                tally.record(hit)
                return hit
        if self._limit is None:
            self._limit = asyncio.Semaphore(self.concurrency)
        cap = None
        if options.concurrency is not None:
            cap = self._caps.setdefault(
                (criterion, options.concurrency), asyncio.Semaphore(options.concurrency)
            )
        try:
            response = await self._call_with_retries(model, request, options, tally, cap)
        except JudgeUnavailable as exc:
            tally.failures[exc.code] = tally.failures.get(exc.code, 0) + 1
            raise
        tally.record(response)
        if key is not None:
            self.cache.put(key, response)
        return response

    async def _call_with_retries(
        self,
        model: JudgeModel,
        request: JudgeRequest,
        options: JudgeOptions,
        tally: _Tally,
        cap: Optional[asyncio.Semaphore],
    ) -> JudgeResponse:
        attempt = 0
        while True:
            try:
                return await self._one_call(model, request, options, cap)
            except JudgeCallError as exc:
                if not exc.retryable or attempt >= options.max_retries:
                    status = f"HTTP {exc.status}: " if exc.status else ""
                    tries = f" after {attempt + 1} attempts" if attempt else ""
                    raise JudgeUnavailable(f"judge call failed{tries}: {status}{exc}", exc.code) from exc
                delay = random.uniform(0, min(_MAX_BACKOFF_SECONDS, _base_delay() * 2**attempt))
                if exc.retry_after is not None:
                    if exc.retry_after > _MAX_RETRY_AFTER_SECONDS:
                        msg = (
                            f"judge call failed: HTTP {exc.status}: the server asked to wait "
                            f"{exc.retry_after:g} s (Retry-After), longer than the "
                            f"{_MAX_RETRY_AFTER_SECONDS:g} s agenteval waits: {exc}"
                        )
                        raise JudgeUnavailable(msg, "judge_error") from exc
                    delay = max(delay, exc.retry_after)
            except asyncio.TimeoutError as exc:
                if attempt >= options.max_retries:
                    msg = f"judge call timed out after {options.timeout_seconds:g} s, {attempt + 1} times"
                    raise JudgeUnavailable(msg, "judge_timeout") from exc
                delay = random.uniform(0, min(_MAX_BACKOFF_SECONDS, _base_delay() * 2**attempt))
            attempt += 1
            tally.retries += 1
            await asyncio.sleep(delay)

    async def _one_call(
        self,
        model: JudgeModel,
        request: JudgeRequest,
        options: JudgeOptions,
        cap: Optional[asyncio.Semaphore],
    ) -> JudgeResponse:
        assert self._limit is not None
        if cap is not None:
            async with cap, self._limit:
                return await asyncio.wait_for(model.generate(request), options.timeout_seconds)
        async with self._limit:
            return await asyncio.wait_for(model.generate(request), options.timeout_seconds)

    def begin_run(self) -> None:
        """Start counting afresh: a run's results report only that run's activity."""
        self._tallies = {}

    async def aclose(self) -> None:
        """Close every provider client and the cache, and drop the event-loop-bound
        limits: the service can serve another run (in another event loop) afterwards.
        The activity counts stay readable until the next ``begin_run``."""
        for model in self._models.values():
            await model.aclose()
        if self.cache is not None:
            self.cache.close()
        self._limit = None
        self._caps = {}


class JudgeClient:
    """A criterion's handle on the run's judge service (``ctx.judge``)."""

    def __init__(self, service: JudgeService, criterion: str, scope: str = "") -> None:
        self._service = service
        self.criterion = criterion
        self.scope = scope

    async def generate(
        self, request: JudgeRequest, options: JudgeOptions, sample_index: int = 0
    ) -> JudgeResponse:
        """One answer; raises ``JudgeUnavailable`` when it cannot be had."""
        return await self._service.generate(self.criterion, request, options, sample_index, self.scope)

    async def samples(
        self, request: JudgeRequest, options: JudgeOptions
    ) -> list[Union[JudgeResponse, JudgeUnavailable]]:
        """``options.num_samples`` answers to one question, concurrently (within the
        run's limits); a sample that failed is its ``JudgeUnavailable``, in place."""
        outcomes = await asyncio.gather(
            *(self.generate(request, options, i) for i in range(options.num_samples)),
            return_exceptions=True,
        )
        for outcome in outcomes:
            if isinstance(outcome, BaseException) and not isinstance(outcome, JudgeUnavailable):
                raise outcome
        return list(outcomes)
