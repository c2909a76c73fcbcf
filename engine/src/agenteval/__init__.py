"""agenteval: a plugin-based engine that scores LLM agents against eval sets.

The public API (everything here is stable within a major version):

* data model: :mod:`agenteval.models` (``EvalSet``, ``EvalCase``, ``Invocation``...);
* plugin contract: ``Evaluator``, ``EvaluatorInfo``, ``Params``, ``EvaluationContext``,
  ``Score``, ``InvocationScore``; ``function_criterion`` (a scoring function as an
  ``Evaluator`` class); ``import_local_function`` (user code a parameter names, found as
  local criteria are);
* requests and results: ``Criterion``, ``RunResult`` and its records, ``Status``;
* embedding: ``evaluate`` / ``evaluate_async`` (score recorded invocations),
  ``evaluate_agent`` / ``evaluate_agent_async`` (run the agent, then score),
  ``load_eval_set``, ``load_config``, ``EvalConfig``, ``Registry``;
* errors: ``AgentEvalError`` and its subclasses.

Attributes are imported on first use (PEP 562), so ``agenteval --help`` stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

_EXPORTS = {
    "AgentEvalError": ".errors",
    "AgentRunRecord": ".results",
    "CaseResult": ".results",
    "ConfigError": ".errors",
    "Criterion": ".criterion",
    "CriterionLoadError": ".errors",
    "CriterionResult": ".results",
    "DataError": ".errors",
    "ErrorInfo": ".results",
    "EvalConfig": ".loading",
    "EvalSetResult": ".results",
    "EvaluationContext": ".evaluator",
    "Evaluator": ".evaluator",
    "EvaluatorInfo": ".evaluator",
    "InvocationResult": ".results",
    "InvocationScore": ".evaluator",
    "Params": ".evaluator",
    "PluginInfo": ".results",
    "Registry": "._registry",
    "RunResult": ".results",
    "RunSummary": ".results",
    "Score": ".evaluator",
    "Status": ".results",
    "evaluate": "._api",
    "evaluate_agent": "._api",
    "evaluate_agent_async": "._api",
    "evaluate_async": "._api",
    "explain_scores": ".evaluator",
    "function_criterion": "._function_criteria",
    "import_local_function": "._local_criteria",
    "load_config": ".loading",
    "load_eval_set": ".loading",
}

__all__ = sorted([*_EXPORTS, "__version__"])


_SUBMODULES = {
    "models",
    "loading",
    "testing",
    "errors",
    "results",
    "evaluator",
    "criterion",
    "reporting",
    "cli",
    "comparison",
    "pipeline",
    "runs",
}


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:  # ``import agenteval; agenteval.models.EvalSet`` works
        return importlib.import_module(f".{name}", __name__)
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agenteval' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # for type checkers and IDEs; nothing is imported at run time
    from ._api import evaluate, evaluate_agent, evaluate_agent_async, evaluate_async
    from ._function_criteria import function_criterion
    from ._local_criteria import import_local_function
    from ._registry import Registry
    from .criterion import Criterion
    from .errors import AgentEvalError, ConfigError, CriterionLoadError, DataError
    from .evaluator import (
        EvaluationContext,
        Evaluator,
        EvaluatorInfo,
        InvocationScore,
        Params,
        Score,
        explain_scores,
    )
    from .loading import EvalConfig, load_config, load_eval_set
    from .results import (
        AgentRunRecord,
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
