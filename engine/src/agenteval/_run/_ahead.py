"""Scoring ahead: a large run of recorded turns scored on two cores, to the same records.

A run whose units are recorded turns under synchronous criteria (``_Dispatch.inline``) is
CPU work in one process. With two CPUs, one idle, memory free for a copy of the process (the
helper's pages are copied as it touches them), and at least ``AHEAD_FROM_UNITS`` units, the
driver forks a helper once the criteria are prepared. Both know the units in the order
the dispatch starts them. The helper scores blocks of ``BLOCK`` units a little ahead of the
driver: each time from ``LEAD`` blocks past the driver's (or its own last block's end, when
that is further), and never more than ``AHEAD_BLOCKS`` past it. For each unit it does what the
driver would (the case's recorded turns, ``score_run``, the record) and sends back the
scoring's duration, the criteria's results, the record's ``results.jsonl`` line and its
index preview: the driver then needs none of the unit's actual turns, which it leaves unbuilt
when a format reader builds them as they are read (traces).

The driver never waits for the helper: before each unit it reads what the helper has sent
(without blocking) and takes the unit's results when they are there (validated, the record
built from them, the helper's line written); else it scores the unit itself, and the helper,
seeing the driver past a unit, skips ahead. So each process does what it is fastest at, the
helper's scoring and encoding leave the driver's CPU, and a slow or lost helper (killed, out
of memory) only means the driver scores more itself.

The driver stays the only owner of the run: it finishes every case, writes every line,
keeps the summary and the report. A unit the helper could not score (a criterion waited or
raised, anything else) is scored by the driver, so every error, strict mode's included, is
the one the run meets alone. The helper ignores Ctrl-C (the driver, the run's owner, winds
down and kills it), and ends when the driver closes the pipe or is gone.

Only criteria from installed distributions are scored ahead: a criterion from the user's
project (``path/to/metrics.py:fn``, an ADK custom metric) may keep state of its own that a
second process would not share. A run resumed from earlier records, under ``--num-runs
auto``, with a judge or an agent, or in a process with other threads (forking copies only the
calling thread) is scored in one process, as before.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import struct
import time
from collections.abc import Callable, Sequence
from typing import Any, Optional

from pydantic import TypeAdapter

from .. import _fork
from .._local_criteria import CUSTOM_METRIC_PREFIX, LOCAL_DISTRIBUTION
from .._plugins import IN_MEMORY_DISTRIBUTION
from .._results import CriterionResult, PluginInfo
from ._files import free_memory

__all__ = ["AHEAD_FROM_UNITS", "ScoreAhead", "Scored", "can_fork", "installed"]

#: The fewest units scored ahead (below it, forking costs more than it saves).
AHEAD_FROM_UNITS = 2000
#: Units the helper scores in a row before it looks where the driver is.
BLOCK = 16
#: How many blocks past the driver's the helper starts a block when it has fallen behind.
LEAD = 2
#: How many blocks past the driver's the helper may be (what waits in the pipe for it).
AHEAD_BLOCKS = 8
#: A unit's message head: its position, the scoring's duration, and the lengths of the
#: results' JSON, of the record's line and of its index preview's JSON.
_HEAD = struct.Struct("<qdqqq")
_PIPE_BYTES = 1 << 20

_RESULTS: TypeAdapter[list[CriterionResult]] = TypeAdapter(list[CriterionResult])
_PREVIEW: TypeAdapter[dict[str, str]] = TypeAdapter(dict[str, str])

#: What scoring one unit gives: the scoring's duration, its results, the record's line and
#: its index line's preview (``agenteval.runs._index.preview_of``).
Scored = tuple[float, list[CriterionResult], bytes, dict[str, str]]


def installed(plugin: PluginInfo) -> bool:
    """Whether a criterion comes from an installed distribution's entry point: not from the
    user's project (a local function criterion, an ADK custom metric) nor a class given in
    memory, whose state a second process would not share."""
    return plugin.distribution not in (LOCAL_DISTRIBUTION, IN_MEMORY_DISTRIBUTION) and not (
        plugin.entry_point.startswith(CUSTOM_METRIC_PREFIX)
    )


def can_fork() -> bool:
    """Whether the helper may be forked now: ``agenteval._fork.can_fork`` (a CPU idle), and
    the memory available could take a copy of this process (the helper's pages are this
    process's until it touches them: the cases it scores are copied then)."""
    return _fork.can_fork() and _copy_fits()


def _copy_fits() -> bool:
    free = free_memory()
    try:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # (kB on Linux)
    except (ImportError, OSError):
        return True
    return free is None or free >= peak


class ScoreAhead:
    """The driver's side: ``take(key)`` before scoring the unit ``key`` (one of ``units``)
    gives the helper's work for it, or ``None`` (the driver scores it)."""

    def __init__(self, units: Sequence[Any], score: Callable[[Any], Scored]) -> None:
        self._units = units
        self._positions = {key: position for position, key in enumerate(units)}
        #: the position of the unit the driver is at
        self._driver = multiprocessing.get_context("fork").RawValue("q", 0)
        read, write = os.pipe()
        _widened(write)
        pid = os.fork()
        if pid == 0:  # the helper
            status = 0
            try:
                os.close(read)
                _on_its_own()
                self._help(write, score)
            except BaseException:  # noqa: BLE001 - whatever it did not send, the driver scores
                status = 1
            finally:
                os._exit(status)
        os.close(write)
        os.set_blocking(read, False)
        self.pid: Optional[int] = pid
        self._read = read
        self._buffer = bytearray()
        #: the helper's units received and not taken yet, by position
        self._received: dict[int, tuple[float, bytes, bytes, bytes]] = {}
        #: units the driver took from the helper
        self.units_ahead = 0

    # -- the helper

    def _help(self, out: int, score: Callable[[Any], Scored]) -> None:
        driver, parent, units = self._driver, os.getppid(), len(self._units)
        start = 0
        while start < units:
            at = driver.value
            if start > at + AHEAD_BLOCKS * BLOCK:  # far enough ahead: wait for the driver
                if os.getppid() != parent:
                    return
                time.sleep(0.0005)
                continue
            start = max(start, at + LEAD * BLOCK)
            for position in range(start, min(start + BLOCK, units)):
                if position <= driver.value:  # the driver has passed it
                    continue
                try:
                    duration, results, line, preview = score(self._units[position])
                except Exception:  # noqa: BLE001 - the driver scores it
                    continue
                payload, shown = _RESULTS.dump_json(results), _PREVIEW.dump_json(preview)
                head = _HEAD.pack(position, duration, len(payload), len(line), len(shown))
                view = memoryview(head + payload + line + shown)
                while view:
                    view = view[os.write(out, view) :]
            start += BLOCK

    # -- the driver

    def take(self, key: Any) -> Optional[Scored]:
        """The helper's duration, results, line and preview for the unit ``key``, or ``None``
        when the driver is to score it (the helper has not sent it, or could not score it)."""
        position = self._positions.get(key)
        if position is None:
            return None
        if self.pid is not None:
            self._driver.value = position
            self._receive()
        found = self._received.pop(position, None)
        if found is None:
            return None
        duration, payload, line, shown = found
        self.units_ahead += 1
        return duration, _RESULTS.validate_json(payload), line, _PREVIEW.validate_json(shown)

    def _receive(self) -> None:
        """Read every unit the helper has sent so far, without waiting."""
        while True:
            try:
                chunk = os.read(self._read, _PIPE_BYTES)
            except BlockingIOError:
                break
            if not chunk:  # the helper is gone: the driver scores what it did not send
                self.close()
                break
            self._buffer += chunk
        buffer, head = self._buffer, _HEAD.size
        used = 0
        while len(buffer) - used >= head:
            position, duration, size, length, shown = _HEAD.unpack_from(buffer, used)
            start = used + head
            end = start + size + length + shown
            if len(buffer) < end:
                break
            if position >= self._driver.value:
                self._received[position] = (
                    duration,
                    bytes(buffer[start : start + size]),
                    bytes(buffer[start + size : start + size + length]),
                    bytes(buffer[end - shown : end]),
                )
            used = end
        del buffer[:used]

    def close(self) -> None:
        """Stop the helper (if it still runs) and let it go; what it sent can still be taken."""
        pid, self.pid = self.pid, None
        if pid is None:
            return
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(pid, 0)
        except OSError:
            pass
        os.close(self._read)


def _widened(pipe: int) -> None:
    """A pipe that holds what the helper sends a few blocks ahead (Linux: 1 MiB, where the
    system allows it; elsewhere its default size: the helper then waits sooner)."""
    try:
        import fcntl

        fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass


def _on_its_own() -> None:
    """The helper's signals: Ctrl-C is for the driver (which then kills it), a termination
    ends it; none goes to the driver's event loop (whose wake-up pipe it shares)."""
    try:
        signal.set_wakeup_fd(-1)
    except ValueError:  # not the main thread: none was set by this one
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
