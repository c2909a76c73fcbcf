"""``JudgeService``: every judge call of a run goes through here.

One service per run. It resolves judge-model names to provider instances (once each),
runs preflight checks before any work, and wraps each call with, in order:

1. the cache (a hit returns at once and costs nothing; a cache that fails only warns);
2. the endpoint's state: an endpoint that refused the connection (DNS, TLS, refused) or
   the credentials (401/403), or that let a wave of calls in a row go unanswered (the
   calls out together since its last answer, 3 to 12), gets no further calls: they fail
   at once with the same reason code, and the problem is reported once (``warnings``,
   ``on_warning``); a call that got no answer is retried only once the other calls out
   to its endpoint have ended, and only if the endpoint was not given up;
3. one bounded concurrency limit for the whole run (cases x criteria x samples), an
   adaptive limit per judge: provider, model and endpoint (halved on 429 / ``Retry-After``,
   grown back by one per window of successes; paced by the run's requests and tokens per
   minute when set, ``rates``), plus an optional per-criterion cap;
4. a per-call timeout (the cancelled request is closed) and a response-size cap
   (``JudgeOptions.max_response_bytes``, enforced by the providers while reading and
   checked here on the text);
5. retries with exponential backoff and full jitter on retryable failures (429, 5xx,
   timeouts, dropped connections), waiting at least as long as a ``Retry-After`` asks;
6. the run's budgets: calls (``budget``, ``--judge-budget``) and tokens (``max_tokens``,
   ``--max-judge-tokens``, the input and output tokens the providers report). A
   criterion's call past either fails at once with ``judge_budget`` and costs
   nothing (cache hits are free; the user simulator's calls are not counted against them,
   a conversation must not stop midway). The token budget is soft: once the tokens
   reported reach it no new call starts, but calls already out finish and are counted.
   What the refused calls leave unjudged is INCONCLUSIVE (``agenteval._verdicts``).

A call that still fails raises ``JudgeUnavailable`` to the criterion, which records the
invocation as NOT_EVALUATED with the reason code (``REASON_CODES``); nothing is cached then.
Every message is scrubbed of credential values (``agenteval.plugins.scrub_secrets``).
Activity (calls, cache hits, retries, failures by code, tokens) is counted per criterion;
``progress()`` is a snapshot for a live display (waiting, in flight, retrying).
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import logging
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Optional, Union

from .._registry import ProviderRegistry
from .._results import BudgetInfo, JudgeActivity, ModelUsage
from .._secrets import scrub_secrets
from ..errors import JUDGE_BUDGET, ConfigError
from ._adaptive import AdaptiveLimit, EndpointLimit, LimitFactory, LimitSpec
from ._cache import JudgeCache, cache_key
from ._errors import JudgeCallError, JudgeUnavailable
from ._http import RESPONSE_SIZE_CAP
from ._options import JudgeOptions
from ._provider import JudgeModel
from ._rates import JudgeRates, estimate_tokens
from ._types import JudgeRequest, JudgeResponse

#: The LiteLLM provider prefixes ADK resolves in a judge model name (``groq/llama-3.3-70b``):
#: without the ``litellm`` provider installed, such a name gets the install command.
LITELLM_PREFIXES = ("groq", "openai", "ollama", "ollama_chat", "anthropic", "azure")

__all__ = [
    "DEFAULT_JUDGE_CONCURRENCY",
    "USER_SIMULATOR_ACTIVITY",
    "JudgeClient",
    "JudgeProgress",
    "JudgeService",
]

DEFAULT_JUDGE_CONCURRENCY = 16
#: The name the user simulators' model calls are counted under (``JudgeService.activity``);
#: they are never charged to the judge budget.
USER_SIMULATOR_ACTIVITY = "user_simulator"
_MAX_BACKOFF_SECONDS = 30.0
#: A ``Retry-After`` longer than this fails the call instead of stalling the run.
_MAX_RETRY_AFTER_SECONDS = 300.0
#: Calls in a row to one endpoint that got no answer (a timeout, a dropped connection; no
#: answer in between) after which the endpoint is taken for dead: as many as were sent to
#: it together since its last answer (the first wave of calls), within these bounds, so
#: that a hung judge costs one timeout (three at one call at a time), not hours, and not
#: two timeouts when fewer calls than ``--judge-concurrency`` were waiting.
_DEAD_AFTER_TIMEOUTS = (3, 12)
_logger = logging.getLogger("agenteval.judging")
_BUDGET = JUDGE_BUDGET
#: How a failure's message starts, by reason code (default: "judge call failed").
_WHAT_FAILED = {
    "judge_unparseable": "the judge's answer cannot be read",
    "judge_response_too_large": "the judge's answer is too large",
}


def _base_delay() -> float:
    # Tests shorten the backoff; users have no reason to.
    return float(os.environ.get("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "1.0"))


def _endpoint_of(model: JudgeModel) -> str:
    """The endpoint a model's calls go to: its identity without the model name."""
    identity = {k: v for k, v in model.identity().items() if k != "model"}
    return json.dumps(identity, sort_keys=True, default=str)


def _endpoint_label(model: JudgeModel, name: str = "") -> str:
    """``provider at URL`` (``provider:name at URL`` given a model name; no URL: the
    provider's default endpoint)."""
    identity = model.identity()
    where = identity.get("base_url") or identity.get("endpoint")
    provider = identity.get("provider", type(model).__name__)
    judge = f"{provider}:{name}" if name else str(provider)
    return f"{judge} at {where}" if where else judge


def _limit_spec(model: JudgeModel, ceiling: int, rates: JudgeRates) -> LimitSpec:
    """The limit of ``model``'s calls: one per provider, model and endpoint."""
    identity = model.identity()
    provider = str(identity.get("provider", type(model).__name__))
    name = str(identity.get("model", model.model))
    address = {k: v for k, v in identity.items() if k not in ("provider", "model")}
    return LimitSpec(
        provider=provider,
        model=name,
        endpoint=json.dumps(address, sort_keys=True, default=str),
        label=_endpoint_label(model, name),
        ceiling=ceiling,
        rates=rates,
    )


@dataclass(frozen=True)
class JudgeProgress:
    """A snapshot of the run's judge calls, for a live display.

    Attributes:
        waiting: calls waiting for a concurrency slot (run-wide, endpoint or criterion).
        in_flight: calls being answered now.
        retrying: calls sleeping before a retry (backoff or ``Retry-After``).
        calls / cache_hits / failures: totals so far (failures: calls failed for good).
        limits: each judge's current adaptive limit (``provider:model at URL`` -> slots).
    """

    waiting: int = 0
    in_flight: int = 0
    retrying: int = 0
    calls: int = 0
    cache_hits: int = 0
    failures: int = 0
    limits: dict[str, int] = field(default_factory=dict)


class _Tally:
    def __init__(self) -> None:
        self.calls = self.cache_hits = self.retries = 0
        self.input_tokens = self.output_tokens = 0
        self.failures: dict[str, int] = {}
        #: judge model -> [calls, input tokens, output tokens]
        self.models: dict[str, list[int]] = {}

    def record(self, response: JudgeResponse, model: str) -> None:
        if response.cached:
            self.cache_hits += 1
        else:
            self.calls += 1
            self.input_tokens += response.usage.input_tokens
            self.output_tokens += response.usage.output_tokens
            self.add_model(model, 1, response.usage.input_tokens, response.usage.output_tokens)

    def add_model(self, model: str, calls: int, input_tokens: int, output_tokens: int) -> None:
        counts = self.models.setdefault(model, [0, 0, 0])
        counts[0] += calls
        counts[1] += input_tokens
        counts[2] += output_tokens

    def snapshot(self) -> JudgeActivity:
        return JudgeActivity(
            calls=self.calls,
            cache_hits=self.cache_hits,
            retries=self.retries,
            failures=dict(self.failures),
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            models={
                name: ModelUsage(calls=calls, input_tokens=inputs, output_tokens=outputs)
                for name, (calls, inputs, outputs) in sorted(self.models.items())
            },
        )


class _Endpoint:
    """What the service knows about one endpoint in this run: whether it answers, and the
    limit of each judge model called there (``limits``, by ``LimitSpec.key``)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.limits: dict[str, tuple[LimitSpec, EndpointLimit]] = {}
        self.down: Optional[JudgeUnavailable] = None
        self.timeouts_in_a_row = 0
        #: the most calls in flight together since the last answer.
        self.wave = 0
        self._changed: Optional[asyncio.Event] = None

    @property
    def in_flight(self) -> int:
        return sum(limit.in_flight for _, limit in self.limits.values())

    def no_answer(self) -> bool:
        """Count a call that got no answer; whether the endpoint is now taken for dead."""
        self.timeouts_in_a_row += 1
        low, high = _DEAD_AFTER_TIMEOUTS
        return self.timeouts_in_a_row >= max(low, min(high, self.wave))

    def answered(self, limit: EndpointLimit) -> None:
        self.timeouts_in_a_row = 0
        self.wave = self.in_flight
        limit.succeeded()
        self.changed()

    def changed(self) -> None:
        """A call to the endpoint ended, or its state changed: wake the calls in ``settled``."""
        if self._changed is not None:
            self._changed.set()
            self._changed = None

    async def settled(self) -> None:
        """Before retrying a call that got no answer: wait while other calls to the endpoint
        are still out and none has answered since, until one answers (retry) or the
        endpoint is taken for dead (fail at once). A retry then never starts a second wave
        of timeouts against an endpoint that is about to be given up."""
        while self.down is None and self.timeouts_in_a_row and self.in_flight:
            if self._changed is None:
                self._changed = asyncio.Event()
            await self._changed.wait()


class JudgeService:
    """Judge calls for one run (see the module docstring).

    Args:
        concurrency: the most judge calls in flight at once, over the whole run (and the
            ceiling of each endpoint's adaptive limit).
        cache: where answers are kept; ``None`` disables caching.
        providers: where providers come from (default: installed entry points).
        on_warning: called with each warning (a cache that stopped working, an endpoint
            taken out of the run); default: the ``agenteval.judging`` logger. Either way
            the warnings are kept in ``warnings``.
        limits: makes each judge's adaptive limit (``LimitFactory``, one per provider,
            model and endpoint); default: an ``AdaptiveLimit`` of this process's calls. An
            executor whose workers share a judge sets it (also as the ``limits`` attribute,
            before the first call).
        rates: the requests and tokens per minute each judge's limit allows (``None``:
            no rate limit; also the ``rates`` attribute, before the first call).
    """

    def __init__(
        self,
        *,
        concurrency: int = DEFAULT_JUDGE_CONCURRENCY,
        cache: Optional[JudgeCache] = None,
        providers: Optional[ProviderRegistry] = None,
        on_warning: Optional[Callable[[str], None]] = None,
        budget: Optional[int] = None,
        sampling: Optional[str] = None,
        max_tokens: Optional[int] = None,
        limits: Optional[LimitFactory] = None,
        rates: Optional[JudgeRates] = None,
    ) -> None:
        self.concurrency = max(1, concurrency)
        self.limits: LimitFactory = limits or AdaptiveLimit.for_spec
        self.rates = rates or JudgeRates()
        #: The most calls the run's criteria may make (``None``: no limit); a retry is part
        #: of its call. ``spent`` counts the calls charged, ``refused`` those turned away.
        self.budget = budget
        #: The run's ``--judge-sampling`` (``majority``, ``curtailed``, ``sequential``), which
        #: judge criteria apply instead of their own ``judge_sampling`` (``None``: their own).
        self.sampling = sampling
        self.spent = 0
        self.refused = 0
        #: The most tokens (input + output, as reported) the run's criteria may use
        #: (``None``: no limit); ``tokens_spent`` counts them, ``tokens_refused`` the calls
        #: turned away once they were spent.
        self.max_tokens = max_tokens
        self.tokens_spent = 0
        self.tokens_refused = 0
        self.cache = cache
        self.on_warning = on_warning
        self.warnings: list[str] = []
        if cache is not None and cache.on_warning is None:
            cache.on_warning = self._warn
        self._providers = providers or ProviderRegistry()
        self._models: dict[str, JudgeModel] = {}
        self._limit: Optional[AdaptiveLimit] = None
        self._caps: dict[tuple[str, int], asyncio.Semaphore] = {}
        self._endpoints: dict[str, _Endpoint] = {}
        self._tallies: dict[tuple[str, str], _Tally] = {}
        self._waiting = self._retrying = 0

    def _warn(self, message: str) -> None:
        message = scrub_secrets(message)
        self.warnings.append(message)
        if self.on_warning is not None:
            self.on_warning(message)
        else:
            _logger.warning("%s", message)

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
            if not matches and spec.split("/", 1)[0] in LITELLM_PREFIXES and "litellm" not in names:
                from .._plugins import install_hint

                hint = install_hint("judge model provider", "litellm")
                msg = (
                    f"judge model {spec!r} is a LiteLLM model name (ADK resolves "
                    f"{spec.split('/', 1)[0]}/... through LiteLLM); it needs {hint}"
                )
                raise ConfigError(msg)
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

    def _endpoint(self, model: JudgeModel) -> tuple[_Endpoint, EndpointLimit]:
        """The endpoint ``model``'s calls go to, and the limit of that model there."""
        spec = _limit_spec(model, self.concurrency, self.rates)
        key = _endpoint_of(model)
        endpoint = self._endpoints.get(key)
        if endpoint is None:
            endpoint = self._endpoints[key] = _Endpoint(_endpoint_label(model))
        if spec.key not in endpoint.limits:
            endpoint.limits[spec.key] = (spec, self.limits(spec))
        return endpoint, endpoint.limits[spec.key][1]

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
            for name, (calls, inputs, outputs) in tally.models.items():
                total.add_model(name, calls, inputs, outputs)
            for code, count in tally.failures.items():
                total.failures[code] = total.failures.get(code, 0) + count
        return total.snapshot()

    def progress(self) -> JudgeProgress:
        """What the judge calls are doing now (cheap; call it from a progress display)."""
        in_flight = sum(e.in_flight for e in self._endpoints.values())
        tallies = list(self._tallies.values())
        return JudgeProgress(
            waiting=self._waiting,
            in_flight=in_flight,
            retrying=self._retrying,
            calls=sum(t.calls for t in tallies),
            cache_hits=sum(t.cache_hits for t in tallies),
            failures=sum(sum(t.failures.values()) for t in tallies),
            limits={
                spec.label: limit.open_slots
                for endpoint in self._endpoints.values()
                for spec, limit in endpoint.limits.values()
            },
        )

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
        key = None
        if self.cache is not None and self.cache.readable:
            key = cache_key(model.identity(), request, sample_index)
            hit = self.cache.get(key)
            if hit is not None:
                tally.record(hit, options.judge_model)
                return hit
        charged = criterion != USER_SIMULATOR_ACTIVITY
        if charged:
            self._charge(tally)
        if self._limit is None:
            self._limit = AdaptiveLimit(self.concurrency)
        cap = None
        if options.concurrency is not None:
            cap = self._caps.setdefault(
                (criterion, options.concurrency), asyncio.Semaphore(options.concurrency)
            )
        try:
            response = await self._call_with_retries(model, request, options, tally, cap, charged)
        except JudgeUnavailable as exc:
            tally.failures[exc.code] = tally.failures.get(exc.code, 0) + 1
            raise
        tally.record(response, options.judge_model)
        if charged:
            self.tokens_spent += response.usage.input_tokens + response.usage.output_tokens
        if key is not None and self.cache is not None:
            self.cache.put(key, response)  # never raises: a failing cache only warns
        return response

    def _charge(self, tally: _Tally) -> None:
        """Charge one call to the run's budgets; ``JudgeUnavailable`` (``judge_budget``)
        when one of them is spent."""
        if self.budget is not None and self.spent >= self.budget:
            self.refused += 1
            tally.failures[_BUDGET] = tally.failures.get(_BUDGET, 0) + 1
            raise JudgeUnavailable(
                f"the run's judge budget of {self.budget} call(s) is spent (--judge-budget)", _BUDGET
            )
        tokens = self._tokens_spent()
        if tokens is not None:
            tally.failures[_BUDGET] = tally.failures.get(_BUDGET, 0) + 1
            raise tokens
        if self.budget is not None:
            self.spent += 1  # charged when started, so concurrent calls never overshoot

    def _tokens_spent(self) -> Optional[JudgeUnavailable]:
        """The refusal of a call when the token budget is reached (``None``: room left). Asked
        when a call is charged and again when it gets its slot: a call that waited while
        others used the budget up does not start."""
        if self.max_tokens is None or self.tokens_spent < self.max_tokens:
            return None
        self.tokens_refused += 1
        return JudgeUnavailable(
            f"the run's judge token budget of {self.max_tokens:,} is spent "
            f"({self.tokens_spent:,} used; --max-judge-tokens)",
            _BUDGET,
        )

    def budget_info(self) -> Optional[BudgetInfo]:
        """The run's judge budgets and their use (``None`` when it has none)."""
        if self.budget is None and self.max_tokens is None:
            return None
        return BudgetInfo(
            judge_calls_limit=self.budget,
            judge_calls_used=self.spent,
            judge_calls_refused=self.refused,
            judge_tokens_limit=self.max_tokens,
            judge_tokens_used=self.tokens_spent,
            judge_tokens_refused=self.tokens_refused,
        )

    def _fail(self, message: str, code: str) -> JudgeUnavailable:
        return JudgeUnavailable(scrub_secrets(message), code)

    def _take_down(self, endpoint: _Endpoint, failure: JudgeUnavailable) -> None:
        if endpoint.down is None:
            endpoint.down = failure
            endpoint.changed()
            self._warn(f"judge endpoint {endpoint.label}: {failure}; no further calls go to it in this run")

    async def _call_with_retries(
        self,
        model: JudgeModel,
        request: JudgeRequest,
        options: JudgeOptions,
        tally: _Tally,
        cap: Optional[asyncio.Semaphore],
        charged: bool,
    ) -> JudgeResponse:
        endpoint, limit = self._endpoint(model)
        attempt = 0
        while True:
            if endpoint.down is not None:
                raise self._fail(str(endpoint.down), endpoint.down.code)
            failure: Optional[JudgeUnavailable] = None
            delay = random.uniform(0, min(_MAX_BACKOFF_SECONDS, _base_delay() * 2**attempt))
            try:
                return await self._one_call(model, endpoint, limit, request, options, cap, charged)
            except JudgeCallError as exc:
                status = f"HTTP {exc.status}: " if exc.status else ""
                if exc.endpoint_down:
                    failure = self._fail(f"judge call failed: {status}{exc}", exc.code)
                    self._take_down(endpoint, failure)
                elif exc.retryable and not exc.status and endpoint.no_answer():
                    # the provider's own timeout, or a connection dropped without an answer
                    failure = self._dead(endpoint, options, exc.code)
                elif not exc.retryable or attempt >= options.max_retries:
                    tries = f" after {attempt + 1} attempts" if attempt else ""
                    what = _WHAT_FAILED.get(exc.code, "judge call failed")
                    failure = self._fail(f"{what}{tries}: {status}{exc}", exc.code)
                elif exc.retry_after is not None:
                    if exc.retry_after > _MAX_RETRY_AFTER_SECONDS:
                        msg = (
                            f"judge call failed: HTTP {exc.status}: the server asked to wait "
                            f"{exc.retry_after:g} s (Retry-After), longer than the "
                            f"{_MAX_RETRY_AFTER_SECONDS:g} s agenteval waits: {exc}"
                        )
                        failure = self._fail(msg, "judge_error")
                    delay = max(delay, exc.retry_after)
            except asyncio.TimeoutError:
                if endpoint.no_answer():
                    failure = self._dead(endpoint, options, "judge_timeout")
                elif attempt >= options.max_retries:
                    failure = self._fail(
                        f"judge call timed out after {options.timeout_seconds:g} s, {attempt + 1} times",
                        "judge_timeout",
                    )
            if failure is not None:
                raise failure  # outside the except: no chained exception keeps a body alive
            await endpoint.settled()
            if endpoint.down is not None:
                continue
            attempt += 1
            tally.retries += 1
            self._retrying += 1
            try:
                await asyncio.sleep(delay)
            finally:
                self._retrying -= 1

    def _dead(self, endpoint: _Endpoint, options: JudgeOptions, code: str) -> JudgeUnavailable:
        """Take ``endpoint`` out of the run: it let a wave of calls in a row go unanswered."""
        how = (
            f"timed out: {endpoint.timeouts_in_a_row} calls in a row got no answer within "
            f"{options.timeout_seconds:g} s"
            if code == "judge_timeout"
            else f"failed: {endpoint.timeouts_in_a_row} calls in a row got no answer (connection dropped)"
        )
        failure = self._fail(f"judge call {how}", code)
        self._take_down(endpoint, failure)
        return failure

    async def _slot(self, limit: EndpointLimit, tokens: int = 0) -> int:
        self._waiting += 1
        try:
            return await limit.acquire(tokens)
        finally:
            self._waiting -= 1

    async def _one_call(
        self,
        model: JudgeModel,
        endpoint: _Endpoint,
        limit: EndpointLimit,
        request: JudgeRequest,
        options: JudgeOptions,
        cap: Optional[asyncio.Semaphore],
        charged: bool,
    ) -> JudgeResponse:
        assert self._limit is not None
        reserved = estimate_tokens(request) if self.rates.tokens_per_minute else 0
        if cap is not None:
            self._waiting += 1
            try:
                await cap.acquire()
            finally:
                self._waiting -= 1
        try:
            await self._slot(self._limit)
            try:
                window = await self._slot(limit, reserved)
                endpoint.wave = max(endpoint.wave, endpoint.in_flight)
                try:
                    if endpoint.down is not None:  # taken down while this call waited
                        raise self._fail(str(endpoint.down), endpoint.down.code)
                    if charged and (spent := self._tokens_spent()) is not None:
                        if self.budget is not None:
                            self.spent -= 1  # never made: not a call of --judge-budget's
                        raise spent  # the token budget ran out while this call waited
                    response = await self._bounded_call(model, request, options)
                except JudgeCallError as exc:
                    if exc.status == 429 or exc.retry_after is not None:
                        limit.throttled(window)
                    raise
                finally:
                    limit.release()
                    endpoint.changed()
            finally:
                self._limit.release()
        finally:
            if cap is not None:
                cap.release()
        used = response.usage.input_tokens + response.usage.output_tokens
        if reserved and used:  # a provider that reports no usage keeps the estimate charged
            limit.settle(reserved, used)
        endpoint.answered(limit)
        return response

    @staticmethod
    async def _bounded_call(model: JudgeModel, request: JudgeRequest, options: JudgeOptions) -> JudgeResponse:
        token = RESPONSE_SIZE_CAP.set(options.max_response_bytes)
        try:
            response = await asyncio.wait_for(model.generate(request), options.timeout_seconds)
        finally:
            RESPONSE_SIZE_CAP.reset(token)
        size = len(response.text.encode("utf-8", "surrogatepass"))
        if size > options.max_response_bytes:
            raise JudgeCallError(
                f"the answer is {size:,} bytes, more than the {options.max_response_bytes:,} allowed "
                "(judge_model_options.max_response_bytes)",
                retryable=False,
                code="judge_response_too_large",
            )
        return response

    def begin_run(self) -> None:
        """Start counting afresh: a run's results report only that run's activity, and
        every endpoint (one taken out included) gets a new chance."""
        self._tallies = {}
        self._endpoints = {}
        self.spent = self.refused = 0
        self.tokens_spent = self.tokens_refused = 0

    async def aclose(self) -> None:
        """Close every provider client and the cache, and drop the event-loop-bound
        limits: the service can serve another run (in another event loop) afterwards.
        The activity counts and ``progress()`` stay readable until the next ``begin_run``."""
        for model in self._models.values():
            try:
                await model.aclose()
            except Exception as exc:  # noqa: BLE001 - closing must not hide the run's results
                self._warn(f"closing judge model {model.model!r} failed: {type(exc).__name__}: {exc}")
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

    @property
    def sampling(self) -> Optional[str]:
        """The run's ``--judge-sampling``, if given (judge criteria apply it)."""
        return self._service.sampling

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
        samples: list[Union[JudgeResponse, JudgeUnavailable]] = []
        for outcome in outcomes:
            if isinstance(outcome, BaseException) and not isinstance(outcome, JudgeUnavailable):
                raise outcome
            samples.append(outcome)
        return samples
