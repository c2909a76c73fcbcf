"""Untrusted text (ids, file names, agent and judge output, error messages) made safe to
print: every character that a terminal would act on instead of showing is shown as an
escape sequence, so text can never clear the screen, set the window title, hide a link
(OSC 8), move the cursor, rewrite a line (bare CR) or reorder what is read (bidi)."""

from __future__ import annotations

import re

__all__ = ["json_visible", "visible"]


def _escape(code: int) -> str:
    if code <= 0xFF:
        return {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}.get(code, f"\\x{code:02x}")
    return f"\\u{code:04x}"


#: C0 controls, DEL, C1 controls (0x9b is a one-byte CSI), the bidi embeddings, overrides
#: and isolates (Trojan Source), the line and paragraph separators, the byte-order mark,
#: and lone surrogates (which no terminal can even be sent).
_HIDDEN = [
    *range(0x00, 0x20),
    *range(0x7F, 0xA0),
    0x061C,
    0x200E,
    0x200F,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
    0x2028,
    0x2029,
    0xFEFF,
    *range(0xD800, 0xE000),
]
_TABLE = {code: _escape(code) for code in _HIDDEN}
_TABLE_KEEP_NEWLINES = {code: text for code, text in _TABLE.items() if code not in (0x09, 0x0A)}


def visible(text: str, *, newlines: bool = False) -> str:
    """``text`` with every control, escape and bidi character written out as ``\\x1b``,
    ``\\r``, ``\\x9b``, ``\\u202e``...; a lone surrogate as ``\\ud800``. With
    ``newlines=True``, line feeds and tabs are kept (for multi-line messages); a CR is
    always shown, so no line can be overwritten. Printable text, emoji included, is
    unchanged; the result is always encodable as UTF-8."""
    return text.translate(_TABLE_KEEP_NEWLINES if newlines else _TABLE)


#: The same characters as JSON escapes (a JSON encoder already escapes C0 and DEL is
#: harmless there, but C1, bidi and separators pass through raw).
_JSON_TABLE = {code: f"\\u{code:04x}" for code in _HIDDEN if code >= 0x7F}


def _ranges(codes: list[int]) -> str:
    """A character class of ``codes`` (ascending) as ranges: compiled in microseconds, where
    the same class of one escape per character (2,000 surrogates) takes milliseconds."""
    runs: list[list[int]] = []
    for code in codes:
        if runs and runs[-1][1] == code - 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return "".join(
        re.escape(chr(low)) + ("" if low == high else "-" + re.escape(chr(high))) for low, high in runs
    )


_JSON_HIDDEN = re.compile("[" + _ranges(sorted(_JSON_TABLE)) + "]")


def json_visible(document: str) -> str:
    """A JSON document with every C1, bidi, separator and byte-order-mark character, and
    every lone surrogate, written as a ``\\uXXXX`` escape: the same JSON value, safe to
    print to a terminal. Such characters can only stand inside JSON strings, where the
    escape means the same character."""
    if document.isascii():
        return document
    # A regular expression finds the few such characters in a long document far faster than
    # ``str.translate`` walks every character of it.
    return _JSON_HIDDEN.sub(lambda match: _JSON_TABLE[ord(match.group())], document)
