"""Reading a JSON file with errors that point at the spot: file, line:column, reason, fix."""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import stat
from collections.abc import Callable
from json.decoder import scanstring  # type: ignore[attr-defined]  # CPython has it; typeshed leaves it out
from pathlib import Path
from typing import Any, NamedTuple, Optional, cast

from pydantic import BaseModel

from .._gc import gc_paused
from ..errors import ConfigError, DataError
from ._json_scan import MAX_DEPTH, MAX_INT_DIGITS, SURROGATE_ESCAPE, JsonProblem, find_problems
from ._spellings import camel_spellings, spelt_twice

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_PROBLEMS",
    "FileBytes",
    "gc_paused",
    "decode_utf8",
    "parse_json",
    "read_bytes",
    "read_file",
    "read_json",
]

#: Files larger than this are refused before reading (override with AGENTEVAL_MAX_FILE_MB).
MAX_FILE_BYTES = 512 * 1024 * 1024
#: Problems listed from one file, at most (a count of the rest follows).
MAX_PROBLEMS = 10


def _max_bytes() -> int:
    override = os.environ.get("AGENTEVAL_MAX_FILE_MB")
    if not override:
        return MAX_FILE_BYTES
    try:
        megabytes = float(override)
    except ValueError:
        megabytes = math.nan
    if not (math.isfinite(megabytes) and megabytes > 0):
        msg = f"AGENTEVAL_MAX_FILE_MB={override!r} is not a positive number of megabytes (e.g. 1024)"
        raise ConfigError(msg, source="environment")
    return max(1, int(megabytes * 1024 * 1024))


def _size(count: int) -> str:
    return f"{count:,} bytes" if count < 2**20 else f"{count / 2**20:.1f} MiB"


def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, col


def _explain_syntax(exc: json.JSONDecodeError) -> str:
    """The decoder's message, with the usual cause when it is a common slip."""
    msg = exc.msg[: -len(" at")] if exc.msg.endswith(" at") else exc.msg
    found = exc.doc[exc.pos : exc.pos + 1] if exc.pos < len(exc.doc) else ""
    if msg.startswith("Invalid control character"):
        return f"{msg} inside a string (write a line break as \\n and a tab as \\t)"
    if msg.startswith("Expecting") and found in ("}", "]") and exc.doc[: exc.pos].rstrip().endswith(","):
        return f"{msg} (a trailing comma? JSON allows none)"
    if msg.startswith("Expecting") and found in ("/", "#"):
        return f"{msg} (JSON has no comments)"
    if msg.startswith("Expecting") and found == "'":
        return f"{msg} (JSON strings and keys use double quotes)"
    return msg


class FileBytes(NamedTuple):
    """A file as read: its bytes without a UTF-8 BOM, the sha256 of the whole file as it is
    on disk, and where ``data`` starts in the file (3 after a BOM, else 0)."""

    data: bytes
    sha256: str
    start: int


def read_file(path: Path, *, what: str) -> FileBytes:
    """The file's bytes, after the cheap checks: it exists, is a file, is under the size
    limit and is not empty (``DataError`` otherwise); see ``FileBytes``."""
    source = str(path)
    try:
        status = path.stat()
    except FileNotFoundError:
        raise DataError(f"no such file (expected {what})", source=source) from None
    except OSError as exc:
        raise DataError(f"cannot read the file: {exc.strerror or exc}", source=source) from None
    except ValueError:  # a NUL character
        raise DataError("the path has a NUL character, which no file name can hold", source=source) from None
    if stat.S_ISDIR(status.st_mode):
        raise DataError(f"is a folder, expected {what} file", source=source)
    size = status.st_size
    limit = _max_bytes()
    if size > limit:
        msg = (
            f"the file is {_size(size)}, over the {_size(limit)} limit; "
            "split it into several eval sets, or raise the limit with AGENTEVAL_MAX_FILE_MB"
        )
        raise DataError(msg, source=source)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DataError(f"cannot read the file: {exc.strerror or exc}", source=source) from None
    digest = hashlib.sha256(data).hexdigest()
    start = 0
    if data.startswith(b"\xef\xbb\xbf"):
        data, start = data[3:], 3
    if not data.strip():
        raise DataError(f"the file is empty; expected {what} (a JSON document)", source=source)
    return FileBytes(data, digest, start)


def read_bytes(path: Path, *, what: str) -> bytes:
    """The file's bytes (without a UTF-8 BOM), after the loader's cheap checks (``read_file``:
    it exists, is a file, is under the size limit and is not empty; ``DataError`` naming
    ``what`` otherwise)."""
    return read_file(path, what=what).data


def decode_utf8(data: bytes, source: str) -> str:
    """``data`` as UTF-8 text; a ``DataError`` at the first byte that is not, by line and column."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _line_col(data, exc.start)
        msg = f"{line}:{col}: the file is not valid UTF-8 (byte 0x{data[exc.start]:02x}); save it as UTF-8"
        raise DataError(msg, source=source) from None


def problems_message(problems: list[JsonProblem], total: int) -> str:
    """One problem as one line; several as their count and one indented line each (the
    first ``MAX_PROBLEMS``), then how many more."""
    if total == 1:
        return str(problems[0])
    shown = [f"  {problem}" for problem in problems[:MAX_PROBLEMS]]
    if total > len(shown):
        shown.append(f"  ... and {total - len(shown)} more")
    return f"{total} problems:\n" + "\n".join(shown)


def parse_json(
    data: bytes,
    *,
    source: str,
    what: str,
    keep: bool = True,
    model: Optional[type[BaseModel]] = None,
    spans: Optional[tuple[str, list[tuple[int, int]]]] = None,
) -> Any:
    """Parse UTF-8 JSON bytes; ``DataError`` with line:column (and the JSON path) for a
    syntax error, a byte that is not UTF-8, or anything JSON cannot carry faithfully:
    a duplicate key, ``NaN`` / ``Infinity``, a number no 64-bit float holds (``1e400``,
    more than 308 integer digits), a lone UTF-16 surrogate escape (``"\\ud800"``) or,
    when the value is kept, nesting deeper than ``MAX_DEPTH``.
    All such problems of the file are reported together (up to ``MAX_PROBLEMS``).

    With ``model`` (the eval models' root), one field of a model object given in both
    spellings (``eval_id`` and ``evalId``) is an error too.

    ``keep=False`` only checks (the value returned is meaningless), which costs about
    half a full parse: the loader's fast path checks the file this way and then lets
    pydantic parse and validate it in one pass.

    ``spans=(member, found)``: when the top level is an object whose ``member`` is an
    array, ``found`` receives the byte span ``(start, end)`` in ``data`` of each of its
    elements, in order, at no extra cost (``found`` stays empty otherwise).
    """
    text = decode_utf8(data, source)
    damaged = False

    def _damage() -> None:
        nonlocal damaged
        damaged = True

    hooks = problem_hooks(model, _damage, keep=keep)
    try:
        if spans is None:
            value = json.loads(text, **hooks)
        else:
            value = _loads_finding_spans(text, hooks, *spans)
            if len(text) != len(data):  # not ASCII: character offsets become byte offsets
                spans[1][:] = _byte_spans(text, spans[1])
    except json.JSONDecodeError as exc:
        msg = f"{exc.lineno}:{exc.colno}: invalid JSON: {_explain_syntax(exc)}"
        raise DataError(msg, source=source) from None
    except RecursionError:
        msg = f"the JSON is nested too deeply to be {what} (thousands of levels)"
        raise DataError(msg, source=source) from None
    if keep and not damaged:
        damaged = _deeper_than(value, MAX_DEPTH)
    if damaged or SURROGATE_ESCAPE.search(text):
        twice = functools.partial(spelt_twice, model) if model is not None else None
        problems, total = find_problems(text, twice, limit=MAX_PROBLEMS)
        if total:
            raise DataError(problems_message(problems, total), source=source)
    return value


def problem_hooks(
    model: Optional[type[BaseModel]], damage: Callable[[], None], *, keep: bool = False
) -> dict[str, Any]:
    """``json.loads`` hooks that call ``damage()`` on what JSON cannot carry faithfully (a
    duplicate key, ``NaN`` / ``Infinity``, a number no 64-bit float holds; with ``model``,
    an object holding both spellings of a field of the eval models), for ``find_problems``
    to place. ``keep=False`` builds no objects (a check only)."""
    camel = camel_spellings() if model is not None else {}

    def _object(pairs: list[tuple[str, Any]]) -> Any:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            damage()
        elif camel and not camel.keys().isdisjoint(obj) and any(camel.get(k) in obj for k in obj):
            damage()
        return obj if keep else None

    def _int(digits: str) -> Any:
        if len(digits) > MAX_INT_DIGITS and len(digits.lstrip("-")) > MAX_INT_DIGITS:
            damage()  # and no int(): past 4,300 digits it raises
            return 0
        return int(digits)

    def _float(literal: str) -> float:
        number = float(literal)
        if math.isinf(number):
            damage()
        return number

    def _constant(name: str) -> None:
        damage()

    return dict(object_pairs_hook=_object, parse_int=_int, parse_float=_float, parse_constant=_constant)


_WHITESPACE = re.compile(r"[ \t\n\r]*")
# The pattern matches the empty string, so ``match`` never returns None.
_skip_whitespace = cast("Callable[..., re.Match[str]]", _WHITESPACE.match)


class _NotAsExpected(Exception):
    """The document is not an object with the member as an array (or not valid JSON)."""


def _loads_finding_spans(text: str, hooks: dict[str, Any], member: str, found: list[tuple[int, int]]) -> Any:
    """``json.loads(text, **hooks)``, noting the span of each element of the top-level
    ``member`` array on the way; anything else is decoded whole (``found`` left empty), so
    a document with a problem gets the decoder's own error."""
    try:
        return _walk_top_object(text, json.JSONDecoder(**hooks), member, found)
    except (_NotAsExpected, ValueError, IndexError):
        found.clear()
        return json.loads(text, **hooks)


def _walk_top_object(text: str, decoder: json.JSONDecoder, member: str, found: list[tuple[int, int]]) -> Any:
    skip = _skip_whitespace
    position = skip(text).end()
    if text[position] != "{":
        raise _NotAsExpected
    position = skip(text, position + 1).end()
    pairs: list[tuple[str, Any]] = []
    while text[position] != "}":
        if text[position] != '"':
            raise _NotAsExpected
        key, position = scanstring(text, position + 1, decoder.strict)
        position = skip(text, position).end()
        if text[position] != ":":
            raise _NotAsExpected
        position = skip(text, position + 1).end()
        if key == member and not found and text[position] == "[":
            value, position = _walk_array(text, decoder, position, found)
        else:
            value, position = decoder.raw_decode(text, position)
        pairs.append((key, value))
        position = skip(text, position).end()
        if text[position] == ",":
            position = skip(text, position + 1).end()
            if text[position] == "}":
                raise _NotAsExpected  # a trailing comma
        elif text[position] != "}":
            raise _NotAsExpected
    if skip(text, position + 1).end() != len(text):
        raise _NotAsExpected
    if sum(key == member for key, _ in pairs) > 1:
        raise _NotAsExpected  # the decoder reports the duplicate key
    hook = decoder.object_pairs_hook
    return hook(pairs) if hook is not None else dict(pairs)


def _walk_array(
    text: str, decoder: json.JSONDecoder, position: int, found: list[tuple[int, int]]
) -> tuple[list[Any], int]:
    skip = _skip_whitespace
    position = skip(text, position + 1).end()
    items: list[Any] = []
    if text[position] == "]":
        return items, position + 1
    while True:
        start = position
        item, position = decoder.raw_decode(text, position)
        found.append((start, position))
        items.append(item)
        position = skip(text, position).end()
        if text[position] == "]":
            return items, position + 1
        if text[position] != ",":
            raise _NotAsExpected
        position = skip(text, position + 1).end()


def _byte_spans(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Character spans of ``text`` as spans of its UTF-8 bytes (spans in order)."""
    converted = []
    char = byte = 0
    for start, end in spans:
        byte += len(text[char:start].encode("utf-8"))
        begin = byte
        byte += len(text[start:end].encode("utf-8"))
        char = end
        converted.append((begin, byte))
    return converted


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` (parsed JSON) nests objects and arrays more than ``limit`` deep."""
    pending = [(value, 1)] if isinstance(value, (dict, list)) else []
    while pending:
        item, depth = pending.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        pending.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def read_json(path: Path, *, what: str) -> Any:
    """``read_bytes`` then ``parse_json``: parse ``path`` as UTF-8 JSON (BOM allowed)."""
    return parse_json(read_bytes(path, what=what), source=str(path), what=what)
