"""The ``statistics`` block of ``test_config.json``: agenteval's run-wide statistical
settings, kept beside ADK's keys (ADK ignores unknown top-level keys, so the file stays
ADK-compatible).

    {"statistics": {"confidence": 0.95, "num_runs": "auto", "run_budget": 200,
                    "judge_sampling": "curtailed", "judge_budget": 1000,
                    "max_judge_tokens": 500000, "judge_rpm": 600, "judge_tpm": 200000,
                    "fail_on_inconclusive": true, "set_verdict": "holm",
                    "calibration": "cards.json", "min_kappa": 0.6,
                    "judge_prices": {"gemini-2.5-flash": {"input_per_mtok": 0.3,
                                                          "output_per_mtok": 2.5}}}}

Every key is optional; a command-line flag overrides its key. An unknown key or a bad
value is a ``ConfigError`` naming the file, the JSON path and the valid choices.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Optional, Union

from .._stats import SET_VERDICT_RULES
from ..errors import ConfigError

__all__ = ["JUDGE_SAMPLING_MODES", "SET_VERDICT_RULES", "StatisticsConfig", "parse_statistics"]

#: The run-wide judge sampling modes (``--judge-sampling``).
JUDGE_SAMPLING_MODES = ("majority", "curtailed", "sequential", "pivotal")


@dataclass(frozen=True)
class StatisticsConfig:
    """The ``statistics`` block; ``None`` for a key not given (the flag or default decides).

    ``confidence`` in [0.5, 0.999]; ``num_runs`` a whole number ≥ 1 or ``"auto"`` (used
    only when the run runs the agent); ``run_budget`` ≥ 1 (only with ``"auto"``);
    ``judge_sampling`` one of ``JUDGE_SAMPLING_MODES``; ``judge_budget`` ≥ 0 (calls);
    ``max_judge_tokens`` ≥ 0 (judge tokens, input + output as reported: a soft budget);
    ``judge_rpm`` / ``judge_tpm`` > 0, the judge requests / tokens a minute each judge
    (provider, model, endpoint) may take, shared by every worker of the run;
    ``fail_on_inconclusive`` a boolean; ``set_verdict`` one of ``SET_VERDICT_RULES`` (the
    eval sets' verdict rule; ``holm`` when not given); ``calibration`` the calibration cards
    (a ``calibration.json`` or the run folder holding one; a relative path is from the
    config's folder) that gate the judge criteria's verdicts; ``min_kappa`` in [-1, 1], the
    floor of a card's κ lower bound (needs ``calibration``); ``judge_prices`` each judge
    model's price per million input and output tokens (``(model, input, output)`` here),
    which give the summary's judge cost (none are built in)."""

    confidence: Optional[float] = None
    num_runs: Union[int, str, None] = None
    run_budget: Optional[int] = None
    judge_sampling: Optional[str] = None
    judge_budget: Optional[int] = None
    fail_on_inconclusive: Optional[bool] = None
    set_verdict: Optional[str] = None
    max_judge_tokens: Optional[int] = None
    judge_rpm: Optional[float] = None
    judge_tpm: Optional[float] = None
    calibration: Optional[str] = None
    min_kappa: Optional[float] = None
    judge_prices: Optional[tuple[tuple[str, float, float], ...]] = None


_KEYS = tuple(f.name for f in fields(StatisticsConfig))


def _whole(value: Any, path: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{path}: expected a whole number of at least {least}, got {_shown(value)}")
    return value


def _shown(value: Any) -> str:
    import json

    text = json.dumps(value) if isinstance(value, (str, bool, int, float)) or value is None else repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


_PRICE_KEYS = ("input_per_mtok", "output_per_mtok")


def _prices(value: Any, path: str) -> tuple[tuple[str, float, float], ...]:
    """``{model: {"input_per_mtok": P, "output_per_mtok": Q}}`` as ``((model, P, Q), ...)``."""
    example = '{"gemini-2.5-flash": {"input_per_mtok": 0.3, "output_per_mtok": 2.5}}'
    if not isinstance(value, dict):
        raise ValueError(f"{path}: expected an object of judge models, e.g. {example}, got {_shown(value)}")
    found = []
    for model, price in value.items():
        where = f"{path}.{model}"
        if not isinstance(price, dict) or set(price) != set(_PRICE_KEYS):
            raise ValueError(
                f"{where}: expected exactly input_per_mtok and output_per_mtok, got {_shown(price)}"
            )
        amounts = [price[k] for k in _PRICE_KEYS]
        for key, amount in zip(_PRICE_KEYS, amounts, strict=True):
            if (
                isinstance(amount, bool)
                or not isinstance(amount, (int, float))
                or not 0 <= amount < float("inf")
            ):
                raise ValueError(
                    f"{where}.{key}: expected a price of 0 or more per million tokens, got {_shown(amount)}"
                )
        found.append((model, float(amounts[0]), float(amounts[1])))
    return tuple(found)


def _check(key: str, value: Any, path: str, where: str) -> Any:
    if key == "confidence":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.5 <= value <= 0.999:
            raise ValueError(f"{path}: expected a number from 0.5 to 0.999 (e.g. 0.95), got {_shown(value)}")
        return float(value)
    if key == "num_runs":
        if value == "auto":
            return value
        if isinstance(value, str) or isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f'{path}: expected a whole number of at least 1 or "auto", got {_shown(value)}')
        return value
    if key == "calibration":
        if not isinstance(value, str) or not value:
            raise ValueError(
                f"{path}: expected the path of a calibration.json (or its run folder), got {_shown(value)}"
            )
        found = Path(value).expanduser()
        if not found.is_absolute() and not where.startswith("<"):
            found = Path(where).parent / found
        return str(found)
    if key == "min_kappa":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not -1 <= value <= 1:
            raise ValueError(f"{path}: expected a number from -1 to 1 (e.g. 0.6), got {_shown(value)}")
        return float(value)
    if key == "judge_prices":
        return _prices(value, path)
    if key == "run_budget":
        return _whole(value, path, 1)
    if key in ("judge_budget", "max_judge_tokens"):
        return _whole(value, path, 0)
    if key in ("judge_rpm", "judge_tpm"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
            what = "requests" if key == "judge_rpm" else "tokens"
            raise ValueError(
                f"{path}: expected a positive number of judge {what} a minute, got {_shown(value)}"
            )
        return float(value)
    if key in ("judge_sampling", "set_verdict"):
        valid = JUDGE_SAMPLING_MODES if key == "judge_sampling" else SET_VERDICT_RULES
        if value not in valid:
            choices = ", ".join(f'"{m}"' for m in valid)
            raise ValueError(f"{path}: expected one of {choices}, got {_shown(value)}")
        return value
    if not isinstance(value, bool):  # fail_on_inconclusive
        raise ValueError(f"{path}: expected true or false, got {_shown(value)}")
    return value


def parse_statistics(data: Any, where: str, key: str = "statistics") -> StatisticsConfig:
    """The checked block (``key`` is its spelling in the file); ``ConfigError`` listing
    every problem at once."""
    if not isinstance(data, dict):
        raise ConfigError(f"{key}: expected an object, got {_shown(data)}", source=where)
    values: dict[str, Any] = {}
    problems = []
    for name, value in data.items():
        path = f"{key}.{name}"
        if name not in _KEYS:
            problems.append(f"{path}: unknown key; the statistics block takes {', '.join(_KEYS)}")
            continue
        if value is None:
            continue
        try:
            values[name] = _check(name, value, path, where)
        except ValueError as exc:
            problems.append(str(exc))
    if "run_budget" in values and values.get("num_runs") != "auto":
        problems.append(f'{key}.run_budget: caps the runs of "num_runs": "auto"; set that too, or remove it')
    if "min_kappa" in values and "calibration" not in values:
        problems.append(f"{key}.min_kappa: is a floor on the calibration cards' κ; set {key}.calibration too")
    if problems:
        many = f"{len(problems)} problems:\n  " if len(problems) > 1 else ""
        raise ConfigError(many + "\n  ".join(problems), source=where)
    return StatisticsConfig(**values)
