"""Where each case of an eval file is, so that one case can be read again alone.

Loading an eval set notes, at no extra cost, the byte span of each element of its
``eval_cases`` array. A run that cannot keep a large file in memory reads a case again
from its span: a few kilobytes, instead of the whole file. Each span carries a digest of
the bytes loaded, so a case read again is the case that was checked and validated, or
nothing (the file changed on disk).
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Optional, Union

from ..models import EvalCase

__all__ = ["CaseSpans", "digest_of"]

_DIGEST_SIZE = 16
#: Bytes read ahead from a case's span (the cases after it, read next in file order).
_WINDOW = 64 * 1024


def digest_of(data: Union[bytes, memoryview]) -> bytes:
    """The digest ``CaseSpans`` keeps of a case's bytes."""
    return hashlib.blake2b(data, digest_size=_DIGEST_SIZE).digest()


class CaseSpans:
    """The byte spans of an eval file's cases, in file order, with a digest of each.

    Made only for a file whose cases pydantic validated straight from the JSON bytes
    (the loader's fast path), so that validating one span gives the very same case.
    About 32 bytes per case.
    """

    __slots__ = ("_bounds", "_digests", "_window")

    def __init__(self, data: bytes, spans: Sequence[tuple[int, int]], start: int = 0) -> None:
        """``spans`` of ``data``, which begins ``start`` bytes into the file (after a BOM)."""
        self._bounds = array("q", [start + bound for span in spans for bound in span])
        view = memoryview(data)  # (a case's bytes digested without a copy)
        self._digests = b"".join([digest_of(view[b:e]) for b, e in spans])
        #: the bytes read last (``_WINDOW`` from a case's span): their path, offset, bytes
        self._window: Optional[tuple[Path, int, bytes]] = None

    def __len__(self) -> int:
        return len(self._bounds) // 2

    def part(self, start: int, end: int) -> tuple[int, list[int], bytes]:
        """Where cases ``start`` to ``end`` are, for ``validate_part``: the file offset of the
        first, each one's begin and end from there (by turns), and their digests."""
        offset = self._bounds[2 * start]
        bounds = [bound - offset for bound in self._bounds[2 * start : 2 * end]]
        return offset, bounds, self._digests[_DIGEST_SIZE * start : _DIGEST_SIZE * end]

    def case(self, path: Path, index: int) -> Optional[EvalCase]:
        """Case ``index`` (0-based) read from ``path``; ``None`` when its bytes are not
        the ones loaded (the file changed since)."""
        begin, end = self._bounds[2 * index], self._bounds[2 * index + 1]
        data = self._read(path, begin, end)
        expected = self._digests[_DIGEST_SIZE * index : _DIGEST_SIZE * (index + 1)]
        if data is None or digest_of(data) != expected:
            return None
        return EvalCase.model_validate_json(data)

    def _read(self, path: Path, begin: int, end: int) -> Optional[bytes]:
        """The file's bytes ``begin:end``: from the window read last, else read with the
        window after them (up to the last case's end); the window is let go once its last
        byte is taken. ``None`` when the file cannot be read."""
        window = self._window
        if (
            window is not None
            and window[0] == path
            and window[1] <= begin <= end <= window[1] + len(window[2])
        ):
            offset = window[1]
            data = window[2][begin - offset : end - offset]
        else:
            stop = max(end, min(begin + _WINDOW, self._bounds[-1]))
            try:
                with open(path, "rb") as handle:
                    handle.seek(begin)
                    read = handle.read(stop - begin)
            except OSError:
                return None
            offset, window = begin, (path, begin, read)
            data = read[: end - begin]
        self._window = None if end >= offset + len(window[2]) else window
        return data
