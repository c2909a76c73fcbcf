"""Finding, with line:column and JSON path, what JSON cannot carry faithfully.

Run only once a parse has flagged a problem (or the text has a surrogate escape), on
text the standard parser has already accepted: a duplicate key, ``NaN`` / ``Infinity``,
a number no 64-bit float holds, a lone UTF-16 surrogate escape.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Optional, Union

from ._paths import json_path

__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "SURROGATE_ESCAPE", "JsonProblem", "SpeltTwice", "find_problems"]

#: ``(path of an object, a key, the keys before it) -> the other spelling of that key
#: among them``, when the two are one field of a model (``evalId`` beside ``eval_id``).
SpeltTwice = Callable[[Sequence[Union[str, int]], str, Collection[str]], Optional[str]]

#: Levels of nesting a file may have: eval files need about 15 (plus the arguments'
#: own); pydantic's JSON parser stops at about 200 and its encoder at about 255, so
#: what loads can always be written back.
MAX_DEPTH = 200
#: Digits a JSON integer may have: a 64-bit float holds at most about 1.8e308.
MAX_INT_DIGITS = 308
#: Any high or low surrogate escape; a pair is fine, a lone one is not a character.
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")

_TOKEN = re.compile(
    r"""[ \t\n\r]*(?:
        (?P<string>"(?:[^"\\]|\\.)*")
      | (?P<constant>NaN|-?Infinity)
      | (?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
      | (?P<word>true|false|null)
      | (?P<mark>[{}\[\]:,])
    )""",
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class JsonProblem:
    """One problem: where (``line``, ``column``, 1-based; ``path``) and what, with the fix."""

    line: int
    column: int
    path: str
    message: str

    def __str__(self) -> str:
        path = self.path if len(self.path) <= 160 else f"{self.path[:100]}…{self.path[-50:]}"
        return f"{self.line}:{self.column}: {path}: {self.message}"


class _Frame:
    """An open object (``keys`` seen, with where) or array (``index``) on the way down."""

    __slots__ = ("is_object", "keys", "key", "index", "expect_key")

    def __init__(self, is_object: bool) -> None:
        self.is_object = is_object
        self.keys: dict[str, int] = {}  # key -> offset of its first spelling
        self.key: Union[str, None] = None
        self.index = 0
        self.expect_key = is_object


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _number_problem(literal: str) -> Union[str, None]:
    if not any(mark in literal for mark in ".eE"):
        digits = len(literal.lstrip("-"))
        if digits <= MAX_INT_DIGITS:
            return None
        return (
            f"a {digits:,}-digit integer: a JSON number must fit a 64-bit float (at most "
            f"{MAX_INT_DIGITS} digits); write a smaller number, or a string if it is an identifier"
        )
    if not math.isinf(float(literal)):
        return None
    shown = literal if len(literal) <= 20 else literal[:17] + "..."
    return f"{shown} is beyond a 64-bit float (at most about 1.8e308); write a smaller number"


def _string_problem(token: str) -> Union[str, None]:
    if not SURROGATE_ESCAPE.search(token):
        return None
    try:
        json.loads(token).encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(exc.object[exc.start])
        return (
            f"\\u{code:04x} is half of a UTF-16 surrogate pair without its other half, not a "
            "character; remove it or complete the pair"
        )
    return None


def find_problems(
    text: str, spelt_twice: Optional[SpeltTwice] = None, *, limit: int = 10
) -> tuple[list[JsonProblem], int]:
    """The first ``limit`` problems in ``text`` (valid JSON, ``NaN`` and ``Infinity``
    allowed), in document order, and how many there are in all; ``([], 0)`` when there is
    none (a surrogate escape that is half of a pair, or ``\\ud800`` spelt with an escaped
    backslash, is fine). Linear in the size of the text."""
    found: list[tuple[int, list[Union[str, int]], str, Optional[int]]] = []
    total = 0
    stack: list[_Frame] = []
    position = 0
    end = len(text)

    def here() -> list[Union[str, int]]:
        return [
            step for frame in stack if (step := frame.key if frame.is_object else frame.index) is not None
        ]

    def add(offset: int, message: str, earlier: Optional[int] = None) -> None:
        nonlocal total
        total += 1
        if len(found) < limit:
            found.append((offset, here(), message, earlier))

    while position < end:
        match = _TOKEN.match(text, position)
        if match is None:
            break  # trailing whitespace
        position = match.end()
        kind = match.lastgroup
        start = match.start(kind) if kind else position
        token = match.group(kind) if kind else ""
        top = stack[-1] if stack else None
        if kind == "mark":
            if token in "{[":
                stack.append(_Frame(token == "{"))
                if len(stack) == MAX_DEPTH + 1:
                    add(
                        start,
                        f"nested more than {MAX_DEPTH} levels deep; an eval file or config is nested far "
                        "less (flatten this value, or pass it as a JSON string)",
                    )
            elif token in "}]":
                stack.pop()
            elif token == "," and top is not None:
                if top.is_object:
                    top.expect_key = True
                else:
                    top.index += 1
            continue
        if kind == "string" and top is not None and top.is_object and top.expect_key:
            key = json.loads(token) if "\\" in token else token[1:-1]
            top.expect_key = False
            top.key = key
            trouble = _string_problem(token) if "\\u" in token else None
            if trouble:
                add(start, f"the key: {trouble}")
            other = spelt_twice(here()[:-1], key, top.keys) if spelt_twice else None
            if other is not None:
                add(
                    start,
                    f"{key!r} is given twice, as {other!r} (at {{at}}) and {key!r}; keep one spelling",
                    top.keys[other],
                )
            if key in top.keys:
                add(
                    start,
                    f"duplicate key {key!r} (first at {{at}}); JSON keys must be unique (ADK silently "
                    "keeps the last value): keep one",
                    top.keys[key],
                )
            else:
                top.keys[key] = start
            continue
        if kind == "string":
            trouble = _string_problem(token) if "\\u" in token else None
        elif kind == "constant":
            trouble = f"{token} is not JSON (no JSON number is infinite or NaN); write a number or null"
        elif kind == "number":
            trouble = _number_problem(token)
        else:
            trouble = None
        if trouble:
            add(start, trouble)
    return [_placed(text, *entry) for entry in found], total


def _placed(
    text: str, offset: int, loc: list[Union[str, int]], message: str, earlier: Optional[int]
) -> JsonProblem:
    if earlier is not None:
        line, column = _line_column(text, earlier)
        message = message.replace("{at}", f"{line}:{column}")
    return JsonProblem(*_line_column(text, offset), json_path(loc), message)
