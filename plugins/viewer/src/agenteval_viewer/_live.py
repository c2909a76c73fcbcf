"""Live updates of a running run, as server-sent events (``GET /api/runs/<id>/events``).

``RunTail`` follows a run folder by polling (stdlib only, every ``poll_s``, 0.25 s by
default): ``results.jsonl`` from a byte offset on, and ``manifest.json``'s ``state``. It
yields the stream's bytes:

* ``event: rows`` ``{"rows": [...]}``: the rows (plan order) of the cases that got a new
  record since the last event, at most one event per poll (so at most 4 a second however
  fast records arrive); its ``id`` is the byte offset read up to, so a reconnecting
  ``EventSource`` (``Last-Event-ID``) misses nothing;
* ``event: state`` ``{"state": ...}``: first, and whenever the manifest's state changes;
  the stream ends after a state other than ``running``;
* ``: heartbeat`` comments every ``heartbeat_s`` seconds of silence (15 s), which keep
  proxies from closing an idle stream and find a closed connection.

Only complete lines are read: a line being written is picked up once its ``\\n`` is there.
A file that got shorter (``--resume`` cuts a truncated last line) is followed from its new end.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Optional

__all__ = ["RunTail", "sse"]

_RESULTS = "results.jsonl"
_MANIFEST = "manifest.json"


def sse(event: Optional[str], data: object, event_id: Optional[str] = None) -> bytes:
    """One server-sent event (JSON ``data`` on a single line)."""
    parts = []
    if event_id is not None:
        parts.append(f"id: {event_id}\n")
    if event is not None:
        parts.append(f"event: {event}\n")
    parts.append("data: " + json.dumps(data, separators=(",", ":")) + "\n\n")
    return "".join(parts).encode("utf-8")


def _state_of(folder: Path) -> Optional[str]:
    try:
        return str(json.loads((folder / _MANIFEST).read_bytes()).get("state"))
    except (OSError, ValueError, AttributeError):
        return None


class RunTail:
    """Follows one run folder from ``offset`` (default: the current end of its results)."""

    def __init__(
        self,
        folder: Path,
        rows: Mapping[tuple[int, str], int],
        offset: Optional[int] = None,
        *,
        poll_s: float = 0.25,
        heartbeat_s: float = 15.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.folder = Path(folder)
        self.rows = rows
        size = self._size()
        self.offset = size if offset is None or not 0 <= offset <= size else offset
        self.poll_s = poll_s
        self.heartbeat_s = heartbeat_s
        self._clock = clock
        self._manifest_stamp: Optional[tuple[int, int]] = None
        self.state = self._read_state()

    def _size(self) -> int:
        try:
            return os.stat(self.folder / _RESULTS).st_size
        except OSError:
            return 0

    def _read_state(self) -> Optional[str]:
        try:
            info = os.stat(self.folder / _MANIFEST)
            stamp = (info.st_mtime_ns, info.st_size)
        except OSError:
            return getattr(self, "state", None)
        if stamp == self._manifest_stamp:
            return self.state
        self._manifest_stamp = stamp
        return _state_of(self.folder) or getattr(self, "state", None)

    def new_rows(self) -> set[int]:
        """The rows of the complete lines appended since the last call."""
        size = self._size()
        if size < self.offset:
            self.offset = size
        if size == self.offset:
            return set()
        with open(self.folder / _RESULTS, "rb") as handle:
            handle.seek(self.offset)
            chunk = handle.read(size - self.offset)
        end = chunk.rfind(b"\n")
        if end < 0:
            return set()
        self.offset += end + 1
        found = set()
        for line in chunk[: end + 1].splitlines():
            try:
                record = json.loads(line)
                row = self.rows.get((int(record["eval_set_index"]), str(record["case_id"])))
            except (ValueError, KeyError, TypeError):
                continue  # a damaged line: the readers skip it too
            if row is not None:
                found.add(row)
        return found

    def stream(self, stop: threading.Event) -> Iterator[bytes]:
        """The event stream, until the run is no longer running or ``stop`` is set."""
        yield b"retry: 1000\n\n" + sse("state", {"state": self.state})
        last_write = self._clock()
        while self.state == "running":
            if stop.wait(self.poll_s):
                return
            rows = self.new_rows()
            state = self._read_state()
            if state != self.state:
                rows |= self.new_rows()  # the last records, written before the manifest
            if rows:
                yield sse("rows", {"rows": sorted(rows)}, str(self.offset))
                last_write = self._clock()
            if state != self.state:
                self.state = state
                yield sse("state", {"state": state})
                last_write = self._clock()
            elif self._clock() - last_write >= self.heartbeat_s:
                yield b": heartbeat\n\n"
                last_write = self._clock()
