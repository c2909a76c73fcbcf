"""Per-argument matchers: how one argument's actual value is compared with the expected one.

A matcher takes ``(actual, expected)`` (any JSON values) and returns a score in [0, 1]
(1.0: they match). The built-in ones never raise, whatever the values:

* ``exact``: Python equality of the parsed JSON, as ADK compares (``3 == 3.0``, ``"3" != 3``);
* ``casefold``: two strings equal after ``str.casefold()``; other values as ``exact``;
* ``number``: two numbers (not booleans) within ``abs_tol`` or ``rel_tol``
  (``math.isclose``); other values as ``exact``;
* ``regex``: the actual value is a string in which ``pattern`` is found (``re.search``); the
  expected value is not looked at;
* ``path/to/file.py:fn`` or ``package.module:fn``: the user's function
  ``fn(actual, expected)`` returning a bool or a number in [0, 1], found as local criteria
  are (relative to the config's folder). A function that raises or returns anything else
  makes the criterion's result ERRORED, naming the matcher.

``coerce: "json_scalars"`` (``loosely_equal``) also lets a string equal a number, boolean or
null when the string parses as that JSON value (``"3" == 3``, ``"true" == true``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

from agenteval import Params as ParamsBase
from pydantic import Field, PrivateAttr, ValidationInfo, field_validator, model_validator

__all__ = ["BUILT_IN", "FieldMatch", "Matcher", "loosely_equal"]

BUILT_IN = ("exact", "casefold", "number", "regex")

#: ``(actual, expected) -> score in [0, 1]``.
Matcher = Callable[[Any, Any], float]

#: Functions already imported, by (reference, config folder): a run validates its params once
#: per config, and a field matcher named twice is imported once.
_IMPORTED: dict[tuple[str, Optional[Path]], Callable[..., Any]] = {}


def _config_dir(info: ValidationInfo) -> Optional[Path]:
    context = info.context if isinstance(info.context, dict) else {}
    folder = context.get("config_dir")
    return Path(folder) if folder is not None else None


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float))


def loosely_equal(actual: Any, expected: Any) -> bool:
    """Python equality, except that a string equals a number, boolean or null it parses to
    as JSON (``"3" == 3``, ``"2.50" == 2.5``, ``"true" == True``); recursive."""
    if isinstance(actual, dict) and isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(loosely_equal(actual[k], expected[k]) for k in actual)
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(map(loosely_equal, actual, expected))
    if isinstance(actual, str) and _scalar(expected):
        return _parses_to(actual, expected)
    if isinstance(expected, str) and _scalar(actual):
        return _parses_to(expected, actual)
    return bool(actual == expected)


def _parses_to(text: str, value: Any) -> bool:
    try:
        parsed = json.loads(text)
    except ValueError:
        return False
    return _scalar(parsed) and bool(parsed == value)


class FieldMatch(ParamsBase):
    """How one argument is compared: ``{"match": "casefold"}``, ``{"match": "number",
    "abs_tol": 0.01}``, ``{"match": "regex", "pattern": "^2026-"}`` or ``{"match":
    "path/to/matchers.py:same_meaning"}``."""

    match: str = Field(
        description="exact, casefold, number, regex, or a function: path/to/file.py:fn or package.module:fn."
    )
    abs_tol: float = Field(default=0.0, ge=0, allow_inf_nan=False, description="number: absolute tolerance.")
    rel_tol: float = Field(default=0.0, ge=0, allow_inf_nan=False, description="number: relative tolerance.")
    pattern: Optional[str] = Field(default=None, description="regex: searched for in the actual value.")

    _function: Optional[Callable[..., Any]] = PrivateAttr(default=None)
    _compiled: Optional[re.Pattern[str]] = PrivateAttr(default=None)

    @field_validator("match")
    @classmethod
    def _known(cls, value: str, info: ValidationInfo) -> str:
        if ":" in value:
            key = (value, _config_dir(info))
            if key not in _IMPORTED:
                from agenteval import import_local_function

                try:
                    _IMPORTED[key] = import_local_function(value, key[1])
                except ValueError as exc:
                    raise ValueError(
                        f"field matcher {exc}; fix the path (relative to the config's folder) or use one "
                        f"of {', '.join(BUILT_IN)}"
                    ) from None
            return value
        name = value.strip().lower()
        if name not in BUILT_IN:
            raise ValueError(
                f"unknown matcher {value!r}: use one of {', '.join(BUILT_IN)}, or name a function as "
                "path/to/file.py:function or package.module:function"
            )
        return name

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: Optional[str]) -> Optional[str]:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(
                    f"the regular expression does not compile ({exc}); write it in Python's re syntax, "
                    r"with backslashes doubled in JSON ('\\d')"
                ) from None
        return value

    @model_validator(mode="after")
    def _consistent(self, info: ValidationInfo) -> FieldMatch:
        given = self.model_fields_set
        if self.match == "regex" and self.pattern is None:
            raise ValueError(
                'a "regex" matcher needs "pattern", e.g. {"match": "regex", "pattern": "^2026-"}'
            )
        if self.match != "regex" and "pattern" in given:
            raise ValueError(
                f'"pattern" applies to the "regex" matcher only, not to {self.match!r}; remove it'
            )
        tolerances = sorted(given & {"abs_tol", "rel_tol"})
        if self.match != "number" and tolerances:
            raise ValueError(
                f'{" and ".join(tolerances)} apply to the "number" matcher only, '
                f"not to {self.match!r}; remove them"
            )
        if ":" in self.match:
            self._function = _IMPORTED[(self.match, _config_dir(info))]
        elif self.pattern is not None:
            self._compiled = re.compile(self.pattern)
        return self

    @property
    def label(self) -> str:
        """The matcher as details and reasons name it (``number(abs_tol=0.01)``)."""
        if self.match == "number":
            tolerances = [f"{k}={getattr(self, k):g}" for k in ("abs_tol", "rel_tol") if getattr(self, k)]
            return f"number({', '.join(tolerances)})" if tolerances else "number"
        if self.match == "regex":
            return f"regex({self.pattern!r})"
        return self.match

    def matcher(self, loose: bool) -> Matcher:
        """The comparison this field runs; ``loose``: ``coerce: json_scalars``."""
        equal = loosely_equal if loose else _equal
        if self.match == "casefold":
            return lambda a, e: float(a.casefold() == e.casefold()) if _strings(a, e) else float(equal(a, e))
        if self.match == "number":
            abs_tol, rel_tol = self.abs_tol, self.rel_tol

            def close(a: Any, e: Any) -> float:
                if _number(a) and _number(e):
                    return float(math.isclose(a, e, rel_tol=rel_tol, abs_tol=abs_tol))
                return float(equal(a, e))

            return close
        if self.match == "regex":
            compiled = self._compiled
            assert compiled is not None
            return lambda a, e: float(isinstance(a, str) and compiled.search(a) is not None)
        if self._function is not None:
            return _calling(self._function, self.match)
        return lambda a, e: float(equal(a, e))


def _equal(actual: Any, expected: Any) -> bool:
    return bool(actual == expected)


def _strings(*values: Any) -> bool:
    return all(isinstance(v, str) for v in values)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _calling(function: Callable[..., Any], reference: str) -> Matcher:
    def call(actual: Any, expected: Any) -> float:
        try:
            result = function(actual, expected)
        except Exception as exc:
            raise RuntimeError(f"field matcher {reference} raised {type(exc).__name__}: {exc}") from exc
        if isinstance(result, bool):
            return float(result)
        if isinstance(result, (int, float)) and 0.0 <= result <= 1.0:
            return float(result)
        raise TypeError(
            f"field matcher {reference} returned {result!r}; it must return a bool or a number in [0, 1]"
        )

    return call
