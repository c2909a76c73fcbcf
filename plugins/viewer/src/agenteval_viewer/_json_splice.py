"""Editing one element of an eval set's ``eval_cases`` array in the file's own text.

A save re-renders only what it changed: the cases it did not touch, the top-level keys and,
in a changed case, every value equal to what it was keep their bytes (a hand-formatted case
keeps its layout, and the diff shows the edited field). ``Layout`` records how the file is
indented so that what is rendered anew looks like its neighbours.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Optional

__all__ = ["Layout", "Spans", "append_element", "find_spans", "remove_element", "replace_element"]

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Spans:
    """Where a top-level array is: ``start``/``end`` of ``[...]`` and each element's span."""

    start: int
    end: int
    elements: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Layout:
    """How the file is written: ``indent`` (``None``: on one line), ``ensure_ascii``."""

    indent: Optional[int]
    ensure_ascii: bool

    @staticmethod
    def of(text: str) -> Layout:
        match = re.search(r"\n([ ]+)\S", text)
        indent = len(match.group(1)) if match else (2 if "\n" in text.strip() else None)
        escaped = re.search(r"\\u[0-9a-fA-F]{4}", text) is not None
        return Layout(indent=indent, ensure_ascii=escaped and not any(ord(c) > 127 for c in text))

    def render(self, value: Any, line_indent: str) -> str:
        """``value`` as JSON, its later lines indented by ``line_indent``."""
        if self.indent is None:
            return json.dumps(value, ensure_ascii=self.ensure_ascii)
        text = json.dumps(value, indent=self.indent, ensure_ascii=self.ensure_ascii)
        return text.replace("\n", "\n" + line_indent)


def _skip(text: str, i: int) -> int:
    return _WS.match(text, i).end()  # type: ignore[union-attr]


def find_spans(text: str, key: str = "eval_cases") -> Optional[Spans]:
    """The spans of the top-level object's array ``key``, or ``None`` (no such array, or
    the top level is not an object). ``text`` must be valid JSON."""
    i = _skip(text, 1 if text.startswith("\ufeff") else 0)
    if text[i : i + 1] != "{":
        return None
    i = _skip(text, i + 1)
    while i < len(text) and text[i] == '"':
        name, i = _DECODER.raw_decode(text, i)
        i = _skip(text, _skip(text, i) + 1)  # past ':'
        if name == key and text[i] == "[":
            start, elements = i, []
            i = _skip(text, i + 1)
            while text[i] != "]":
                _, end = _DECODER.raw_decode(text, i)
                elements.append((i, end))
                i = _skip(text, end)
                if text[i] == ",":
                    i = _skip(text, i + 1)
            return Spans(start, i + 1, tuple(elements))
        _, i = _DECODER.raw_decode(text, i)
        i = _skip(text, i)
        if text[i] == ",":
            i = _skip(text, i + 1)
    return None


def _line_indent(text: str, at: int) -> str:
    line_start = text.rfind("\n", 0, at) + 1
    prefix = text[line_start:at]
    return prefix if not prefix.strip() else re.match(r"[ \t]*", text[line_start:]).group(0)  # type: ignore[union-attr]


def _element_indent(text: str, spans: Spans, layout: Layout) -> str:
    if spans.elements:
        return _line_indent(text, spans.elements[0][0])
    return _line_indent(text, spans.start) + " " * (layout.indent or 0)


def replace_element(text: str, spans: Spans, index: int, value: Any, layout: Layout) -> str:
    """The element at ``index`` changed into ``value``: only what differs is written again
    (``_patched``), so an edited field of a hand-formatted case keeps the case's own layout
    and the file's diff shows that field alone."""
    start, end = spans.elements[index]
    try:
        old = _DECODER.raw_decode(text, start)[0]
        return text[:start] + _patched(text, start, end, old, value, layout) + text[end:]
    except RecursionError:  # nested past Python's stack: the element rendered anew
        return text[:start] + layout.render(value, _line_indent(text, start)) + text[end:]


def _patched(text: str, start: int, end: int, old: Any, new: Any, layout: Layout) -> str:
    """The JSON value at ``text[start:end]`` (``old``: it parsed) changed into ``new``: kept
    as written where it equals ``new`` (the same types: ``1`` is not ``1.0`` nor ``true``);
    an array of the same length patched element by element; an object patched member by
    member, its members that ``new`` lacks taken out and the keys it adds written after the
    others (``_object``); anything else rendered anew in the file's layout. Each member's
    old value comes from the scan that finds its span (``_members``): nothing parsed twice."""
    if _same(old, new):
        return text[start:end]
    if type(old) is type(new) is list and len(old) == len(new):
        out, at = [], start
        for position, _, value_start, value_end, value in _members(text, start):
            out += [
                text[at:value_start],
                _patched(text, value_start, value_end, value, new[position], layout),
            ]
            at = value_end
        return "".join(out) + text[at:end]
    if type(old) is type(new) is dict and old and new:
        patched = _object(text, start, end, old, new, layout)
        if patched is not None:
            return patched
    return layout.render(new, _line_indent(text, start))


def _object(text: str, start: int, end: int, old: dict, new: dict, layout: Layout) -> Optional[str]:
    """The object at ``text[start:end]`` (``old``) patched into ``new`` when ``new`` keeps
    the order of the keys the two share and adds its own after them: each kept member's
    value patched, each dropped member taken out with its separator, each added member
    written after the last, separated and indented as the object's members are (on one
    line when the object is); ``None`` otherwise."""
    members = _members(text, start)
    if len(members) != len(old):  # a key twice: the file's last one is the value
        return None
    shared = [key for key, _, _, _, _ in members if key in new]
    added = [key for key in new if key not in old]
    if list(new) != shared + added:
        return None
    one_line = "\n" not in text[start:end]
    member_indent = _line_indent(text, members[0][1])
    separator = text[members[0][3] : members[1][1]] if len(members) > 1 else None
    if separator is None or (not one_line and "\n" not in separator):
        separator = ", " if one_line or layout.indent is None else ",\n" + member_indent
    pieces: list[str] = []  # each kept or added member's text, and the separator before it
    previous = None  # the position in ``members`` of the last member kept
    for position, (key, key_start, value_start, value_end, value) in enumerate(members):
        if key not in new:
            continue
        body = text[key_start:value_start] + _patched(text, value_start, value_end, value, new[key], layout)
        if pieces:
            follows = previous == position - 1
            pieces.append(text[members[position - 1][3] : key_start] if follows else separator)
        pieces.append(body)
        previous = position
    for key in added:
        encoded = json.dumps(key, ensure_ascii=layout.ensure_ascii)
        value = (
            json.dumps(new[key], ensure_ascii=layout.ensure_ascii)
            if one_line
            else layout.render(new[key], member_indent)
        )
        pieces += [separator] if pieces else []
        pieces.append(f"{encoded}: {value}")
    head = text[start : members[0][1]]
    tail = text[members[-1][3] : end]
    return head + "".join(pieces) + tail


def _same(a: Any, b: Any) -> bool:
    """``a == b`` with every value of the same type (JSON's ``1``, ``1.0`` and ``true`` differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return repr(a) == repr(b)  # 0.0 is not -0.0
    return bool(a == b)


def _members(text: str, start: int) -> list[tuple[Any, int, int, int, Any]]:
    """The members of the object or array starting at ``start``: ``(key, member start,
    value start, value end, value)`` of each, its key a name (object: the member starts at
    its name) or a position (array: the member is its value), its value as parsed."""
    members: list[tuple[Any, int, int, int, Any]] = []
    is_object = text[start] == "{"
    i = _skip(text, start + 1)
    while text[i] not in "}]":
        key: Any = len(members)
        member_start = i
        if is_object:
            key, i = _DECODER.raw_decode(text, i)
            i = _skip(text, _skip(text, i) + 1)  # past ':'
        value, end = _DECODER.raw_decode(text, i)
        members.append((key, member_start, i, end, value))
        i = _skip(text, end)
        if text[i] == ",":
            i = _skip(text, i + 1)
    return members


def remove_element(text: str, spans: Spans, index: int) -> str:
    elements = spans.elements
    if len(elements) == 1:
        return text[: spans.start] + "[]" + text[spans.end :]
    if index > 0:  # from the end of the previous element: its comma and the element go
        return text[: elements[index - 1][1]] + text[elements[index][1] :]
    return text[: elements[0][0]] + text[elements[1][0] :]


def append_element(text: str, spans: Spans, value: Any, layout: Layout) -> str:
    indent = _element_indent(text, spans, layout)
    rendered = layout.render(value, indent)
    if spans.elements:
        last_end = spans.elements[-1][1]
        separator = ",\n" + indent if layout.indent is not None else ", "
        return text[:last_end] + separator + rendered + text[last_end:]
    if layout.indent is None:
        return text[: spans.start] + "[" + rendered + "]" + text[spans.end :]
    closing = _line_indent(text, spans.start)
    return text[: spans.start] + "[\n" + indent + rendered + "\n" + closing + "]" + text[spans.end :]
