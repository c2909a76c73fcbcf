"""Tool-call trajectory matching with ADK 2.13's semantics, plus failure explanations.

Two calls are equal when their names are equal and, unless ``ignore_args``, their
``args`` are equal under plain Python equality of the parsed JSON: dict key order is
irrelevant, list order matters, ``3 == 3.0`` and ``True == 1`` hold, ``"3" != 3``,
and a missing ``args`` (``None``) differs from ``{}``. The call ``id`` is never compared.

Match types (ADK's ``ToolTrajectoryCriterion.MatchType``):

* ``EXACT``: same length, pairwise equal in order. An empty expected list passes
  only when no call was made.
* ``IN_ORDER``: the expected calls form a subsequence of the actual calls, found by
  one greedy left-to-right pass (each actual call satisfies at most one expected call).
  An empty expected list always passes.
* ``ANY_ORDER``: multiset containment; each expected call takes the first still
  unused equal actual call. An empty expected list always passes.

Each matcher returns a :class:`MatchResult` whose ``reason`` explains a failure: the
first mismatch position, the expected call that is missing, and a hint such as a call
with the same name but different arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Optional, TypeVar

from agenteval.models import FunctionCall

from ._format import args_difference, format_call, format_calls

__all__ = [
    "MatchResult",
    "MatchType",
    "calls_equal",
    "match_trajectory",
    "pair_calls",
    "parse_match_type",
]


class MatchType(str, Enum):
    """How an actual trajectory is compared with the expected one."""

    EXACT = "EXACT"
    IN_ORDER = "IN_ORDER"
    ANY_ORDER = "ANY_ORDER"


# ADK serialises its MatchType enum as these integers.
_BY_NUMBER = {0: MatchType.EXACT, 1: MatchType.IN_ORDER, 2: MatchType.ANY_ORDER}


_Choice = TypeVar("_Choice", bound=Enum)


def parse_match_type(value: Any, choices: type[_Choice] = MatchType) -> _Choice:  # type: ignore[assignment]
    """Read ``match_type`` as ADK spells it, as one of ``choices`` (an enum whose members
    include ADK's three).

    Strings are stripped and upper-cased, with ``-`` and spaces read as ``_``
    (``"in-order"``, ``"Any Order"``); the integers 0, 1 and 2 are ADK's enum values.
    Anything else raises ``ValueError`` naming the valid values.
    """
    if isinstance(value, choices):
        return value
    if isinstance(value, str):
        key = value.strip().upper().replace("-", "_").replace(" ", "_")
        if key in choices.__members__:
            return choices[key]
    elif isinstance(value, int) and not isinstance(value, bool) and value in _BY_NUMBER:
        return choices[_BY_NUMBER[value].name]
    names = ", ".join(repr(name) for name in choices.__members__)
    raise ValueError(
        f"invalid match_type {value!r}: expected one of {names} "
        "(case-insensitive, '-' or ' ' may replace '_', e.g. 'in-order') "
        "or ADK's numbers 0 (EXACT), 1 (IN_ORDER), 2 (ANY_ORDER)"
    )


@dataclass(frozen=True)
class MatchResult:
    """Whether a trajectory matched and, when it did not, why."""

    passed: bool
    reason: Optional[str] = None


_PASS = MatchResult(True)


def calls_equal(actual: FunctionCall, expected: FunctionCall, *, ignore_args: bool) -> bool:
    """ADK's call equality: same name and (``ignore_args`` or equal ``args``)."""
    return actual.name == expected.name and (ignore_args or actual.args == expected.args)


def pair_calls(
    actual: Sequence[FunctionCall], expected: Sequence[FunctionCall], *, ignore_args: bool
) -> list[Optional[int]]:
    """Multiset matching: for each expected call, the index of the actual call it used.

    Each expected call, in order, takes the first equal actual call not yet used
    (``None`` when there is none). Call equality is an equivalence relation, so this
    greedy pairing is a maximum one, and it is exactly ADK's ``ANY_ORDER`` check.
    """
    used = [False] * len(actual)
    pairing: list[Optional[int]] = []
    for want in expected:
        found = None
        for j, got in enumerate(actual):
            if not used[j] and calls_equal(got, want, ignore_args=ignore_args):
                used[j] = True
                found = j
                break
        pairing.append(found)
    return pairing


def match_trajectory(
    match_type: MatchType,
    actual: Sequence[FunctionCall],
    expected: Sequence[FunctionCall],
    *,
    ignore_args: bool,
) -> MatchResult:
    """Compare two trajectories with the given match type."""
    if match_type is MatchType.EXACT:
        return _exact(actual, expected, ignore_args)
    if match_type is MatchType.IN_ORDER:
        return _in_order(actual, expected, ignore_args)
    if match_type is MatchType.ANY_ORDER:
        return _any_order(actual, expected, ignore_args)
    raise ValueError(f"unsupported match type {match_type!r}")  # pragma: no cover


class _Describer:
    """Renders calls for one comparison (names only when arguments are ignored)."""

    def __init__(self, actual: Sequence[FunctionCall], expected: Sequence[FunctionCall], ignore_args: bool):
        self.actual = actual
        self.expected = expected
        self.ignore_args = ignore_args

    def call(self, call: FunctionCall) -> str:
        return format_call(call, with_args=not self.ignore_args)

    def calls(self, calls: Sequence[FunctionCall], numbered: Optional[Sequence[int]] = None) -> str:
        return format_calls(calls, with_args=not self.ignore_args, numbered=numbered)

    def equal(self, got: FunctionCall, want: FunctionCall) -> bool:
        return calls_equal(got, want, ignore_args=self.ignore_args)

    def nothing_called(self) -> MatchResult:
        n = len(self.expected)
        return MatchResult(False, f"no tool calls were made; expected {n}: {self.calls(self.expected)}")

    def hint(self, want: FunctionCall, upto: int, candidates: Sequence[int]) -> str:
        """Why ``want`` found no partner: a shortage of equal calls, a same-name call
        with other arguments, or no call of that tool at all.

        ``upto``: how many expected calls (from the start) compete for the same
        partners; ``candidates``: indices of actual calls that were still available.
        """
        wanted = sum(1 for e in self.expected[:upto] if self.equal(e, want))
        made = sum(1 for a in self.actual if self.equal(a, want))
        if made:
            return f"{self.call(want)} is expected {_times(wanted)} but was called {_times(made)}"
        if not self.ignore_args:
            for j in candidates:
                got = self.actual[j]
                if got.name == want.name:
                    diff = args_difference(want.args, got.args)
                    return f"closest is actual call #{j + 1} {self.call(got)}, arguments differ: {diff}"
        return f"no call to {want.name!r} was made"


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def _exact(
    actual: Sequence[FunctionCall], expected: Sequence[FunctionCall], ignore_args: bool
) -> MatchResult:
    d = _Describer(actual, expected, ignore_args)
    n, m = len(expected), len(actual)
    for i, (got, want) in enumerate(zip(actual, expected, strict=False)):  # lengths may differ
        if not d.equal(got, want):
            reason = f"call #{i + 1} differs: expected {d.call(want)}, got {d.call(got)}"
            if got.name == want.name and not ignore_args:
                reason += f" (arguments differ: {args_difference(want.args, got.args)})"
            if n != m:
                reason += f"; also {m} calls were made where {n} were expected"
            return MatchResult(False, reason)
    if n == m:
        return _PASS
    if m > n:
        extra = d.calls(actual[n:], numbered=range(n, m))
        if n == 0:
            return MatchResult(False, f"expected no tool calls (EXACT), got {m}: {extra}")
        return MatchResult(False, f"the {n} expected calls were made, then {m - n} unexpected extra: {extra}")
    if m == 0:
        return d.nothing_called()
    missing = d.calls(expected[m:], numbered=range(m, n))
    return MatchResult(False, f"the first {m} of {n} expected calls were made; missing: {missing}")


def _in_order(
    actual: Sequence[FunctionCall], expected: Sequence[FunctionCall], ignore_args: bool
) -> MatchResult:
    if not expected:
        return _PASS
    d = _Describer(actual, expected, ignore_args)
    if not actual:
        return d.nothing_called()
    k, last, used = 0, -1, set()
    for j, got in enumerate(actual):
        if d.equal(got, expected[k]):
            used.add(j)
            k, last = k + 1, j
            if k == len(expected):
                return _PASS
    want = expected[k]
    where = "" if k == 0 else f" after {d.call(expected[k - 1])} (actual call #{last + 1})"
    reason = (
        f"expected call #{k + 1} {d.call(want)} was not found in order{where}; "
        f"{k} of {len(expected)} expected calls matched in order"
    )
    early = [j for j in range(last + 1) if j not in used and d.equal(actual[j], want)]
    if early:
        reason += f"; it was called earlier, at actual call #{early[0] + 1} (out of order)"
    else:
        reason += "; " + d.hint(want, k + 1, range(len(actual)))
    return MatchResult(False, reason)


def _any_order(
    actual: Sequence[FunctionCall], expected: Sequence[FunctionCall], ignore_args: bool
) -> MatchResult:
    if not expected:
        return _PASS
    d = _Describer(actual, expected, ignore_args)
    if not actual:
        return d.nothing_called()
    pairing = pair_calls(actual, expected, ignore_args=ignore_args)
    missing = [i for i, j in enumerate(pairing) if j is None]
    if not missing:
        return _PASS
    unused = sorted(set(range(len(actual))) - {j for j in pairing if j is not None})
    first = missing[0]
    reason = (
        f"{len(missing)} of {len(expected)} expected calls not found: "
        f"{d.calls([expected[i] for i in missing], numbered=missing)}"
    )
    prefix = f"; expected #{first + 1}: " if len(missing) > 1 else "; "
    return MatchResult(False, reason + prefix + d.hint(expected[first], len(expected), unused))
