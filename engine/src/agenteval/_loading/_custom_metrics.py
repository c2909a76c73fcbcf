"""A config's ``custom_metrics`` section, checked as ADK 2.13's ``CustomMetricConfig`` is.

``{"my_metric": {"code_config": {"name": "pkg.module.fn"}, "metric_info": {...},
"description": "..."}}``: ``code_config`` takes only ``name`` (a dotted path to a function:
a module, a dot, the function's name); ``metric_info`` is optional, and when given needs
``metric_name`` (replaced by the entry's key, as ADK does) and ``metric_value_info``; a
missing ``metric_info`` means the interval [0, 1]. Both snake_case and camelCase keys are
accepted, as in ADK. What ADK's model refuses is a ``ConfigError`` at load, with its JSON
path (``custom_metrics.my_metric.code_config``); what ADK finds only when a run uses the
metric (a name that is not a dotted path, an interval upside down) is found when a run
names it (``CustomMetric.problem_for_use``), still before any work.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import ConfigError
from ..models._base import AdkModel, AdkModelIgnoreExtra
from ._paths import describe_validation_error

__all__ = ["CustomMetric", "check_custom_metrics", "parse_custom_metric"]


class CodeConfig(BaseModel):
    """Where the function is: ``name`` is ``package.module.function``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str


class Interval(AdkModel):
    """The metric's value range."""

    min_value: float
    max_value: float
    open_at_min: bool = False
    open_at_max: bool = False


class MetricValueInfo(AdkModel):
    interval: Optional[Interval] = None


class MetricInfo(AdkModel):
    """ADK's ``MetricInfo`` (``metric_name`` is replaced by the entry's key)."""

    metric_name: str
    description: Optional[str] = None
    metric_value_info: MetricValueInfo
    requires_threshold: bool = True


class CustomMetric(AdkModelIgnoreExtra):
    """One ``custom_metrics`` entry."""

    code_config: CodeConfig
    metric_info: Optional[MetricInfo] = None
    description: str = ""

    @property
    def function_path(self) -> str:
        return self.code_config.name

    @property
    def bounds(self) -> tuple[float, float]:
        """The score range: the interval given, else [0, 1] (ADK's default)."""
        interval = self.metric_info.metric_value_info.interval if self.metric_info else None
        return (interval.min_value, interval.max_value) if interval else (0.0, 1.0)

    def problem_for_use(self) -> Optional[str]:
        """Why this entry cannot run, with the fix (``None`` when it can): a
        ``code_config.name`` that is not ``module.function``, or a range that is not one.

        ADK 2.13 loads such an entry and fails only when a run names the metric; agenteval
        asks at the same point, before any work, and says what to write instead.
        """
        value = self.code_config.name
        module, _, function = value.rpartition(".")
        parts = module.split(".") if module else []
        if not parts or not all(p.isidentifier() for p in [*parts, function]):
            return (
                f"code_config.name: {value!r} is not a dotted path to a function; write "
                "package.module.function (a module importable from the project, a dot, then the "
                "function's name)"
            )
        low, high = self.bounds
        if not (math.isfinite(low) and math.isfinite(high)):
            return "metric_info.metric_value_info.interval: min_value and max_value must be finite numbers"
        if low > high:
            return (
                f"metric_info.metric_value_info.interval: min_value {low:g} is greater than "
                f"max_value {high:g}; swap them"
            )
        return None


def parse_custom_metric(name: str, raw: Any, where: str) -> CustomMetric:
    """One entry, checked; ``ConfigError`` naming ``custom_metrics.<name>...`` otherwise."""
    try:
        return CustomMetric.model_validate(raw)
    except ValidationError as exc:
        detail = describe_validation_error(exc, CustomMetric, prefix=("custom_metrics", name))
        raise ConfigError(f"invalid custom metric {name!r}:\n{detail}", source=where) from None


def check_custom_metrics(section: Any, where: str) -> None:
    """Every entry of the section (a dict, already known to be one), checked."""
    for name, raw in section.items():
        parse_custom_metric(name, raw, where)
