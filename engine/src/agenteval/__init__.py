"""agenteval: a plugin-based engine that scores LLM agents against eval sets.

The public API, one path per name (everything listed is stable within a major version):

* ``agenteval`` (this namespace), for **criterion authors** and **embedders**:

  - the criterion contract: ``Evaluator``, ``EvaluatorInfo``, ``Params``,
    ``EvaluationContext``, ``Score``, ``InvocationScore``, ``explain_scores``;
    ``function_criterion`` (a scoring function as an ``Evaluator`` class);
    ``import_local_function`` (user code a parameter names, found as local criteria are);
    the judge a criterion asks (``ctx.judge``, a ``JudgeService``): ``JudgeOptions``,
    ``JudgeRequest``, ``JudgeResponse``, ``JudgeUsage``;
  - embedding: ``evaluate`` / ``evaluate_async`` (score recorded invocations),
    ``evaluate_agent`` / ``evaluate_agent_async`` (run the agent, then score), with
    ``CriteriaSpec`` / ``ActualSpec``; the run itself: ``assemble(RunRequest(...,
    options=RunOptions(...)))`` → ``AssembledRun`` → ``EvalRun``, ``plan_paths``, ``Plan``,
    ``open_run``, ``run_command``, ``resolve_agent``; ``load_eval_set``, ``load_config``,
    ``EvalConfig`` (its ``StatisticsConfig``), ``Criterion``, ``Registry``, ``JudgeService``
    (with its ``JudgeCache``); an assembled run's ``RunSettings``;
  - results: ``RunResult`` and its records, ``Status``;

* ``agenteval.models``: the eval data model (``EvalSet``, ``EvalCase``, ``Invocation``...);
* ``agenteval.errors``: every exception, "stop before any work" and "failed during a run";
* ``agenteval.plugins``: the contracts of every other plugin kind (agent adapters, user
  simulators, judge models, reporters, format readers, commands);
* ``agenteval.runs``: reading run folders, and comparing two runs;
* ``agenteval.testing``: helpers for testing a criterion; ``agenteval.text``: text helpers
  for plugins; ``agenteval.cli``: the ``agenteval`` command (``main``).

Every other module is private. Attributes are imported on first use (PEP 562), so
``agenteval --help`` stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

_EXPORTS = {
    # the criterion contract
    "EvaluationContext": "._evaluator",
    "Evaluator": "._evaluator",
    "EvaluatorInfo": "._evaluator",
    "InvocationScore": "._evaluator",
    "Params": "._evaluator",
    "Score": "._evaluator",
    "explain_scores": "._evaluator",
    "function_criterion": "._function_criteria",
    "import_local_function": "._local_criteria",
    "JudgeOptions": "._judging",
    "JudgeRequest": "._judging",
    "JudgeResponse": "._judging",
    "JudgeUsage": "._judging",
    # embedding
    "ActualSpec": "._api",
    "CriteriaSpec": "._api",
    "evaluate": "._api",
    "evaluate_agent": "._api",
    "evaluate_agent_async": "._api",
    "evaluate_async": "._api",
    "AssembledRun": "._run",
    "EvalRun": "._run",
    "Plan": "._run",
    "RunOptions": "._run",
    "RunRequest": "._run",
    "assemble": "._run",
    "open_run": "._run._session",
    "plan_paths": "._run",
    "run_command": "._run",
    "resolve_agent": "._agents._resolve",
    "Criterion": "._criterion",
    "EvalConfig": "._loading",
    "load_config": "._loading",
    "load_eval_set": "._loading",
    "JudgeService": "._judging",
    "JudgeCache": "._judging",
    "RunSettings": "._run",
    "StatisticsConfig": "._loading._statistics",
    "Registry": "._registry",
    # results
    "AgentRunRecord": "._results",
    "BudgetInfo": "._results",
    "CaseResult": "._results",
    "CriterionResult": "._results",
    "CriterionSummary": "._results",
    "ErrorInfo": "._results",
    "EvalSetResult": "._results",
    "EvalSetSummary": "._results",
    "IntervalInfo": "._results",
    "InvocationResult": "._results",
    "JudgeActivity": "._results",
    "JudgeAgreementInfo": "._results",
    "PluginInfo": "._results",
    "RunResult": "._results",
    "RunSummary": "._results",
    "SetCriterionSummary": "._results",
    "Status": "._results",
    "VerdictInfo": "._results",
}

__all__ = sorted([*_EXPORTS, "__version__"])

#: The public namespaces below this one (``import agenteval; agenteval.models.EvalSet`` works).
_SUBMODULES = {"cli", "errors", "models", "plugins", "runs", "testing", "text"}


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'agenteval' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*__all__, *_SUBMODULES])


if TYPE_CHECKING:  # for type checkers and IDEs; nothing is imported at run time
    from ._agents._resolve import resolve_agent
    from ._api import ActualSpec, CriteriaSpec, evaluate, evaluate_agent, evaluate_agent_async, evaluate_async
    from ._criterion import Criterion
    from ._evaluator import (
        EvaluationContext,
        Evaluator,
        EvaluatorInfo,
        InvocationScore,
        Params,
        Score,
        explain_scores,
    )
    from ._function_criteria import function_criterion
    from ._judging import JudgeCache, JudgeOptions, JudgeRequest, JudgeResponse, JudgeService, JudgeUsage
    from ._loading import EvalConfig, load_config, load_eval_set
    from ._loading._statistics import StatisticsConfig
    from ._local_criteria import import_local_function
    from ._registry import Registry
    from ._results import (
        AgentRunRecord,
        BudgetInfo,
        CaseResult,
        CriterionResult,
        CriterionSummary,
        ErrorInfo,
        EvalSetResult,
        EvalSetSummary,
        IntervalInfo,
        InvocationResult,
        JudgeActivity,
        JudgeAgreementInfo,
        PluginInfo,
        RunResult,
        RunSummary,
        SetCriterionSummary,
        Status,
        VerdictInfo,
    )
    from ._run import (
        AssembledRun,
        EvalRun,
        Plan,
        RunOptions,
        RunRequest,
        RunSettings,
        assemble,
        plan_paths,
        run_command,
    )
    from ._run._session import open_run
