"""Checking a large JSON object element by element, never decoding its whole text.

``check_elements`` finds the byte span of each element of a top-level object's array
member (an eval set's ``eval_cases``) and checks each element as ``parse_json`` checks a
whole document (syntax, duplicate keys, ``NaN`` / ``Infinity``, numbers no 64-bit float
holds, lone surrogate escapes, a field in both spellings), decoding a window of the bytes
at a time: reading a file then costs its bytes, not its bytes, its text and what the
checker builds on top. The object around the array (its other members) is checked the
same way, as one small document.

It answers only for a document with no problem; anything else (any problem, a shape it
does not walk) gives ``None``, and the caller reads the file whole, whose error gives
every detail (line:column, JSON path, fix).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from itertools import chain
from json.decoder import scanstring  # type: ignore[attr-defined]  # CPython has it; typeshed leaves it out
from typing import Any, Optional, Union

from pydantic import BaseModel

from ..errors import DataError
from ._json import parse_json, problem_hooks
from ._json_scan import SURROGATE_ESCAPE, SpeltTwice, find_problems
from ._spellings import camel_spellings, spelt_twice

__all__ = ["WINDOW_BYTES", "check_elements"]

#: Bytes decoded at a time; a window grows for an element larger than it.
WINDOW_BYTES = 1 << 20

_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _skip(text: str, position: int) -> int:
    return _WHITESPACE.match(text, position).end()  # type: ignore[union-attr]  # matches ""


class _Stop(Exception):
    """The document is not as expected, or has a problem: the caller reads it whole."""


class _Cut(Exception):
    """The window ends inside an element."""


class _Window:
    """``data[start:end]`` decoded, ``end`` on a character boundary at most ``size`` bytes
    on; maps the text's character offsets back to offsets in ``data``."""

    def __init__(self, data: bytes, start: int, size: int) -> None:
        end = min(len(data), start + size)
        while end < len(data) and data[end] & 0xC0 == 0x80:  # a UTF-8 continuation byte
            end -= 1
        self.start, self.end, self.at_end = start, end, end == len(data)
        try:
            self.text = data[start:end].decode("utf-8")
        except UnicodeDecodeError:
            raise _Stop from None
        self._ascii = len(self.text) == end - start
        self._char = self._byte = 0

    def byte(self, char: int) -> int:
        """The offset in ``data`` of the text's character ``char`` (asked in increasing order)."""
        if self._ascii:
            return self.start + char
        self._byte += len(self.text[self._char : char].encode("utf-8"))
        self._char = char
        return self.start + self._byte


def check_elements(
    data: bytes,
    *,
    source: str,
    what: str,
    member: str,
    model: Optional[type[BaseModel]] = None,
    window: int = WINDOW_BYTES,
) -> Optional[list[tuple[int, int]]]:
    """The byte span of each element of the top-level ``member`` array of ``data``, every
    element and the rest of the document checked as ``parse_json(data, keep=False,
    model=model)`` checks it; ``None`` when the document is not an object whose ``member``
    is a non-empty array, or has any problem (see the module docstring). ``window``: bytes
    decoded at a time."""
    try:
        return _Walk(data, member, model, max(1, window)).spans(source, what)
    except (_Stop, ValueError, IndexError, RecursionError, DataError):
        return None


class _Walk:
    def __init__(self, data: bytes, member: str, model: Optional[type[BaseModel]], window: int) -> None:
        self.data, self.member, self.model, self.window = data, member, model, window
        flags = self._flags = [False]  # a hook that held this walk would keep the bytes in a cycle

        def damage() -> None:
            flags[0] = True

        hooks = problem_hooks(model, damage)
        #: the pairs of each object decoded since the last element, checked in bulk for what
        #: ``problem_hooks``' object hook finds (``_objects_damaged``): the decoder calls a
        #: list's ``append``, not a Python function per object (about a tenth of the check)
        self.objects: list[list[tuple[str, Any]]] = []
        hooks["object_pairs_hook"] = self.objects.append
        self.decoder = json.JSONDecoder(**hooks)
        self.camel = camel_spellings() if model is not None else {}

    @property
    def damaged(self) -> bool:
        return self._flags[0]

    @damaged.setter
    def damaged(self, value: bool) -> None:
        self._flags[0] = value

    def spans(self, source: str, what: str) -> list[tuple[int, int]]:
        opening = self._array_start()
        self.damaged = False  # what comes before is checked again with the rest
        self.objects.clear()
        spans = self._elements(opening + 1)
        rest = self.data[: spans[0][0]] + self.data[spans[-1][1] :]
        parse_json(rest, source=source, what=what, keep=False, model=self.model)
        return spans

    def _array_start(self) -> int:
        """The byte offset of the ``[`` that opens the ``member`` array; the first window
        grows until it holds every member before it."""
        size = self.window
        while True:
            window = _Window(self.data, 0, size)
            try:
                return window.byte(self._walk_to_member(window.text, window.at_end))
            except (ValueError, IndexError, _Cut):
                if window.at_end:
                    raise _Stop from None
                size *= 2

    def _walk_to_member(self, text: str, at_end: bool) -> int:
        position = _skip(text, 0)
        if text[position] != "{":
            raise _Stop
        position = _skip(text, position + 1)
        while True:
            if text[position] != '"':
                raise _Stop
            key, position = scanstring(text, position + 1, True)
            position = _skip(text, position)
            if text[position] != ":":
                raise _Stop
            position = _skip(text, position + 1)
            if key == self.member:
                if text[position] != "[":
                    raise _Stop
                return position
            _, position = self.decoder.raw_decode(text, position)
            position = _skip(text, position)
            if text[position] != ",":
                raise _Stop if at_end else _Cut
            position = _skip(text, position + 1)

    def _elements(self, start: int) -> list[tuple[int, int]]:
        """Each element's span, from ``start`` (just inside the array) to its ``]``."""
        spans: list[tuple[int, int]] = []
        size = self.window
        window = _Window(self.data, start, size)
        position = _skip(window.text, 0)
        if window.text[position : position + 1] == "]":
            raise _Stop  # no element: the whole path reads it
        while True:
            try:
                _, end = self.decoder.raw_decode(window.text, position)
                after = _skip(window.text, end)
                mark = window.text[after]
                if mark not in ",]" and not window.at_end:
                    raise _Cut  # a number the window cut short ("0." of "0.5")
            except (ValueError, IndexError, _Cut):
                if window.at_end:
                    raise _Stop from None
                # the element runs past the window: decode again from it, larger if it began it
                first = window.byte(position)
                size = 2 * size if first == window.start else self.window
                self.damaged = False
                self.objects.clear()
                window = _Window(self.data, first, size)
                position = _skip(window.text, 0)
                continue
            element = window.text[position:end]
            if self._objects_damaged() or self.damaged or SURROGATE_ESCAPE.search(element):
                self._check_alone(element, len(spans))
            spans.append((window.byte(position), window.byte(end)))
            if mark == "]":
                return spans
            if mark != ",":
                raise _Stop
            position = _skip(window.text, after + 1)

    def _objects_damaged(self) -> bool:
        """Whether an object decoded since the last element holds a key twice or, with a
        model, a field of the eval models in both spellings (as ``problem_hooks`` flags
        them); the objects are let go."""
        objects = self.objects
        if not objects:
            return False
        dicts = list(map(dict, objects))
        damaged = sum(map(len, objects)) != sum(map(len, dicts))
        camel = self.camel
        if not damaged and camel and not camel.keys().isdisjoint(chain.from_iterable(dicts)):
            damaged = any(
                not camel.keys().isdisjoint(obj) and any(camel.get(key) in obj for key in obj)
                for obj in dicts
            )
        objects.clear()
        return damaged

    def _check_alone(self, element: str, index: int) -> None:
        """An element a hook flagged, or with a surrogate escape: ``_Stop`` when
        ``find_problems`` finds in it a problem it would find in the whole document."""
        self.damaged = False
        twice: Optional[SpeltTwice] = None
        if self.model is not None:
            root, member = self.model, self.member

            def twice(loc: Sequence[Union[str, int]], key: str, seen: Collection[str]) -> Optional[str]:
                return spelt_twice(root, [member, index, *loc], key, seen)

        _, total = find_problems(element, twice, limit=1)
        if total:
            raise _Stop
