"""ADK's ``custom_metrics``, run as agenteval criteria with ADK's calling convention.

The engine finds the function (``custom_metrics.<name>.code_config.name``) and asks this
runner (entry point ``agenteval.custom_metric_runners: adk``) for an ``Evaluator`` class.
Each case, the class builds ADK's own objects and calls the function as ADK 2.13's
``_CustomMetricEvaluator`` does::

    fn(eval_metric, actual_invocations, expected_invocations, conversation_scenario)

* ``eval_metric``: an ``EvalMetric`` named after the metric, ``threshold`` None (as ADK
  passes it), ``criterion`` a ``BaseCriterion`` with the configured threshold and every
  other key of the criteria entry, ``custom_function_path`` the dotted path;
* the invocations: ours converted to ADK's ``Invocation`` (the same JSON); ``expected`` is
  None for a conversation-scenario case, ``conversation_scenario`` ADK's model of it or None.

The function may be ``def`` or ``async def`` (or return an awaitable) and returns an
``EvaluationResult`` (anything with ``overall_score``, ``overall_eval_status`` and
``per_invocation_results``). Its ``overall_score`` is the case's score and each
``per_invocation_results[i].score`` invocation i's; the engine decides PASSED / FAILED with
ADK's rule (``score >= threshold``, inclusive), in the range of ``metric_info``'s interval
([0, 1] without one). The statuses the function set are kept in ``details``
(``adk_status``). ``overall_score`` None is NOT_EVALUATED (``no_score``). Per-invocation
results that are not one per invocation (and not none at all) are an error, as in ADK; an
exception is ERRORED with the exception's message.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Optional

from agenteval import EvaluationContext, Evaluator, EvaluatorInfo, InvocationScore, Params, Score
from pydantic import create_model

__all__ = ["evaluator_class"]


def _one_line(text: Optional[str]) -> Optional[str]:
    lines = (text or "").strip().splitlines()
    return lines[0].strip() if lines and lines[0].strip() else None


def _status_name(status: Any) -> Optional[str]:
    if status is None:
        return None
    return getattr(status, "name", None) or str(status)


def _adk_objects(ctx: EvaluationContext, params: Params, name: str, path: str) -> tuple[Any, ...]:
    from google.adk.evaluation.eval_case import ConversationScenario, Invocation
    from google.adk.evaluation.eval_metrics import BaseCriterion, EvalMetric

    extras = {key: value for key, value in params.model_dump().items() if value is not None}
    criterion = BaseCriterion.model_validate({**extras, "threshold": ctx.threshold})
    metric = EvalMetric(metric_name=name, threshold=None, criterion=criterion, custom_function_path=path)
    actual = [Invocation.model_validate_json(i.model_dump_json()) for i in ctx.actual]
    expected = (
        None
        if ctx.expected is None
        else [Invocation.model_validate_json(i.model_dump_json()) for i in ctx.expected]
    )
    scenario = ctx.case.conversation_scenario
    adk_scenario = (
        None if scenario is None else ConversationScenario.model_validate_json(scenario.model_dump_json())
    )
    return metric, actual, expected, adk_scenario


def as_score(result: Any, count: int) -> Score:
    """ADK's ``EvaluationResult`` as our ``Score`` (see the module docstring)."""
    missing = [a for a in ("overall_score", "per_invocation_results") if not hasattr(result, a)]
    if missing:
        raise TypeError(
            f"the custom metric returned {type(result).__name__}, not an EvaluationResult "
            f"(it has no {', '.join(missing)})"
        )
    per_results = list(result.per_invocation_results or [])
    if per_results and len(per_results) != count:
        raise ValueError(
            f"the custom metric returned {len(per_results)} per-invocation results for {count} "
            "invocations; return one per invocation (ADK refuses this too)"
        )
    per_invocation = [
        InvocationScore(
            score=item.score,
            reason_code="no_score" if item.score is None else None,
            reason="the custom metric gave this invocation no score" if item.score is None else None,
            details={"adk_status": _status_name(getattr(item, "eval_status", None))},
        )
        for item in per_results
    ]
    status = _status_name(getattr(result, "overall_eval_status", None))
    details = {"adk_status": status}
    if result.overall_score is None:
        return Score.not_evaluated(
            f"the custom metric returned no overall score (its status: {status})",
            "no_score",
            per_invocation=per_invocation,
            details=details,
        )
    return Score(value=float(result.overall_score), per_invocation=per_invocation, details=details)


def evaluator_class(
    function: Callable[..., Any],
    *,
    name: str,
    path: str,
    spec: Mapping[str, Any],
    param_keys: Sequence[str] = (),
) -> type[Evaluator]:
    """The ``Evaluator`` class that runs ADK custom metric ``name`` (``function``, found at
    ``path``; ``spec`` is its checked ``custom_metrics`` entry, ``param_keys`` the other
    keys its criteria entries give, passed on in ``eval_metric.criterion``)."""
    metric_info = spec.get("metric_info") or {}
    interval = (metric_info.get("metric_value_info") or {}).get("interval") or {}
    description = (
        _one_line(metric_info.get("description"))
        or _one_line(spec.get("description"))
        or f"ADK custom metric {path}"
    )
    info = EvaluatorInfo(
        description=description,
        min_score=interval.get("min_value", 0.0),
        max_score=interval.get("max_value", 1.0),
    )
    fields: dict[str, Any] = {
        key: (Any, None) for key in param_keys if key.isidentifier() and not key.startswith("model_")
    }
    params_model = create_model(f"{name}_params", __base__=Params, **fields)

    def call(self: Evaluator, ctx: EvaluationContext) -> Any:
        return function(*_adk_objects(ctx, self.params, name, path))

    if inspect.iscoroutinefunction(function):

        async def evaluate(self: Evaluator, ctx: EvaluationContext) -> Score:
            return as_score(await call(self, ctx), len(ctx.actual))

    else:

        def evaluate(self: Evaluator, ctx: EvaluationContext) -> Any:  # type: ignore[misc]  # the sync variant
            outcome = call(self, ctx)
            if inspect.isawaitable(outcome):
                return _settled(outcome, len(ctx.actual))
            return as_score(outcome, len(ctx.actual))

    namespace = {
        "__doc__": f"ADK custom metric {name!r}: {path}, called with ADK's objects. {info.description}",
        "__module__": __name__,
        "info": info,
        "Params": params_model,
        "evaluate": evaluate,
        "function": staticmethod(function),
    }
    return type(f"AdkCustomMetric[{name}]", (Evaluator,), namespace)


async def _settled(outcome: Any, count: int) -> Score:
    return as_score(await outcome, count)
