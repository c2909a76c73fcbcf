"""Compact, readable renderings of tool calls for ``reason`` strings.

``get_weather(city='Paris', days=3)``: values use Python's ``repr`` so that the
distinctions the matchers make are visible (``'3'`` versus ``3``, ``True`` versus ``1``).
Long values and long lists are shortened; these strings are for people, never parsed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from agenteval.models import FunctionCall

__all__ = ["args_difference", "format_call", "format_calls", "shorten"]

_MAX_VALUE = 60
_MAX_CALL = 160
_MAX_LISTED = 5
_MAX_DIFFS = 3


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(limit - 1, 1)] + "…"


def _value(value: Any) -> str:
    return shorten(repr(value), _MAX_VALUE)


def _key(key: str) -> str:
    return key if key.isidentifier() else repr(key)


def format_call(call: FunctionCall, *, with_args: bool = True) -> str:
    """``name(k=v, ...)``; just ``name`` when ``with_args`` is False.

    A call without an ``args`` key renders like one with ``{}``; ``args_difference``
    tells the two apart when that is what made a comparison fail.
    """
    name = call.name if call.name is not None else "<unnamed>"
    if not with_args:
        return name
    inner = ", ".join(f"{_key(k)}={_value(v)}" for k, v in (call.args or {}).items())
    return shorten(f"{name}({inner})", _MAX_CALL)


def format_calls(
    calls: Sequence[FunctionCall], *, with_args: bool = True, numbered: Optional[Sequence[int]] = None
) -> str:
    """Up to five calls, comma-separated, then ``... and N more``.

    ``numbered`` gives 0-based positions to show as ``#n`` after each call.
    """
    if not calls:
        return "(none)"
    shown = []
    for i, call in enumerate(calls[:_MAX_LISTED]):
        text = format_call(call, with_args=with_args)
        if numbered is not None:
            text += f" (#{numbered[i] + 1})"
        shown.append(text)
    more = len(calls) - _MAX_LISTED
    return ", ".join(shown) + (f", ... and {more} more" if more > 0 else "")


def _typed(value: Any) -> str:
    return f"{_value(value)} ({type(value).__name__})"


def args_difference(expected: Optional[dict[str, Any]], actual: Optional[dict[str, Any]]) -> str:
    """Why two ``args`` values are unequal, in a few words (assumes they are unequal)."""
    if expected is None or actual is None:

        def side(args: Optional[dict[str, Any]]) -> str:
            return "no 'args' key" if args is None else _value(args)

        note = "; a missing 'args' never equals {}" if {} in (expected, actual) else ""
        return f"expected {side(expected)}, got {side(actual)}{note}"
    diffs = []
    for key in expected.keys() - actual.keys():
        diffs.append(f"missing {_key(key)}={_value(expected[key])}")
    for key in actual.keys() - expected.keys():
        diffs.append(f"unexpected {_key(key)}={_value(actual[key])}")
    for key in expected.keys() & actual.keys():
        want, got = expected[key], actual[key]
        if want != got:
            if type(want) is not type(got):
                diffs.append(f"{_key(key)}: expected {_typed(want)}, got {_typed(got)}")
            else:
                diffs.append(f"{_key(key)}: expected {_value(want)}, got {_value(got)}")
    diffs.sort()
    more = len(diffs) - _MAX_DIFFS
    text = "; ".join(diffs[:_MAX_DIFFS]) + (f"; ... {more} more" if more > 0 else "")
    return text or "arguments differ"
