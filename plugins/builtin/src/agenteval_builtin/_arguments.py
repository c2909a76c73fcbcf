"""Argument similarity for ``tool_trajectory_match_v2``: the ``args`` parameter and its rules.

``ArgsConfig`` is what a config writes under ``"args"``; ``ArgsConfig.rule_for(tool)`` is the
``ArgumentRule`` for one tool (its ``per_tool`` entry over the top-level settings). A rule's
``compare(actual_args, expected_args)`` returns a score in [0, 1] and, when asked, the
per-key differences with the matcher that decided each.

Modes (``A``: the actual call's arguments, ``E``: the expected call's):

* ``exact``: every key of A and E present on both sides with matching values (ADK: a missing
  ``args`` differs from ``{}``);
* ``ignore``: always 1.0;
* ``subset``: A's keys are all in E with matching values (E may have more);
* ``superset``: E's keys are all in A with matching values (A may have more);
* ``partial``: ``expected_keys`` (the default): the share of E's keys whose values match in A
  (``{}`` expected: 1.0; ADK PR #6726); ``jaccard``: 1.0 when all match, else matching shared
  keys over the union of keys, nested objects scored the same way (DeepEval).

``keys`` (dotted paths, ``filters.lang``) compares only those paths; ``ignore_keys`` (dotted
paths too) removes them from both sides first; ``fields`` gives a path its own matcher
(``_field_matchers``). In every mode but ``exact`` a missing ``args`` reads as ``{}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Optional

from agenteval import Params as ParamsBase
from pydantic import Field, field_validator

from ._field_matchers import FieldMatch, Matcher, loosely_equal

__all__ = ["ArgsConfig", "ArgsSpec", "ArgumentRule"]

Mode = Literal["exact", "ignore", "subset", "superset", "partial"]
_BINARY = {"exact", "subset", "superset"}
_ABSENT = object()


class ArgsSpec(ParamsBase):
    """How the arguments of two calls of the same tool are compared."""

    mode: Mode = Field(default="exact", description="exact, ignore, subset, superset or partial.")
    partial_formula: Literal["expected_keys", "jaccard"] = Field(
        default="expected_keys",
        description="partial: share of expected keys, or Jaccard over keys (recursive).",
    )
    coerce: Literal["none", "json_scalars"] = Field(
        default="none", description='json_scalars: a string equals the scalar it parses to ("3" == 3).'
    )
    keys: Optional[list[str]] = Field(default=None, description="Only these dotted key paths are compared.")
    ignore_keys: list[str] = Field(default_factory=list, description="Dotted key paths never compared.")
    fields: dict[str, FieldMatch] = Field(default_factory=dict, description="A matcher per dotted key path.")

    @field_validator("keys", "ignore_keys")
    @classmethod
    def _paths(cls, value: Optional[list[str]]) -> Optional[list[str]]:
        for path in value or ():
            if not path or any(not part for part in path.split(".")):
                raise ValueError(f"{path!r} is not a key path: write key or key.subkey (dots between keys)")
        return value


class ArgsConfig(ArgsSpec):
    """``args``: the settings for every tool, and ``per_tool`` overrides by tool name (the
    keys a ``per_tool`` entry gives replace the top-level ones; the others are inherited)."""

    per_tool: dict[str, ArgsSpec] = Field(default_factory=dict, description="Settings for one tool, by name.")

    def rule_for(self, tool: str) -> ArgumentRule:
        """The rule for calls of ``tool``."""
        merged = {name: getattr(self, name) for name in ArgsSpec.model_fields}
        override = self.per_tool.get(tool)
        if override is not None:
            merged.update({name: getattr(override, name) for name in override.model_fields_set})
        return ArgumentRule.build(**merged)


def _split(path: str) -> tuple[str, ...]:
    return tuple(path.split("."))


def _get(args: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = args
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return _ABSENT
        value = value[part]
    return value


def _without(args: Mapping[str, Any], paths: list[tuple[str, ...]]) -> dict[str, Any]:
    """``args`` with the given paths removed (copied where something is removed)."""
    out = dict(args)
    for path in paths:
        head, rest = path[0], path[1:]
        if head not in out:
            continue
        if not rest:
            del out[head]
        elif isinstance(out[head], dict):
            out[head] = _without(out[head], [rest])
    return out


@dataclass(frozen=True)
class _Field:
    match: Matcher
    label: str


@dataclass(frozen=True)
class ArgumentRule:
    """One tool's compiled argument settings (see the module docstring)."""

    mode: str
    jaccard: bool
    loose: bool
    keys: Optional[tuple[tuple[str, ...], ...]]
    ignore: tuple[tuple[str, ...], ...]
    fields: Mapping[str, _Field]
    #: paths above a field matcher (``filters`` for ``filters.lang``): compared key by key.
    nested: frozenset[str]
    #: plain equality of whole ``args`` (``exact``), or nothing compared (``ignore``).
    plain: bool
    #: every value compared by plain equality (no matcher, coercion or recursion).
    by_equality: bool

    @classmethod
    def build(
        cls,
        *,
        mode: str,
        partial_formula: str,
        coerce: str,
        keys: Optional[list[str]],
        ignore_keys: list[str],
        fields: Mapping[str, FieldMatch],
    ) -> ArgumentRule:
        loose = coerce == "json_scalars"
        compiled = {path: _Field(spec.matcher(loose), spec.label) for path, spec in fields.items()}
        nested = {".".join(_split(path)[:n]) for path in fields for n in range(1, len(_split(path)))}
        return cls(
            mode=mode,
            jaccard=partial_formula == "jaccard",
            loose=loose,
            keys=tuple(_split(k) for k in keys) if keys is not None else None,
            ignore=tuple(_split(k) for k in ignore_keys),
            fields=compiled,
            nested=frozenset(nested),
            plain=mode == "ignore"
            or (mode == "exact" and not loose and keys is None and not ignore_keys and not fields),
            by_equality=not loose and not fields,
        )

    @property
    def _label(self) -> str:
        return "json_scalars" if self.loose else "exact"

    def compare(
        self, actual: Optional[dict[str, Any]], expected: Optional[dict[str, Any]], explain: bool = False
    ) -> tuple[float, list[dict[str, Any]]]:
        """``(score, differences)``: the arguments' similarity in [0, 1] and, with
        ``explain``, one entry per key that is not plainly equal: ``{"key", "kind"
        (changed, missing, extra, or equivalent when a matcher accepted unequal values),
        "expected", "actual", "matcher", "score"}``."""
        if self.mode == "ignore":
            return 1.0, []
        if self.plain:
            if actual == expected:
                return 1.0, []
            if not explain:
                return 0.0, []
        if self.mode == "exact" and (actual is None) != (expected is None):
            diff = {"key": "(args)", "kind": "changed", "expected": expected, "actual": actual}
            return 0.0, [{**diff, "matcher": "exact", "score": 0.0}] if explain else []
        got, want = self._items(actual or {}), self._items(expected or {})
        if not explain and self.by_equality:
            return self._by_equality(got, want), []
        shared: dict[str, float] = {}
        diffs: list[dict[str, Any]] = []
        for key, value in want.items():
            if key not in got:
                if explain:
                    diffs.append({"key": key, "kind": "missing", "expected": value, "actual": None})
                continue
            score, label = self._value(got[key], value, key)
            shared[key] = score
            if explain and (score < 1.0 or got[key] != value):
                kind = "changed" if score < 1.0 else "equivalent"
                diffs.append(
                    {
                        "key": key,
                        "kind": kind,
                        "expected": value,
                        "actual": got[key],
                        "matcher": label,
                        "score": score,
                    }
                )
        extra = [key for key in got if key not in want]
        if explain:
            diffs.extend({"key": key, "kind": "extra", "expected": None, "actual": got[key]} for key in extra)
        missing = len(want) - len(shared)
        return self._score(shared, missing, len(extra), len(want)), diffs

    def _by_equality(self, got: Mapping[str, Any], want: Mapping[str, Any]) -> float:
        """``compare``'s score when every value is compared by plain equality (the hot
        path of a large trajectory: no matcher, no coercion, no recursion)."""
        if self.mode == "exact":
            return float(got == want)
        if self.mode == "superset":
            return float(all(k in got and got[k] == v for k, v in want.items()))
        if self.mode == "subset":
            return float(all(k in want and want[k] == v for k, v in got.items()))
        if self.jaccard:
            return _jaccard(got, want)
        if not want:  # partial, share of the expected keys
            return 1.0
        return sum(1 for k, v in want.items() if k in got and got[k] == v) / len(want)

    def _items(self, args: Mapping[str, Any]) -> Mapping[str, Any]:
        if self.ignore:
            args = _without(args, list(self.ignore))
        if self.keys is None:
            return args
        found = {".".join(path): _get(args, path) for path in self.keys}
        return {key: value for key, value in found.items() if value is not _ABSENT}

    def _score(self, shared: Mapping[str, float], missing: int, extra: int, wanted: int) -> float:
        perfect = all(s == 1.0 for s in shared.values())
        if self.mode in _BINARY:
            allowed = {"exact": missing == extra == 0, "subset": extra == 0, "superset": missing == 0}
            return float(perfect and allowed[self.mode])
        if not self.jaccard:  # partial, share of the expected keys
            return sum(shared.values()) / wanted if wanted else 1.0
        if perfect and missing == extra == 0:
            return 1.0
        return sum(shared.values()) / (len(shared) + missing + extra)

    def _value(self, actual: Any, expected: Any, path: str) -> tuple[float, str]:
        """One key's score in [0, 1] and the matcher that gave it."""
        field = self.fields.get(path)
        if field is not None:
            return field.match(actual, expected), field.label
        both_objects = isinstance(actual, dict) and isinstance(expected, dict)
        if both_objects and (path in self.nested or self.mode == "partial" and self.jaccard):
            return self._nested(actual, expected, path), self._label
        equal = loosely_equal(actual, expected) if self.loose else actual == expected
        return float(equal), self._label

    def _nested(self, actual: dict[str, Any], expected: dict[str, Any], path: str) -> float:
        """Two objects key by key: all or nothing, or Jaccard-style under ``jaccard``."""
        scores = {
            key: self._value(actual[key], expected[key], f"{path}.{key}")[0]
            for key in actual.keys() & expected.keys()
        }
        union = len(actual.keys() | expected.keys())
        if all(s == 1.0 for s in scores.values()) and len(scores) == union:
            return 1.0
        if self.mode == "partial" and self.jaccard:
            return sum(scores.values()) / union
        return 0.0


def _jaccard(actual: Mapping[str, Any], expected: Mapping[str, Any]) -> float:
    """1.0 for equal objects, else the shared keys with equal values over all keys, shared
    objects scored the same way (DeepEval's argument score)."""
    if actual == expected:
        return 1.0
    total = 0.0
    for key in actual.keys() & expected.keys():
        a, e = actual[key], expected[key]
        if isinstance(a, dict) and isinstance(e, dict):
            total += _jaccard(a, e)
        elif a == e:
            total += 1.0
    return total / len(actual.keys() | expected.keys())
