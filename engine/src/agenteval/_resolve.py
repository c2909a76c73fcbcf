"""Turning requested ``Criterion`` records into ready evaluators, before any work.

Parameters are validated into each evaluator's ``Params``: a key that looks like a typo of
a real parameter (``match_typ``) is an error with the suggestion; any other unknown key is
ignored with a warning, as ADK ignores it (real configs carry keys like ``description``).
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Protocol

from pydantic import ValidationError
from pydantic.alias_generators import to_camel

from ._criterion import Criterion
from ._evaluator import Evaluator, EvaluatorInfo
from ._loading._paths import describe_validation_error, suggest
from ._registry import LoadedCriterion
from ._results import PluginInfo
from .errors import AgentEvalError, ConfigError

__all__ = ["ResolvedCriterion", "resolve_criteria"]

#: Keys ADK's ``BaseCriterion`` defines for every criterion.
_BASE_KEYS = {"include_intermediate_responses_in_final"}


@dataclass(frozen=True)
class ResolvedCriterion:
    """A criterion ready to run: its evaluator instance, threshold and provenance."""

    name: str
    threshold: Optional[float]
    evaluator: Evaluator
    plugin: PluginInfo
    info: EvaluatorInfo

    @functools.cached_property
    def waits(self) -> bool:
        """Whether scoring it can wait: it calls a judge, or its ``evaluate`` is a coroutine
        function (asked once per criterion, not per case)."""
        return self.info.requires_judge or inspect.iscoroutinefunction(self.evaluator.evaluate)


def _param_keys(loaded: LoadedCriterion) -> dict[str, str]:
    """Accepted spelling -> field name, for the evaluator's Params."""
    keys: dict[str, str] = {}
    for field_name, field in loaded.evaluator_class.Params.model_fields.items():
        keys[field_name] = field_name
        keys[field.alias or to_camel(field_name)] = field_name
    return keys


def _check_params(
    criterion: Criterion, loaded: LoadedCriterion, where: str, warnings: list[str]
) -> dict[str, Any]:
    accepted = _param_keys(loaded)
    kept: dict[str, Any] = {}
    for key, value in criterion.params.items():
        path = f"criteria.{criterion.name}.{key}"
        if key in accepted:
            kept[key] = value
            continue
        if key in _BASE_KEYS or key in {to_camel(k) for k in _BASE_KEYS}:
            warnings.append(f"{where}: {path} has no effect on {criterion.name}; ignored")
            continue
        choices = sorted(set(accepted.values())) + ["threshold"]
        hint = suggest(key, choices)
        if hint:
            valid = ", ".join(choices)
            msg = f"{path}: unknown parameter {key!r}; did you mean {hint!r}? Valid parameters: {valid}"
            raise ConfigError(msg, source=where)
        warnings.append(
            f"{where}: {path}: {criterion.name} has no parameter {key!r}; ignored "
            f"(valid: {', '.join(choices)})"
        )
    return kept


def _threshold(criterion: Criterion, info: EvaluatorInfo, where: str, warnings: list[str]) -> Optional[float]:
    if info.informational:
        if criterion.threshold is not None:
            msg = (
                f"criteria.{criterion.name}: {criterion.name} is informational (a measurement, "
                "never pass/fail) and takes no threshold; remove it or configure it as {}"
            )
            raise ConfigError(msg, source=where)
        return None
    if criterion.threshold is not None:
        _check_range(criterion.name, criterion.threshold, info, where, warnings)
    threshold = criterion.threshold if criterion.threshold is not None else info.default_threshold
    if threshold is None:
        msg = f'criteria.{criterion.name}: a threshold is required, e.g. {{"threshold": 0.8}}'
        raise ConfigError(msg, source=where)
    return threshold


def _check_range(name: str, threshold: float, info: EvaluatorInfo, where: str, warnings: list[str]) -> None:
    """A threshold outside the criterion's score range is an error (every score would pass,
    or none could); one on the passing edge of the range (``0`` when higher is better)
    passes every score and gets a warning."""
    low, high = info.min_score, info.max_score
    below = low is not None and threshold < low
    above = high is not None and threshold > high
    better = "higher" if info.higher_is_better else "lower"
    if below or above:
        outcome = "every score would pass" if below == info.higher_is_better else "no score could pass"
        span = f"[{_number(low, '-inf')}, {_number(high, 'inf')}]"
        msg = (
            f"criteria.{name}: threshold {_number(threshold)} is outside the score range of {name}, "
            f"{span} ({better} is better), so {outcome}; give a threshold within the range"
        )
        raise ConfigError(msg, source=where)
    edge = low if info.higher_is_better else high
    if edge is not None and threshold == edge:
        extreme = "lowest" if info.higher_is_better else "highest"
        warnings.append(
            f"{where}: criteria.{name}: threshold {_number(threshold)} is the {extreme} score "
            f"{name} gives ({better} is better), so every score passes"
        )


def _number(value: Optional[float], unbounded: str = "") -> str:
    return unbounded if value is None else f"{value:g}"


def _context(where: str) -> dict[str, Any]:
    """What a ``Params`` validator may read from ``ValidationInfo.context``: ``config_dir``,
    the folder of the config the criterion came from (``None`` for ``--criteria``), against
    which a parameter naming a file is resolved."""
    path = Path(where)
    return {"config_dir": path.resolve().parent if path.suffix == ".json" and path.is_file() else None}


def _name_sources(exc: AgentEvalError, requests: Sequence[tuple[Criterion, str]]) -> None:
    """Give a load error without a source the configs the criteria were requested in."""
    sources = list(dict.fromkeys(where for _, where in requests))
    exc.source = ", ".join(sources)
    exc.args = (f"{exc.source}: {exc.message}",)


class CriterionSource(Protocol):
    """Where criteria are loaded from: a ``Registry``, or the planner's ``LocalCriteria``."""

    def load(self, names: Iterable[str]) -> dict[str, LoadedCriterion]: ...


def resolve_criteria(
    requests: Sequence[tuple[Criterion, str]],
    registry: CriterionSource,
    warnings: list[str],
    cache: Optional[dict[str, Evaluator]] = None,
) -> list[ResolvedCriterion]:
    """Resolve criteria; each request is ``(criterion, where it came from)``.

    Returns one ``ResolvedCriterion`` per request, in order. Evaluators with equal parameters are shared
    (one instance per criterion and parameter set per run).
    """
    try:
        loaded = registry.load(c.name for c, _ in requests)
    except AgentEvalError as exc:
        if exc.source is None:
            _name_sources(exc, requests)
        raise
    cache = {} if cache is None else cache
    resolved = []
    for criterion, where in requests:
        entry = loaded[criterion.name]
        params_data = _check_params(criterion, entry, where, warnings)
        try:
            params = entry.evaluator_class.Params.model_validate(params_data, context=_context(where))
        except ValidationError as exc:
            detail = describe_validation_error(
                exc, entry.evaluator_class.Params, prefix=("criteria", criterion.name)
            )
            raise ConfigError(f"invalid parameters for {criterion.name}:\n{detail}", source=where) from None
        threshold = _threshold(criterion, entry.info, where, warnings)
        key = f"{criterion.name}:{json.dumps(params.model_dump(mode='json'), sort_keys=True)}"
        if key not in cache:
            evaluator = entry.evaluator_class(params)
            try:
                evaluator.check_ready()
            except AgentEvalError:
                raise
            except Exception as exc:  # a plugin's preflight failed: stop before any work
                msg = f"{criterion.name} is not ready to run: {type(exc).__name__}: {exc}"
                raise ConfigError(msg, source=where) from exc
            cache[key] = evaluator
        resolved.append(
            ResolvedCriterion(criterion.name, threshold, cache[key], entry.ref.plugin, entry.info)
        )
    return resolved
