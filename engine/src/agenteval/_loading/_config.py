"""``test_config.json`` / ``--config``: which criteria to apply, with thresholds and params.

Accepted as ADK 2.13 accepts it, ``{"criteria": {name: number | {"threshold": number,
<params>}}}`` (a numeric string threshold, which ADK converts, is an error here, and all
threshold problems are reported together; a missing or empty ``criteria`` means ADK's four
efficiency metrics alone, with a warning that nothing gates the run), plus
``custom_metrics``, ``user_simulator_config`` and ``live_model_config``, each in
snake_case or camelCase (``userSimulatorConfig``...; one section given in both spellings
is an error), and agenteval's own ``statistics`` block (``_statistics``; ADK ignores it).
Other top-level keys are warnings (ADK ignores them). Parameters are checked against the
evaluator's ``Params`` later, when the criteria are resolved; ``user_simulator_config`` is checked here
(``agenteval.plugins.UserSimulatorConfig``), its ``type`` against the installed simulators.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional

from pydantic.alias_generators import to_camel

from .._criterion import Criterion
from ..errors import ConfigError
from ._custom_metrics import check_custom_metrics
from ._json import read_json
from ._paths import json_type
from ._simulator_config import (
    UserSimulatorConfig,
    check_simulator_installed,
    parse_user_simulator_config,
)
from ._statistics import StatisticsConfig, parse_statistics

__all__ = [
    "DEFAULT_CRITERIA",
    "EFFICIENCY_CRITERIA",
    "EvalConfig",
    "config_from_data",
    "load_config",
    "with_efficiency",
]

#: The criteria applied when no config is given (ADK's defaults).
DEFAULT_CRITERIA: dict[str, float] = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}

#: ADK 2.13's four efficiency metrics (informational: reported, never passed or failed).
EFFICIENCY_CRITERIA: tuple[str, ...] = (
    "tool_call_count_v1",
    "inference_call_count_v1",
    "token_usage_v1",
    "invocation_duration_v1",
)

_SECTIONS = ("custom_metrics", "user_simulator_config", "live_model_config")
#: agenteval's own block (the run's statistical settings), which ADK ignores.
_STATISTICS = "statistics"
_TOP_LEVEL_KEYS = {"criteria", _STATISTICS, *_SECTIONS}
#: Accepted spelling -> section name (ADK's config model takes both spellings).
_SPELLINGS = {**{key: key for key in _TOP_LEVEL_KEYS}, **{to_camel(key): key for key in _SECTIONS}}


@dataclass
class EvalConfig:
    """A parsed config: the criteria in file order, plus the other sections.

    ``user_simulator_config`` is the section as written (a dict); ``user_simulator`` is
    the same, checked (``None`` when the config has none: the simulator then uses ADK's
    defaults). Given only the dict, the checked form is made from it on construction
    (``ConfigError`` if malformed; ignored keys add to ``warnings``).
    """

    criteria: list[Criterion]
    source: Optional[Path] = None
    custom_metrics: dict[str, Any] = field(default_factory=dict)
    user_simulator_config: Optional[dict[str, Any]] = None
    live_model_config: Optional[dict[str, Any]] = None
    warnings: list[str] = field(default_factory=list)
    user_simulator: Optional[UserSimulatorConfig] = None
    #: The ``statistics`` block, checked (``None`` when the config has none).
    statistics: Optional[StatisticsConfig] = None

    def __post_init__(self) -> None:
        if self.user_simulator is None and self.user_simulator_config is not None:
            where = str(self.source) if self.source is not None else None
            self.user_simulator = parse_user_simulator_config(
                self.user_simulator_config, source=where, warnings=self.warnings
            )

    @classmethod
    def from_data(cls, data: Any, *, source: Optional[Path] = None) -> EvalConfig:
        """A config from its parsed JSON (what ``load_config`` reads from a file); ``source``
        is named in messages. ``ConfigError`` if malformed."""
        return config_from_data(data, source=source)

    @classmethod
    def default(cls) -> EvalConfig:
        """ADK's default criteria: trajectory 1.0 and response match 0.8."""
        return cls(criteria=[Criterion(name=n, threshold=t) for n, t in DEFAULT_CRITERIA.items()])

    def get(self, name: str) -> Optional[Criterion]:
        """The configured criterion with this name, if any."""
        return next((c for c in self.criteria if c.name == name), None)


def with_efficiency(config: EvalConfig) -> EvalConfig:
    """``config`` with the efficiency criteria it does not name appended (no threshold,
    no params), in ``EFFICIENCY_CRITERIA`` order: ADK 2.13's rule (its
    ``get_eval_metrics_from_config`` appends them to every run), applied by agenteval
    only on request (``agenteval run --efficiency``), so a run reports what its config
    names and nothing else by default. ``config`` itself is not changed."""
    named = {criterion.name for criterion in config.criteria}
    added = [Criterion(name=name) for name in EFFICIENCY_CRITERIA if name not in named]
    if not added:
        return config
    return replace(config, criteria=[*config.criteria, *added], warnings=list(config.warnings))


def load_config(path: str | Path) -> EvalConfig:
    """Read and check a config file; ``ConfigError`` (or ``DataError``) if malformed."""
    path = Path(path)
    return config_from_data(read_json(path, what="an eval config"), source=path)


def _threshold(value: Any, path: str) -> float:
    """A threshold as a float; ``ValueError`` with the reason and the fix otherwise.

    Only a JSON number is a threshold: a numeric string (``"0.8"``, which ADK converts)
    is refused, as are booleans, ``null``, non-finite and out-of-float-range numbers.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        example = f"{float(value):g}" if isinstance(value, str) and _is_number(value) else "0.8"
        raise ValueError(f"{path}: a threshold is a JSON number, e.g. {example}, got {_shown(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise ValueError(f"{path}: the threshold must be a finite number, got {_shown(value)}")
    return number


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _shown(value: Any) -> str:
    """``value`` as JSON would spell it, cut to 40 characters."""
    text = json.dumps(value) if isinstance(value, (str, bool)) or value is None else repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def config_from_data(data: Any, *, source: Optional[Path] = None) -> EvalConfig:
    """Check parsed config JSON (see the module docstring)."""
    where = str(source) if source is not None else "<config>"
    if not isinstance(data, dict):
        msg = f'a config is a JSON object {{"criteria": {{...}}}}, got a JSON {json_type(data)}'
        raise ConfigError(msg, source=where)
    sections, warnings = _sections(data, where)
    raw = data.get("criteria", {})
    if not isinstance(raw, dict):
        raise ConfigError(
            f"criteria: expected an object of name -> threshold, got {_shown(raw)}", source=where
        )
    if not raw:
        # ADK 2.13 reads a missing or empty ``criteria`` as no criteria and still runs
        # its four efficiency metrics: so does agenteval, saying that nothing gates the run.
        present = "is empty" if "criteria" in data else "is missing"
        warnings.append(
            f"{where}: 'criteria' {present}: only the efficiency metrics are reported "
            f"({', '.join(EFFICIENCY_CRITERIA)}), which never pass or fail, so nothing gates this run; "
            'name criteria to gate it, e.g. {"criteria": {"response_match_score": 0.8}}'
        )
        raw = {name: {} for name in EFFICIENCY_CRITERIA}
    criteria, problems = [], []
    for name, value in raw.items():
        path = f"criteria.{name}"
        try:
            if isinstance(value, dict):
                params = {k: v for k, v in value.items() if k != "threshold"}
                threshold = (
                    _threshold(value["threshold"], f"{path}.threshold") if "threshold" in value else None
                )
                criteria.append(Criterion(name=name, threshold=threshold, params=params))
            else:
                criteria.append(Criterion(name=name, threshold=_threshold(value, path)))
        except ValueError as exc:
            problems.append(str(exc))
    if problems:
        many = f"{len(problems)} problems:\n  " if len(problems) > 1 else ""
        raise ConfigError(many + "\n  ".join(problems), source=where)
    for spelling in sections.values():
        if data[spelling] is not None and not isinstance(data[spelling], dict):
            raise ConfigError(f"{spelling}: expected an object, got {data[spelling]!r}", source=where)
    statistics = sections.pop(_STATISTICS, None)
    section = {key: data[spelling] for key, spelling in sections.items()}
    if section.get("custom_metrics"):
        check_custom_metrics(section["custom_metrics"], where)
    config = EvalConfig(
        criteria=criteria,
        source=source,
        custom_metrics=section.get("custom_metrics") or {},
        user_simulator_config=section.get("user_simulator_config"),
        live_model_config=section.get("live_model_config"),
        warnings=warnings,
        statistics=parse_statistics(data[statistics], where)
        if statistics and data[statistics] is not None
        else None,
    )
    if config.user_simulator is not None:
        check_simulator_installed(config.user_simulator)
    if config.live_model_config is not None:
        config.warnings.append(
            f"{where}: {sections['live_model_config']}: ADK's live (bidirectional audio) mode is not "
            "supported; agenteval runs agents in text mode and ignores this section"
        )
    return config


def _sections(data: dict[str, Any], where: str) -> tuple[dict[str, str], list[str]]:
    """Section name -> the spelling used in ``data``, and warnings for unknown keys;
    ``ConfigError`` when a section is given in both spellings."""
    found: dict[str, str] = {}
    warnings = []
    for key in data:
        name = _SPELLINGS.get(key)
        if name is None:
            warnings.append(
                f"{where}: unknown top-level key {key!r} ignored (ADK 2.13 does not read it either); "
                f"known keys: {', '.join(sorted(_TOP_LEVEL_KEYS))} (or their camelCase spellings)"
            )
        elif name in found:
            msg = f"{key!r} is given twice, as {found[name]!r} and {key!r}; keep one spelling"
            raise ConfigError(msg, source=where)
        else:
            found[name] = key
    found.pop("criteria", None)
    return found, warnings
