"""Reading a JSON file with errors that point at the spot: file, line:column, reason, fix."""

from __future__ import annotations

import gc
import json
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import ConfigError, DataError

__all__ = ["MAX_FILE_BYTES", "gc_paused", "parse_json", "read_bytes", "read_json"]

#: Files larger than this are refused before reading (override with AGENTEVAL_MAX_FILE_MB).
MAX_FILE_BYTES = 512 * 1024 * 1024


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many objects at once, then file
    what was built under the oldest generation.

    Parsing and validating an eval file allocates hundreds of thousands of long-lived
    objects and no reference cycles. Left to the collector, each of them would be walked
    by a young-generation pass and then again when promoted, which costs about as much
    as the parse itself. ``gc.freeze()`` followed by ``gc.unfreeze()`` moves every tracked
    object straight to the oldest generation (skipped when the host application has
    frozen objects itself, so that its freeze is never undone).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        if enabled:
            gc.enable()


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


def read_bytes(path: Path, *, what: str) -> bytes:
    """The file's bytes (without a UTF-8 BOM), after the cheap checks: it exists, is a
    file, is under the size limit and is not empty. ``DataError`` otherwise."""
    source = str(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise DataError(f"no such file (expected {what})", source=source) from None
    except OSError as exc:
        raise DataError(f"cannot read the file: {exc.strerror}", source=source) from None
    if path.is_dir():
        raise DataError(f"is a folder, expected {what} file", source=source)
    limit = _max_bytes()
    if size > limit:
        msg = (
            f"the file is {_size(size)}, over the {_size(limit)} limit; "
            "split it into several eval sets, or raise the limit with AGENTEVAL_MAX_FILE_MB"
        )
        raise DataError(msg, source=source)
    data = path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        raise DataError(f"the file is empty; expected {what} (a JSON document)", source=source)
    return data


def parse_json(data: bytes, *, source: str, what: str, warnings: list[str] | None = None) -> Any:
    """Parse UTF-8 JSON bytes with errors at line:column.

    Duplicate keys in an object keep the last value, as Python and pydantic do; when a
    ``warnings`` list is given, they add a warning.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _line_col(data, exc.start)
        msg = f"{line}:{col}: the file is not valid UTF-8 (byte 0x{data[exc.start]:02x}); save it as UTF-8"
        raise DataError(msg, source=source) from None
    duplicates: list[str] = []

    def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in pairs:
            if key in obj:
                duplicates.append(key)
            obj[key] = value
        return obj

    try:
        value = json.loads(text, object_pairs_hook=_pairs)
    except json.JSONDecodeError as exc:
        msg = f"{exc.lineno}:{exc.colno}: invalid JSON: {_explain_syntax(exc)}"
        raise DataError(msg, source=source) from None
    except RecursionError:
        msg = "the JSON is nested too deeply to be an eval file (thousands of levels)"
        raise DataError(msg, source=source) from None
    if duplicates and warnings is not None:
        names = ", ".join(sorted(set(map(repr, duplicates))))
        warnings.append(f"{source}: duplicate JSON keys {names}; the last value of each is used")
    return value


def read_json(path: Path, *, what: str, warnings: list[str] | None = None) -> Any:
    """``read_bytes`` then ``parse_json``: parse ``path`` as UTF-8 JSON (BOM allowed)."""
    return parse_json(read_bytes(path, what=what), source=str(path), what=what, warnings=warnings)
