"""Reading judge answers: strict about structure, tolerant about presentation.

Tolerated: code fences, prose before or after the JSON object, key spelling (``Verdict``,
``" verdict "``, ``is-valid``), label case, surrounding whitespace, quotes, backticks or
asterisks, and spaces or hyphens instead of underscores (``"Not Applicable"`` is
``not_applicable``). Not tolerated: no JSON object, a missing required field, a label
outside the allowed set (``"partially"``, ``"almost"``). There is no substring matching, so
``"not applicable"`` is never read as ``"no"``.

When an answer holds several JSON objects (an example, then the answer), the last one that
has the expected structure is used.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

__all__ = [
    "Unparseable",
    "entries",
    "json_objects",
    "label",
    "norm_key",
    "norm_token",
    "parse_answer",
    "require",
    "text_field",
]

T = TypeVar("T")

_SEPARATORS = re.compile(r"[\s\-/]+")
_EDGE = " \t\r\n\"'`*_.,;:"


class Unparseable(ValueError):
    """A judge answer that cannot be read (the sample counts as ``judge_unparseable``)."""


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Every top-level JSON object in ``text``, in order (fences and prose are skipped)."""
    decoder = json.JSONDecoder()
    index, length = 0, len(text)
    while index < length:
        start = text.find("{", index)
        if start < 0:
            return
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            index = start + 1
            continue
        if isinstance(value, dict):
            yield value
        index = end


def norm_key(key: Any) -> str:
    """``" Is-Valid "`` -> ``is_valid``."""
    return _SEPARATORS.sub("_", str(key).strip().lower()).strip("_")


def norm_token(value: Any) -> str:
    """A label as a comparable token: NFKC, trimmed of spaces, quotes, backticks,
    asterisks and trailing punctuation, lower-cased, separators as ``_``
    (``" **Not Applicable** "`` -> ``not_applicable``, ``"N/A"`` -> ``n_a``)."""
    text = unicodedata.normalize("NFKC", str(value)).strip(_EDGE).lower()
    return _SEPARATORS.sub("_", text).strip("_")


def _keys(obj: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in obj.items():
        out.setdefault(norm_key(key), value)
    return out


def require(obj: Any, *fields: str, where: str = "the answer") -> dict[str, Any]:
    """``obj`` as a dict with normalised keys; ``Unparseable`` unless it is an object
    holding every one of ``fields``."""
    if not isinstance(obj, Mapping):
        raise Unparseable(f"{where} is not a JSON object")
    keyed = _keys(obj)
    missing = [f for f in fields if f not in keyed]
    if missing:
        raise Unparseable(f"{where} has no {', '.join(repr(m) for m in missing)} field")
    return keyed


def entries(keyed: Mapping[str, Any], key: str, *fields: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(index, item)`` for each item of the list ``keyed[key]`` (``keyed`` as ``require``
    returned it), each item ``require``-d with ``fields``; ``Unparseable`` when
    ``keyed[key]`` is not a list or an item is not an object holding every field."""
    items = keyed[key]
    if not isinstance(items, list):
        raise Unparseable(f"'{key}' is not a list")
    for index, item in enumerate(items):
        yield index, require(item, *fields, where=f"{key}[{index}]")


def label(value: Any, allowed: Mapping[str, str], field: str) -> str:
    """The canonical label for ``value`` (``allowed`` maps tokens to labels).

    JSON booleans are looked up as ``"true"`` / ``"false"``; anything else not in
    ``allowed`` is ``Unparseable``.
    """
    if isinstance(value, bool):
        token = "true" if value else "false"
    elif isinstance(value, str):
        token = norm_token(value)
    else:
        raise Unparseable(f"{field} is {json.dumps(value)}, not one of {_choices(allowed)}")
    if token not in allowed:
        raise Unparseable(
            f"{field} is {json.dumps(value, ensure_ascii=False)}, not one of {_choices(allowed)}"
        )
    return allowed[token]


def _choices(allowed: Mapping[str, str]) -> str:
    return ", ".join(sorted(set(allowed.values())))


def text_field(obj: Mapping[str, Any], field: str) -> str:
    """A free-text field as a string (``null`` -> ``""``; other JSON values are dumped)."""
    value = obj.get(field)
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    return json.dumps(value, ensure_ascii=False)


def parse_answer(text: str, read: Callable[[dict[str, Any]], T]) -> T:
    """Apply ``read`` to the JSON objects of ``text``, last first; the first success wins.

    ``read`` raises ``Unparseable`` for an object without the expected structure. With no
    object at all, or none that ``read`` accepts, raises ``Unparseable`` (with the reason the
    last object was rejected).
    """
    objects = list(json_objects(text))
    if not objects:
        raise Unparseable("the answer holds no JSON object")
    problem: Unparseable | None = None
    for obj in reversed(objects):
        try:
            return read(obj)
        except Unparseable as exc:
            problem = problem or exc
    assert problem is not None
    raise problem
