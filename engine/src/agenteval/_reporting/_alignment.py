"""The aligned trajectory: expected tool calls against actual ones, row by row.

``align_trajectory(expected, actual)`` pairs calls in order (a longest-common-subsequence
alignment on tool names that prefers, among equally long alignments, the one pairing the
most calls with identical arguments) and returns one ``TrajectoryRow`` per call:

* ``match`` — same tool, same arguments;
* ``args_differ`` — same tool, different arguments (``arg_diffs`` lists them per key);
* ``missing`` — expected, never called (in this position);
* ``extra`` — called, not expected.

Criteria that align calls themselves (``tool_trajectory_match_v2``, ``tool_parameter_match``)
put their own rows, in this same JSON shape, in each invocation's ``details["alignment"]``;
``rows_from_details`` reads them back. Their rows add ``similarity`` (the pair's score in
[0, 1]), per-key ``matcher`` and ``score``, the kind ``equivalent`` (unequal values a matcher
accepted) and, for a whole-conversation alignment, ``expected_turn`` / ``actual_turn``.

Every expected and every actual call appears in exactly one row, in the order of both lists.
The alignment is deterministic and symmetric: swapping the sides gives the same rows with
``missing`` and ``extra`` (and the two sides of each diff) swapped. Cost: O(len(expected) ×
len(actual)) time and memory.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

__all__ = ["ArgDiff", "TrajectoryRow", "align_trajectory", "diff_text", "row_text", "rows_from_details"]

_SWAP = {"missing": "extra", "extra": "missing", "match": "match", "args_differ": "args_differ"}
_OPS = frozenset(_SWAP)


@dataclass(frozen=True)
class ArgDiff:
    """One argument that differs: ``kind`` is ``changed`` (both have the key), ``missing``
    (only the expected call has it), ``extra`` (only the actual call has it) or
    ``equivalent`` (unequal values that ``matcher`` accepted). ``matcher`` and ``score``
    (in [0, 1]) are set by criteria that compare arguments key by key."""

    key: str
    kind: str
    expected: Any = None
    actual: Any = None
    matcher: Optional[str] = None
    score: Optional[float] = None

    def to_json(self) -> dict[str, Any]:
        out = {"key": self.key, "kind": self.kind, "expected": self.expected, "actual": self.actual}
        if self.matcher is not None:
            out["matcher"] = self.matcher
        if self.score is not None:
            out["score"] = self.score
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ArgDiff:
        score = data.get("score")
        matcher = data.get("matcher")
        return cls(
            key=str(data.get("key", "")),
            kind=str(data.get("kind", "changed")),
            expected=data.get("expected"),
            actual=data.get("actual"),
            matcher=matcher if isinstance(matcher, str) else None,
            score=float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None,
        )


@dataclass(frozen=True)
class TrajectoryRow:
    """One row of the aligned trajectory. ``expected_index`` / ``actual_index`` are the
    call's position in its list (``None`` on the side that has no call in this row)."""

    op: str
    name: str
    expected_index: Optional[int]
    actual_index: Optional[int]
    expected_args: Optional[dict[str, Any]] = None
    actual_args: Optional[dict[str, Any]] = None
    arg_diffs: tuple[ArgDiff, ...] = field(default_factory=tuple)
    #: the pair's similarity in [0, 1] (``None``: not scored, or not a pair).
    similarity: Optional[float] = None
    #: the turns of the calls, for an alignment over a whole conversation.
    expected_turn: Optional[int] = None
    actual_turn: Optional[int] = None

    def to_json(self) -> dict[str, Any]:
        out = {
            "op": self.op,
            "name": self.name,
            "expected_index": self.expected_index,
            "actual_index": self.actual_index,
            "expected_args": self.expected_args,
            "actual_args": self.actual_args,
            "arg_diffs": [d.to_json() for d in self.arg_diffs],
        }
        for key in ("similarity", "expected_turn", "actual_turn"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Optional[TrajectoryRow]:
        """A row from its JSON form; ``None`` when ``data`` is not one."""
        op = data.get("op") if isinstance(data, Mapping) else None
        if type(op) is not str or op not in _OPS:  # (a list is no op, and no key of a set)
            return None

        def number(key: str, kind: type = float) -> Any:
            value = data.get(key)
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            return kind(value) if ok else None

        diffs = data.get("arg_diffs")
        return cls(
            op=str(data["op"]),
            name=str(data.get("name", "")),
            expected_index=number("expected_index", int),
            actual_index=number("actual_index", int),
            expected_args=_object(data.get("expected_args")),
            actual_args=_object(data.get("actual_args")),
            arg_diffs=tuple(ArgDiff.from_json(d) for d in diffs if isinstance(d, Mapping))
            if isinstance(diffs, list)
            else (),
            similarity=number("similarity"),
            expected_turn=number("expected_turn", int),
            actual_turn=number("actual_turn", int),
        )

    def swapped(self) -> TrajectoryRow:
        """The same row seen from the other side (expected and actual exchanged)."""
        return TrajectoryRow(
            op=_SWAP[self.op],
            name=self.name,
            expected_index=self.actual_index,
            actual_index=self.expected_index,
            expected_args=self.actual_args,
            actual_args=self.expected_args,
            arg_diffs=tuple(
                ArgDiff(d.key, _SWAP.get(d.kind, d.kind), d.actual, d.expected) for d in self.arg_diffs
            ),
        )


def _object(value: Any) -> Optional[dict[str, Any]]:
    return dict(value) if isinstance(value, Mapping) else None


def rows_from_details(details: Mapping[str, Any]) -> Optional[list[TrajectoryRow]]:
    """The aligned trajectory a criterion put in ``details["alignment"]``, else ``None``
    (rows that are not trajectory rows are left out)."""
    raw = details.get("alignment") if isinstance(details, Mapping) else None
    if not isinstance(raw, list):
        return None
    rows = [TrajectoryRow.from_json(item) for item in raw]
    return [row for row in rows if row is not None]


_MARKS = {"match": "=", "args_differ": "~", "missing": "-", "extra": "+"}
_VALUE_LIMIT = 60


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        text = "…"
    return text if len(text) <= _VALUE_LIMIT else text[: _VALUE_LIMIT - 1] + "…"


def diff_text(diff: ArgDiff, value: Callable[[Any], str] = _shown, text: Callable[[str], str] = str) -> str:
    """One argument difference in words (``limit: expected 5, got 10 [exact]``); ``value``
    writes a value (default: JSON, cut to 60 characters), ``text`` the key and the matcher
    (default: as they are; a report makes them safe for its format through these two)."""
    key = text(diff.key)
    if diff.kind == "missing":
        return f"{key} missing (expected {value(diff.expected)})"
    if diff.kind == "extra":
        return f"{key} not expected ({value(diff.actual)})"
    verb = "accepted" if diff.kind == "equivalent" else "expected"
    by = f" [{text(diff.matcher)}]" if diff.matcher else ""
    return f"{key}: {verb} {value(diff.expected)}, got {value(diff.actual)}{by}"


def row_text(row: TrajectoryRow) -> str:
    """One row as a line of plain text (not escaped: the caller makes it safe to show)::

    = book(id=1)
    ~ search(limit=10, query="Paris") · 0.5 · limit: expected 5, got 10 [exact]
    - missing mail() (expected #3)
    + extra get_weather(city="Oslo") (actual #2)
    """
    side = row.expected_args if row.op == "missing" else row.actual_args
    args = ", ".join(f"{k}={_shown(v)}" for k, v in (side or {}).items())
    text = f"{_MARKS[row.op]} {row.name}({args})"
    if row.op == "missing":
        text = f"- missing {text[2:]} (expected #{(row.expected_index or 0) + 1}{_turn(row.expected_turn)})"
    elif row.op == "extra":
        text = f"+ extra {text[2:]} (actual #{(row.actual_index or 0) + 1}{_turn(row.actual_turn)})"
    elif row.similarity is not None and row.similarity < 1.0:
        text += f" · {row.similarity:.3g}"
    if row.arg_diffs:
        text += " · " + "; ".join(diff_text(d) for d in row.arg_diffs)
    return text


def _turn(turn: Optional[int]) -> str:
    return f", turn {turn + 1}" if turn is not None else ""


def _call(item: Any) -> tuple[str, dict[str, Any]]:
    """``(name, args)`` of a ``FunctionCall``-like object or a ``{"name", "args"}`` mapping."""
    if isinstance(item, Mapping):
        name, args = item.get("name"), item.get("args")
    else:
        name, args = getattr(item, "name", None), getattr(item, "args", None)
    return str(name or ""), dict(args or {})


def _key(call: tuple[str, dict[str, Any]]) -> str:
    return call[0] + "\x00" + json.dumps(call[1], sort_keys=True, default=str)


def _diffs(expected: dict[str, Any], actual: dict[str, Any]) -> tuple[ArgDiff, ...]:
    diffs = []
    for key in sorted(set(expected) | set(actual)):
        if key not in actual:
            diffs.append(ArgDiff(key, "missing", expected[key], None))
        elif key not in expected:
            diffs.append(ArgDiff(key, "extra", None, actual[key]))
        elif expected[key] != actual[key]:
            diffs.append(ArgDiff(key, "changed", expected[key], actual[key]))
    return tuple(diffs)


def align_trajectory(
    expected_tool_calls: Sequence[Any], actual_tool_calls: Sequence[Any]
) -> list[TrajectoryRow]:
    """The rows aligning ``expected_tool_calls`` with ``actual_tool_calls`` (``FunctionCall``
    objects or ``{"name", "args"}`` mappings; ``None`` args count as ``{}``)."""
    exp = [_call(c) for c in expected_tool_calls]
    act = [_call(c) for c in actual_tool_calls]
    n, m = len(exp), len(act)
    # Weight of a pair: same name scores ``big`` (+1 when the arguments are equal too), so the
    # number of name matches is maximised first and identical arguments break ties.
    big = min(n, m) + 1
    exp_keys = [_key(c) for c in exp]
    act_keys = [_key(c) for c in act]
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = best[i], best[i + 1]
        name = exp[i][0]
        for j in range(m - 1, -1, -1):
            value = below[j] if below[j] > row[j + 1] else row[j + 1]
            if act[j][0] == name:
                pair = big + (exp_keys[i] == act_keys[j]) + below[j + 1]
                if pair > value:
                    value = pair
            row[j] = value
    rows: list[TrajectoryRow] = []
    i = j = 0
    while i < n or j < m:
        if i < n and j < m and exp[i][0] == act[j][0]:
            pair = big + (exp_keys[i] == act_keys[j]) + best[i + 1][j + 1]
            if pair == best[i][j]:
                (name, want), (_, got) = exp[i], act[j]
                diffs = _diffs(want, got)
                op = "args_differ" if diffs or exp_keys[i] != act_keys[j] else "match"
                rows.append(TrajectoryRow(op, name, i, j, want, got, diffs))
                i += 1
                j += 1
                continue
        skip_expected: bool
        if i >= n:
            skip_expected = False
        elif j >= m:
            skip_expected = True
        elif best[i + 1][j] != best[i][j + 1]:
            skip_expected = best[i + 1][j] > best[i][j + 1]
        else:  # a tie: decided by the calls themselves, never by which side they are on
            skip_expected = exp_keys[i] <= act_keys[j]
            if exp_keys[i] == act_keys[j]:
                skip_expected = True
        if skip_expected:
            rows.append(TrajectoryRow("missing", exp[i][0], i, None, exp[i][1], None))
            i += 1
        else:
            rows.append(TrajectoryRow("extra", act[j][0], None, j, None, act[j][1]))
            j += 1
    return rows
