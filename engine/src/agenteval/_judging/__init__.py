"""Judge models: the provider contract and the run's judge service.

Private: what criteria use is public in ``agenteval`` (``JudgeService``, ``JudgeOptions``,
``JudgeRequest``...), the provider contract in ``agenteval.plugins``, the failures in
``agenteval.errors``.

For criterion authors: declare ``judge_model_options: JudgeOptions`` in your ``Params``,
set ``requires_judge=True`` in ``EvaluatorInfo``, and call ``await ctx.judge.samples(
JudgeRequest(prompt=...), self.params.judge_model_options)``; catch ``JudgeUnavailable``
(or let ``samples`` hand it back) and report NOT_EVALUATED with its ``code``.

For provider authors: subclass ``JudgeModel`` and register it under the
``agenteval.judge_models`` entry-point group.
"""

from .._secrets import register_secret, scrub_secrets
from ._adaptive import AdaptiveLimit, EndpointLimit, LimitFactory, LimitSpec
from ._cache import DEFAULT_CACHE_DIR, JudgeCache, cache_key
from ._errors import ENDPOINT_DOWN_CODES, REASON_CODES, JudgeCallError, JudgeUnavailable
from ._google_auth import google_auth_error
from ._http import response_size_cap, retry_after_seconds
from ._options import DEFAULT_JUDGE_MODEL, JudgeOptions
from ._provider import JudgeModel
from ._rates import JudgeRates
from ._service import DEFAULT_JUDGE_CONCURRENCY, JudgeClient, JudgeProgress, JudgeService
from ._types import JudgeRequest, JudgeResponse, JudgeUsage

__all__ = [
    "DEFAULT_CACHE_DIR",
    "DEFAULT_JUDGE_CONCURRENCY",
    "DEFAULT_JUDGE_MODEL",
    "ENDPOINT_DOWN_CODES",
    "REASON_CODES",
    "AdaptiveLimit",
    "EndpointLimit",
    "JudgeCache",
    "JudgeCallError",
    "JudgeClient",
    "JudgeModel",
    "JudgeOptions",
    "JudgeProgress",
    "JudgeRates",
    "JudgeRequest",
    "JudgeResponse",
    "JudgeService",
    "JudgeUnavailable",
    "JudgeUsage",
    "LimitFactory",
    "LimitSpec",
    "cache_key",
    "google_auth_error",
    "register_secret",
    "response_size_cap",
    "retry_after_seconds",
    "scrub_secrets",
]
