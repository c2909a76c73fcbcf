"""A large JSONL trace file read by two processes: a forked helper reads its second half.

The helper reads the lines from the middle of the file (from a line's start) as the reader
would: it parses them, checks each span's ids and times, takes what the selection looks at (the
span's session ids, and whether it makes its trace wanted: ``_select``'s rule), flattens the
spans of the traces it finds wanted, and reads the turns of each such trace (``trace_turns``)
from all its spans in that half. Meanwhile the reader reads the first half itself. Then its own
loop (``_select.read_turns``) goes on through the helper's spans, each a ``Handed``, in file
order, as if it had read them: it takes the helper's turns of a trace when the spans it holds
for it are exactly the helper's (all of them ``Handed``, as many); any span it needs whole that
the helper did not flatten (a trace that crosses the middle, one wanted only through its
session's other traces, a span that cannot be read) it reads again from its line, and so meets
the errors the one-process read meets, where it meets them. Results, errors and their order
are the one-process read's. When the helper fails (killed, out of memory), the reader reads the
second half itself.

Used for JSONL files of at least ``PARALLEL_FROM_BYTES`` (below that, forking and handing the
results over cost more than they save), when ``fork`` exists, a second CPU is idle (``IDLE_CPU``)
and no other thread runs (a fork copies no thread, and a lock one held stays held in the copy).
"""

from __future__ import annotations

import os
import pickle
import signal
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Optional, Union

from agenteval import plugins
from agenteval.errors import DataError

from ._otlp import PEEK_KEYS, RawSpan, _flattened, _head, _raw_span, _span, is_jsonl, jsonl_part
from ._span import Span, attributes_of
from ._turns import Finding, Turn, trace_turns

__all__ = ["PARALLEL_FROM_BYTES", "Handed", "Shared", "can_fork", "forked", "shared_read"]

#: The smallest JSONL file read by two processes (``benchmarks/otel_import.py --helper-from``:
#: below it, about 850 traces of 50 spans, the time saved is small against the CPU added).
PARALLEL_FROM_BYTES = 32 << 20
#: Whether a helper is started only when a CPU is idle (``agenteval.plugins.can_fork``: the
#: 1-minute load average below the CPU count less a half, or a CPU free of runnable tasks now).
#: On a busy machine a second process adds its CPU (10-20% more in all) without a core to run
#: on, and the read takes longer.
IDLE_CPU = True
#: The share of the file's bytes the helper reads (the reader also runs its loop over them).
HELPER_SHARE = 0.48
#: The lines of a batch of the helper's spans (pickled as read, unpickled one at a time).
_BATCH_LINES = 200
#: As ``_select.PENDING_SPANS``.
PENDING_SPANS = 5_000
_SESSION_KEYS = ("gen_ai.conversation.id", "gcp.vertex.agent.session_id")
_NO_SESSION: dict[str, Any] = {}
#: A trace's turns as the helper read them: its span count, and ``trace_turns``'s answer or error.
_Read = tuple[int, Union[tuple[list[Turn], Optional[Finding]], DataError]]


class Handed(NamedTuple):
    """A span the helper read. ``attributes``: its session ids only (what ``_select`` groups
    traces by); ``wanted``: whether it makes its trace wanted; ``peeked``/``flat``: whether
    the helper took its ``RawSpan`` look / flattened it without an error."""

    trace_id: str
    span_id: str
    parent_id: Optional[str]
    attributes: dict[str, Any]
    wanted: bool
    line: int
    index: int  # its place among its line's spans
    events: bool
    peeked: bool
    flat: bool


#: Where the helper's row of a span (a list, made a ``Handed`` when sent) keeps what it learns late.
_ATTRIBUTES, _WANTED, _PEEKED, _FLAT = (
    Handed._fields.index(n) for n in ("attributes", "wanted", "peeked", "flat")
)


@dataclass
class _Handoff:
    """What the helper read: the spans (``Handed``), the log records read before a span
    (a list), and the error that stops the read, in file order; each line's place in the file;
    the turns of the traces it read whole."""

    entries: list[bytes] = field(default_factory=list)  # pickled, a batch of lines each
    lines: dict[int, tuple[int, int]] = field(default_factory=dict)
    turns: dict[str, _Read] = field(default_factory=dict)


def shared_read(
    path: Path, ids: Optional[set[str]], texts: set[str], *, content: bool, beside: bool
) -> Optional[Shared]:
    """The helper started on the second half of ``path`` (``None``: one process reads it)."""
    if beside or not _worth_it(path):
        return None
    size = path.stat().st_size
    with path.open("rb") as handle:
        handle.seek(int(size * (1 - HELPER_SHARE)))
        handle.readline()
        start = handle.tell()
    if start >= size:
        return None
    # pickled as it is written (no copy of it held); on any failure, nothing or a part of it:
    # the reader reads this half itself, meeting the failure there if it is one
    pid, reading = forked(lambda: _helper(path, start, ids, texts, content))
    return Shared(path, start, pid, reading)


def forked(work: Callable[[], Any]) -> tuple[int, int]:
    """``work()`` run in a forked helper, its result pickled into a pipe: ``(pid, the pipe's
    reading end)``. The helper never returns; it exits 0 once the whole result is written, 1
    on any failure (the reader then finds nothing, or a part)."""
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:  # the helper: never returns
        status = 1
        try:
            os.close(reading)
            with os.fdopen(writing, "wb") as out:
                pickle.dump(work(), out, pickle.HIGHEST_PROTOCOL)
            status = 0
        finally:
            os._exit(status)
    os.close(writing)
    return pid, reading


def _worth_it(path: Path) -> bool:
    try:
        if path.stat().st_size < PARALLEL_FROM_BYTES:
            return False
    except OSError:
        return False
    return can_fork() and is_jsonl(path)


def can_fork() -> bool:
    """Whether a forked helper may run beside this process (``agenteval.plugins.can_fork``:
    a second CPU idle unless ``IDLE_CPU`` is off)."""
    return plugins.can_fork(idle=IDLE_CPU)


class Shared:
    """The reader's side: its half's spans, then the helper's (``spans``); a ``Handed`` span
    whole (``built``); a trace's turns (``turns``)."""

    def __init__(self, path: Path, start: int, pid: int, reading: int) -> None:
        self.path = path
        self.where = str(path)
        self.start = start
        self.pid = pid
        self.reading = reading
        self.handoff: Optional[_Handoff] = None
        self._line: tuple[int, list[tuple[Any, str]]] = (0, [])

    def spans(self, records: list[dict[str, Any]], kept: dict[str, Any]) -> Iterator[tuple[int, Any]]:
        """``iter_spans(path, records, whole=kept)``: the first half read here, then the helper's."""
        make = _make(kept)
        try:
            yield from jsonl_part(self.path, records, make, first=1, offset=0, until=self.start)
        except BaseException:
            self.close()
            raise
        handoff = self._collect()
        if handoff is None:  # the helper failed: this half read here too
            first = _lines_before(self.path, self.start) + 1
            yield from jsonl_part(self.path, records, make, first=first, offset=self.start, until=None)
            return
        self.handoff = handoff
        batches = handoff.entries
        while batches:
            yield from self._batch(pickle.loads(batches.pop(0)), records, kept)

    def _batch(
        self, entries: list[Any], records: list[dict[str, Any]], kept: dict[str, Any]
    ) -> Iterator[tuple[int, Any]]:
        where = self.where
        for entry in entries:
            if type(entry) is Handed:
                if entry.flat if (entry.events or entry.trace_id in kept) else entry.peeked:
                    yield entry.line, entry
                else:  # what the one-process read makes of it, or its error
                    item, at = self._item(entry)
                    yield entry.line, _raw_span(item, at, where, whole=kept)
            elif type(entry) is tuple:
                records.extend(entry[1])
            else:
                raise entry

    def built(self, found: Union[Handed, RawSpan, Span]) -> Union[Handed, Span]:
        """``_select._built``: a ``Handed`` span the helper flattened stands for itself; any
        other is flattened here (with the one-process read's error)."""
        kind = type(found)
        if kind is RawSpan:
            return found.span(self.where)  # type: ignore[union-attr]
        if kind is Handed and not found.flat:  # type: ignore[union-attr]
            return self._span(found)  # type: ignore[arg-type]
        return found  # type: ignore[return-value]

    def turns(self, trace: str, spans: list[Any], *, content: bool) -> tuple[list[Turn], Optional[Finding]]:
        """``trace_turns``: the helper's when ``spans`` are all the spans it read of the trace."""
        handoff = self.handoff
        if handoff is not None and spans and all(type(span) is Handed for span in spans):
            read = handoff.turns.get(trace)
            if read is not None and read[0] == len(spans):
                found = read[1]
                if isinstance(found, DataError):
                    raise found
                del handoff.turns[trace]
                return found
        whole = [self._span(span) if type(span) is Handed else span for span in spans]
        return trace_turns(trace, whole, content=content)

    def _span(self, found: Handed) -> Span:
        return _span(*self._item(found), self.where)

    def _item(self, found: Handed) -> tuple[Any, str]:
        """The span's item in its line (read again; a line's items kept for its next span)."""
        number, items = self._line
        if number != found.line:
            assert self.handoff is not None
            offset, length = self.handoff.lines[found.line]
            items = [
                it
                for _, it in jsonl_part(
                    self.path, [], _capture, first=found.line, offset=offset, until=offset + length
                )
            ]
            self._line = (found.line, items)
        return items[found.index]

    def _collect(self) -> Optional[_Handoff]:
        """The helper's handoff (``None``: it failed), once it has finished."""
        handoff: Optional[_Handoff] = None
        try:
            with os.fdopen(self.reading, "rb") as handle:
                self.reading = -1
                try:  # unpickled as it is read (no copy of its bytes held)
                    handoff = pickle.load(handle)
                except Exception:  # noqa: BLE001  # nothing, or a part: the helper failed
                    handoff = None
        finally:
            _, status = os.waitpid(self.pid, 0)
            self.pid = 0
        return handoff if status == 0 and type(handoff) is _Handoff else None

    def close(self) -> None:
        """Let the helper go (the read stopped before its half)."""
        if self.reading >= 0:
            os.close(self.reading)
            self.reading = -1
        if self.pid:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = 0


def _make(kept: dict[str, Any]) -> Callable[[Any, str, str], Any]:
    def make(item: Any, at: str, where: str) -> Any:
        return _raw_span(item, at, where, whole=kept)

    return make


def _capture(item: Any, at: str, where: str) -> tuple[Any, str]:
    return item, at


def _lines_before(path: Path, offset: int) -> int:
    """The number of line ends in the first ``offset`` bytes of ``path``."""
    count = 0
    with path.open("rb") as handle:
        while offset > 0:
            chunk = handle.read(min(offset, 1 << 22))
            if not chunk:
                break
            count += chunk.count(b"\n")
            offset -= len(chunk)
    return count


def _helper(path: Path, start: int, ids: Optional[set[str]], texts: set[str], content: bool) -> _Handoff:
    """The helper's read of the lines from byte ``start`` (see the module docstring)."""
    from ._otlp import _jsonl

    helper = _Helper(path, ids, texts, content)
    records: list[dict[str, Any]] = []
    rows = helper.rows
    try:
        for number, (item, at) in _jsonl(helper.numbered(start), helper.where, records, _capture):
            if records:
                rows.append(("records", records))
                records = []
            helper.span(number, item, at)
    except DataError as exc:  # where the one-process read stops too
        if records:
            rows.append(("records", records))
        rows.append(exc)
        helper.handoff.turns.clear()
    else:
        if records:
            rows.append(("records", records))
        helper.read({t for t in helper.whole if t not in helper.broken})
    helper.send(len(rows))
    return helper.handoff


class _Helper:
    """The helper's state: ``_select``'s loop, for the traces it finds wanted itself."""

    def __init__(self, path: Path, ids: Optional[set[str]], texts: set[str], content: bool) -> None:
        from ._select import _LastLook, _wanted

        self.path = path
        self.where = str(path)
        self.ids = ids
        self.content = content
        self.looked = _LastLook(texts)
        self.wanted_by = _wanted
        self.handoff = _Handoff()
        #: Each span's ``Handed`` fields (``flat`` set when flattened), log records, the error:
        #: those not sent yet (``send``).
        self.rows: list[Any] = []
        self.counts: dict[str, int] = defaultdict(int)
        self.wanted: set[str] = set()
        self.whole: dict[str, list[Span]] = {}  # the flattened spans of wanted traces
        self.pending: dict[str, list[tuple[int, Any, str, Any]]] = defaultdict(list)
        self.pending_count = 0
        self.broken: set[str] = set()  # wanted traces with a span not flattened: read by the reader
        self.touched: set[str] = set()
        self.rooted: set[str] = set()
        self.line = 0
        self.index = 0
        self.lines = 0

    def unsent(self) -> int:
        """How many of ``rows`` can be sent: those before the first one still pending (whose
        ``flat`` may change)."""
        waiting = {id(entry[0]) for entries in self.pending.values() for entry in entries}
        if not waiting:
            return len(self.rows)
        return next(n for n, row in enumerate(self.rows) if id(row) in waiting)

    def send(self, count: int) -> None:
        """The first ``count`` rows pickled into the handoff, as ``Handed`` spans."""
        if count:
            batch = [Handed(*row) if type(row) is list else row for row in self.rows[:count]]
            self.handoff.entries.append(pickle.dumps(batch, pickle.HIGHEST_PROTOCOL))
            del self.rows[:count]

    def numbered(self, start: int) -> Iterator[tuple[int, bytes, int]]:
        """``_numbered_lines`` from byte ``start``, each line's place kept."""
        from ._otlp import _BUFFER, _numbered_lines

        lines = self.handoff.lines
        with self.path.open("rb", buffering=_BUFFER) as handle:
            handle.seek(start)
            first = _lines_before(self.path, start) + 1
            for number, raw, offset in _numbered_lines(handle, None, first=first, offset=start):
                lines[number] = (offset, len(raw))
                yield number, raw, offset

    def span(self, number: int, item: Any, at: str) -> None:
        """One span of line ``number``, as ``_select.read_turns`` takes it."""
        if number != self.line:
            # the traces of the lines before, with their root, read as turns (a later span of
            # one makes it read by the reader)
            self.read({t for t in self.touched & self.rooted if t in self.whole and t not in self.broken})
            self.touched.clear()
            self.line, self.index = number, 0
            self.lines += 1
            if self.lines % _BATCH_LINES == 0:
                self.send(self.unsent())
        head = _head(item, at, self.where)
        trace = head[0]
        if trace in self.handoff.turns:
            self.breaks(trace)
        self.counts[trace] += 1
        self.touched.add(trace)
        if head[2] is None:
            self.rooted.add(trace)
        events = bool(item.get("events"))
        row: list[Any] = [
            trace,
            head[1],
            head[2],
            _NO_SESSION,
            False,
            number,
            self.index,
            events,
            False,
            False,
        ]
        self.rows.append(row)
        self.index += 1
        span = (
            self.flatten(row, item, at, head) if events or trace in self.wanted or self.ids is None else None
        )
        seen: Optional[dict[str, Any]] = None
        if span is not None and (events or not self.looked.texts):  # (a flattened span reads as its look)
            row[_PEEKED] = True
            seen = span.attributes
        elif not events:
            try:
                seen = attributes_of(item.get("attributes"), f"{at}.attributes", self.where, only=PEEK_KEYS)
                row[_PEEKED] = True
            except DataError:
                pass
        if seen is not None:
            if _SESSION_KEYS[0] in seen or _SESSION_KEYS[1] in seen:
                row[_ATTRIBUTES] = {k: seen[k] for k in _SESSION_KEYS if k in seen}
            row[_WANTED] = self.ids is None or self.wanted_by(
                trace, head[1], seen, self.ids, self.looked, set()
            )
        self.keep(trace, row, item, at, head, span)

    def keep(self, trace: str, row: list[Any], item: Any, at: str, head: Any, span: Optional[Span]) -> None:
        """The span kept with its trace's (wanted), or pending until its trace is."""
        if trace in self.wanted:
            if span is None:
                self.breaks(trace)
            elif trace not in self.broken:
                self.whole[trace].append(span)
            return
        if not row[_WANTED]:
            self.pending[trace].append((row, item, at, head))
            self.pending_count += 1
            if self.pending_count > PENDING_SPANS:  # (as ``_select``: read by the reader, if needed)
                for dropped in list(self.pending):
                    self.breaks(dropped)
                self.pending.clear()
                self.pending_count = 0
            return
        self.wanted.add(trace)
        spans: list[Span] = []
        for earlier in self.pending.pop(trace, []):
            self.pending_count -= 1
            made = self.flatten(*earlier)
            if made is not None:
                spans.append(made)
        if span is None:
            span = self.flatten(row, item, at, head)
        if span is not None:
            spans.append(span)
        if self.counts[trace] != len(spans):  # a span not flattened, or dropped from ``pending``
            self.breaks(trace)
        if trace not in self.broken:
            self.whole[trace] = spans

    def flatten(self, row: list[Any], item: Any, at: str, head: Any) -> Optional[Span]:
        try:
            span = _flattened(item, at, self.where, head)
        except DataError:
            return None
        row[_FLAT] = True
        return span

    def breaks(self, trace: str) -> None:
        """``trace``'s turns are read by the reader."""
        self.broken.add(trace)
        self.whole.pop(trace, None)
        self.handoff.turns.pop(trace, None)

    def read(self, traces: set[str]) -> None:
        for trace in traces:
            spans = self.whole.pop(trace)
            try:
                found: Any = trace_turns(trace, spans, content=self.content)
            except DataError as exc:
                found = exc
            self.handoff.turns[trace] = (self.counts[trace], found)
