"""The elements of one array of a large JSON document, read one at a time from a file, a
window of its bytes decoded at a time: memory holds a window and one element, never the
document.

``iter_json_array`` walks the objects on a path of keys from the top (``("resourceSpans",)``,
``("trace", "batches")``), decoding the other members it passes (kept in ``rest``), and yields
each element of the array at the path's end as ``json.loads`` reads it. Its syntax errors are
``json.loads``'s own on the whole text: the same message at the same place, as a
``json.JSONDecodeError`` whose ``pos``, ``lineno`` and ``colno`` are the document's; bytes that
are not UTF-8 are a ``UnicodeDecodeError`` whose ``start`` is the document's byte offset (after
a byte-order mark). A document not of that shape (not an object, the path's member absent or
not an array) is a ``LookupError`` before any element, and a path member given twice one after.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator, Sequence
from json.decoder import scanstring  # type: ignore[attr-defined]  # CPython has it; typeshed leaves it out
from typing import Any, BinaryIO, Optional

__all__ = ["STREAM_WINDOW_BYTES", "iter_json_array"]

#: Bytes read and decoded at a time (more for an element larger than what is held).
STREAM_WINDOW_BYTES = 1 << 20

_WHITESPACE = re.compile(r"[ \t\n\r]*")
#: How close to the end of the text held a value's end, or an error, may be caused by the
#: window's end (a cut literal, number or escape); an unterminated string is looked at again
#: wherever it starts.
_NEAR_END = 16


def _probe(text: str) -> tuple[str, int]:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return exc.msg, exc.pos
    raise AssertionError(text)  # pragma: no cover - each probe is invalid JSON


# json's messages (and, for a trailing comma, its place), as this Python's json gives them
_COMMA = _probe("[1 2]")[0]
_COLON = _probe('{"a" 1}')[0]
_NAME = _probe("{1}")[0]
_EXTRA = _probe("1 2")[0]
_ARRAY_TRAILING = _probe("[1, ]")  # at the comma (2) or at the bracket (4)
_OBJECT_TRAILING = _probe('{"a": 1, }')  # at the comma (7) or at the brace (9)


def iter_json_array(
    handle: BinaryIO,
    path: Sequence[str],
    rest: Optional[dict[tuple[str, ...], Any]] = None,
    *,
    window: int = STREAM_WINDOW_BYTES,
) -> Iterator[Any]:
    """Each element of the array at ``path`` in the JSON document ``handle`` reads (binary,
    from its start), as ``json.loads`` would give it; the document is read to its end and
    checked whole. ``rest`` (when given) receives every other member of the objects on the
    path, by its path of keys. Errors: see the module docstring."""
    if not path:
        raise ValueError("a path of at least one key")
    stream = _Stream(handle, max(1, window))
    stream.skip()
    if stream.peek() != "{":
        raise LookupError("the document is not an object")
    yield from stream.members(tuple(path), (), rest)
    stream.skip()
    if stream.peek():
        stream.fail(_EXTRA, stream.pos)


class _Stream:
    """The text of a window of the file, from the first character not read yet."""

    def __init__(self, handle: BinaryIO, window: int) -> None:
        self.handle, self.window = handle, window
        self.decoder = json.JSONDecoder()
        self.text, self.pos = "", 0
        self.chars = 0  # document characters before ``text``
        self.line, self.column = 1, 0  # where ``text`` starts: its line, and the column before it
        self.pending = b""  # bytes of a character cut by the window's end
        self.bytes = 0  # document bytes decoded
        self.eof = False
        self.first = True

    def more(self) -> bool:
        """Read another window (at least as much as is held); ``False`` at the end of the file."""
        if self.eof:
            return False
        done = self.text[: self.pos]
        if done:
            newlines = done.count("\n")
            self.line += newlines
            self.column = len(done) - done.rfind("\n") - 1 if newlines else self.column + len(done)
            self.chars += len(done)
            self.text, self.pos = self.text[self.pos :], 0
        chunk = self.handle.read(max(self.window, len(self.text), 4))  # 4: a byte-order mark whole
        data = self.pending + chunk
        if self.first:
            self.first = False
            data = data[3:] if data.startswith(codecs.BOM_UTF8) else data
        self.eof = not chunk
        cut = len(data) if self.eof else _boundary(data)
        try:
            self.text += data[:cut].decode("utf-8")
        except UnicodeDecodeError as exc:
            start = self.bytes + exc.start
            raise UnicodeDecodeError("utf-8", data, start, start + exc.end - exc.start, exc.reason) from None
        self.bytes += cut
        self.pending = data[cut:]
        return True

    def skip(self) -> None:
        while True:
            self.pos = _WHITESPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]  # matches ""
            if self.pos < len(self.text) or not self.more():
                return

    def peek(self) -> str:
        if self.pos >= len(self.text):
            self.more()
        return self.text[self.pos : self.pos + 1]

    def fail(self, message: str, pos: int) -> None:
        """Raise json's error at ``pos`` of the text held, placed in the document."""
        text = self.text
        newlines = text.count("\n", 0, pos)
        column = pos - text.rfind("\n", 0, pos) if newlines else self.column + pos + 1
        exc = json.JSONDecodeError(message, text, pos)
        exc.pos, exc.lineno, exc.colno = self.chars + pos, self.line + newlines, column
        exc.args = (f"{message}: line {exc.lineno} column {exc.colno} (char {exc.pos})",)
        raise exc

    def _read(self, read: Any) -> Any:
        """``read(text, pos)`` (a value or a key and where it ends), more of the file read while
        what stops it may be the window's end."""
        while True:
            try:
                value, end = read(self.text, self.pos)
            except json.JSONDecodeError as exc:
                cut = exc.pos >= len(self.text) - _NEAR_END or exc.msg.startswith("Unterminated string")
                if cut and self.more():
                    continue
                self.fail(exc.msg, exc.pos)
            if end > len(self.text) - _NEAR_END and self.more():
                continue  # a number the window may have cut ("10." of "10.5")
            self.pos = end
            return value

    def value(self) -> Any:
        return self._read(self.decoder.raw_decode)

    def key(self) -> str:
        return self._read(lambda text, pos: scanstring(text, pos + 1, True))

    def comma_or_end(self, closing: str) -> Optional[int]:
        """After a member or an element: ``None`` at ``closing`` (left to the caller), else the
        place of the comma, passed with the whitespace after it (json's error at any other
        character). What follows the comma is the caller's to check (a trailing comma)."""
        self.skip()
        mark = self.peek()
        if mark == closing:
            return None
        if mark != ",":
            self.fail(_COMMA, self.pos)
        comma = self.pos
        self.pos += 1
        self.skip()
        return comma

    def members(
        self,
        path: tuple[str, ...],
        above: tuple[str, ...],
        rest: Optional[dict[tuple[str, ...], Any]],
    ) -> Iterator[Any]:
        """The object at ``pos`` (its ``{``), the array at ``path`` in it yielded element by element."""
        self.pos += 1
        self.skip()
        seen = False
        if self.peek() != "}":
            while True:
                if self.peek() != '"':
                    self.fail(_NAME, self.pos)
                key = self.key()
                self.skip()
                if self.peek() != ":":
                    self.fail(_COLON, self.pos)
                self.pos += 1
                self.skip()
                if key == path[0]:
                    if seen:
                        raise LookupError(f"the member {key!r} is given twice")
                    seen = True
                    opening = "[" if len(path) == 1 else "{"
                    if self.peek() != opening:
                        raise LookupError(f"{key!r} is not an {'array' if len(path) == 1 else 'object'}")
                    if len(path) == 1:
                        yield from self.elements()
                    else:
                        yield from self.members(path[1:], (*above, key), rest)
                else:
                    value = self.value()
                    if rest is not None:
                        rest[above + (key,)] = value
                comma = self.comma_or_end("}")
                if comma is None:
                    break
                if self.peek() == "}" and _OBJECT_TRAILING[0] != _NAME:
                    self.fail(_OBJECT_TRAILING[0], comma if _OBJECT_TRAILING[1] == 7 else self.pos)
        self.pos += 1
        if not seen:
            raise LookupError(f"no member {path[0]!r}")

    def elements(self) -> Iterator[Any]:
        """The array at ``pos`` (its ``[``), element by element."""
        self.pos += 1
        self.skip()
        if self.peek() == "]":
            self.pos += 1
            return
        while True:
            yield self.value()
            comma = self.comma_or_end("]")
            if comma is None:
                self.pos += 1
                return
            if self.peek() == "]" and _ARRAY_TRAILING[1] == 2:
                self.fail(_ARRAY_TRAILING[0], comma)


def _boundary(data: bytes) -> int:
    """Where ``data`` can be cut without splitting a UTF-8 character (its end, when the bytes
    before it are no character's start: decoding then says what is wrong)."""
    end = index = len(data)
    while index > 0 and end - index < 3 and data[index - 1] & 0xC0 == 0x80:
        index -= 1
    if index > 0 and data[index - 1] >= 0xC0:
        return index - 1
    return end
