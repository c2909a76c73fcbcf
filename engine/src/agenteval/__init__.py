"""agenteval: a plugin-based engine that scores LLM agents against eval sets.

The public API (everything here is stable within a major version):

* data model: :mod:`agenteval.models` (``EvalSet``, ``EvalCase``, ``Invocation``...);
* plugin contract: ``Evaluator``, ``EvaluatorInfo``, ``Params``, ``EvaluationContext``,
  ``Score``, ``InvocationScore``;
* requests and results: ``Criterion``, ``RunResult`` and its records, ``Status``;
* embedding: ``evaluate`` / ``evaluate_async``, ``load_eval_set``, ``load_config``;
* errors: ``AgentEvalError`` and its subclasses.
"""

from ._version import __version__
from ._api import evaluate, evaluate_async
from ._registry import Registry
from .criterion import Criterion
from .loading import EvalConfig, load_config, load_eval_set
from .errors import AgentEvalError, ConfigError, CriterionLoadError, DataError
from .evaluator import (
    EvaluationContext,
    Evaluator,
    EvaluatorInfo,
    InvocationScore,
    Params,
    Score,
)
from .results import (
    CaseResult,
    CriterionResult,
    ErrorInfo,
    EvalSetResult,
    InvocationResult,
    PluginInfo,
    RunResult,
    RunSummary,
    Status,
)


__all__ = [
    "AgentEvalError",
    "CaseResult",
    "ConfigError",
    "Criterion",
    "CriterionLoadError",
    "CriterionResult",
    "DataError",
    "ErrorInfo",
    "EvalConfig",
    "EvalSetResult",
    "EvaluationContext",
    "Evaluator",
    "EvaluatorInfo",
    "InvocationResult",
    "InvocationScore",
    "Params",
    "PluginInfo",
    "Registry",
    "RunResult",
    "RunSummary",
    "Score",
    "Status",
    "__version__",
    "evaluate",
    "evaluate_async",
    "load_config",
    "load_eval_set",
]
