"""The criterion plugin contract's rules, written once.

The plugin finder checks a loaded class with ``evaluator_class_problem``, the run checks
every returned ``Score`` with ``score_problem``, and ``agenteval.testing.check_evaluator``
applies both to a plugin author's class. Each returns why the rule is broken, or ``None``.
"""

from __future__ import annotations

import inspect
import math
from typing import Any, Optional

from pydantic import BaseModel

from ._evaluator import Evaluator, EvaluatorInfo, Score

__all__ = ["evaluator_class_problem", "info_problem", "inside", "score_problem"]


def inside(value: float, info: EvaluatorInfo) -> bool:
    """Whether ``value`` is within the declared score range (open ends allowed)."""
    return (info.min_score is None or value >= info.min_score) and (
        info.max_score is None or value <= info.max_score
    )


def info_problem(info: Any) -> Optional[str]:
    """What is wrong with a class's ``info`` declaration."""
    if not isinstance(info, EvaluatorInfo):
        return f"'info' must be an agenteval.EvaluatorInfo(...) class attribute, got {info!r}"
    description = info.description
    if not description.strip():
        return "info.description is empty; give one line saying what the score measures"
    if "\n" in description.strip() or "\r" in description:
        return f"info.description must be one line (it is shown in listings), got {description!r}"
    low, high = info.min_score, info.max_score
    for label, value in (
        ("min_score", low),
        ("max_score", high),
        ("default_threshold", info.default_threshold),
    ):
        if value is not None and not math.isfinite(value):
            return f"info.{label} must be finite or None, got {value!r}"
    if low is not None and high is not None and low > high:
        return f"info.min_score ({low}) is greater than info.max_score ({high})"
    if info.informational and info.default_threshold is not None:
        return "an informational criterion takes no threshold, but info.default_threshold is set"
    threshold = info.default_threshold
    if threshold is not None and not inside(threshold, info):
        return f"info.default_threshold {threshold} is outside the score range [{low}, {high}]"
    return None


def evaluator_class_problem(obj: Any) -> Optional[str]:
    """What keeps ``obj`` from being a usable criterion class (``None``: nothing)."""
    if not (inspect.isclass(obj) and issubclass(obj, Evaluator)):
        return f"it points at {obj!r}, which is not a subclass of agenteval.Evaluator"
    if inspect.isabstract(obj):
        return f"{obj.__name__} does not implement {', '.join(sorted(obj.__abstractmethods__))}"
    info = getattr(obj, "info", None)
    if not isinstance(info, EvaluatorInfo):
        return f"{obj.__name__}.info must be an agenteval.EvaluatorInfo, got {info!r}"
    why = info_problem(info)
    if why:
        return f"{obj.__name__}.{why}"
    if not (inspect.isclass(obj.Params) and issubclass(obj.Params, BaseModel)):
        return f"{obj.__name__}.Params must be a pydantic model (subclass agenteval.Params)"
    return None


def score_problem(score: Any, info: Any, actual_count: int) -> Optional[str]:
    """What is wrong with an ``evaluate()`` return value for ``actual_count`` invocations:
    not a ``Score``, a value outside the declared range, or per-invocation scores that are
    not one per invocation. (``info`` has ``min_score`` and ``max_score``.)"""
    if not isinstance(score, Score):
        return f"evaluate() returned {type(score).__name__}, expected agenteval.Score"
    if score.value is not None and not inside(score.value, info):
        return f"the case score {score.value!r} is outside the declared range {_bounds(info)}"
    if score.per_invocation and len(score.per_invocation) != actual_count:
        return f"returned {len(score.per_invocation)} per-invocation scores for {actual_count} invocations"
    for index, item in enumerate(score.per_invocation):
        if item.score is not None and not inside(item.score, info):
            where = _bounds(info)
            return f"invocation #{index + 1}'s score {item.score!r} is outside the declared range {where}"
    return None


def _bounds(info: Any) -> str:
    low = "-inf" if info.min_score is None else info.min_score
    high = "inf" if info.max_score is None else info.max_score
    return f"[{low}, {high}]"
