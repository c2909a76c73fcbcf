"""Judge models: the provider contract and the run's judge service.

For criterion authors: declare ``judge_model_options: JudgeOptions`` in your ``Params``,
set ``requires_judge=True`` in ``EvaluatorInfo``, and call ``await ctx.judge.samples(
JudgeRequest(prompt=...), self.params.judge_model_options)``; catch ``JudgeUnavailable``
(or let ``samples`` hand it back) and report NOT_EVALUATED with its ``code``.

For provider authors: subclass ``JudgeModel`` and register it under the
``agenteval.judge_models`` entry-point group.
"""

from ._cache import DEFAULT_CACHE_DIR, JudgeCache, cache_key
from ._errors import JudgeCallError, JudgeUnavailable
from ._http import retry_after_seconds
from ._options import DEFAULT_JUDGE_MODEL, JudgeOptions
from ._provider import JudgeModel
from ._service import DEFAULT_JUDGE_CONCURRENCY, JudgeClient, JudgeService
from ._types import JudgeRequest, JudgeResponse, JudgeUsage

__all__ = [
    "DEFAULT_CACHE_DIR",
    "DEFAULT_JUDGE_CONCURRENCY",
    "DEFAULT_JUDGE_MODEL",
    "JudgeCache",
    "JudgeCallError",
    "JudgeClient",
    "JudgeModel",
    "JudgeOptions",
    "JudgeRequest",
    "JudgeResponse",
    "JudgeService",
    "JudgeUnavailable",
    "JudgeUsage",
    "cache_key",
    "retry_after_seconds",
]
