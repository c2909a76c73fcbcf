"""Reading only the traces the selected cases may need, so that memory does not grow with the
traces of other apps' sessions.

A trace is *wanted* when one of its spans carries an ``agenteval.case_id`` that is a selected
case's id, or a session id (``gen_ai.conversation.id``, ``gcp.vertex.agent.session_id``; or
the trace id, a session's id when no span names one) that is, or a user message whose text
is a selected case's first message. Traces that share a session id are one group, and a group
is kept whole when one of its traces is wanted: every session the matching rule (``_reader``)
can match is then read complete, and matched exactly as from the whole file.

The file is read once. Spans of traces not (yet) wanted wait in a buffer of at most
``PENDING_SPANS`` spans; past it, they are dropped and, if their group turns out to be wanted
after all, their lines are read again (JSONL; a large JSON document, read a resource at a time
with each resource as a line, is read again; a smaller one is in memory whole anyway). A
file with OTLP log records among its spans is read whole (their content may name any span).

The kept traces of a JSONL file (or a large JSON document) are read as turns, once they have
their root span, at the end of a line (a resource) when ``HELD_SPANS`` spans are kept
(``_EarlyTurns``), and their spans let go: what is
held is the turns the cases need, not the file's spans. ``lint-trace`` and ``import-trace`` read
every trace the same way.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Optional, Union

from agenteval.errors import DataError

from ._logs import merge_logs
from ._otlp import RawSpan, iter_spans, logs_beside
from ._parallel import Handed, Shared, shared_read
from ._span import Span, content_from_events, parsed, value_of
from ._turns import Finding, Turn, in_order, trace_turns, turns_of_traces

__all__ = ["HELD_SPANS", "PENDING_SPANS", "read_turns"]

#: Spans of traces not (yet) wanted held at once, before they are dropped to be read again if needed.
PENDING_SPANS = 5_000
#: Spans kept before the traces they complete are read as turns (``_EarlyTurns``): a read per
#: line, interleaved with parsing, cost a third more CPU at 10k traces than one per batch.
HELD_SPANS = 20_000
_SESSION_KEYS = ("gen_ai.conversation.id", "gcp.vertex.agent.session_id")
#: The GenAI message parts whose text a turn's user message holds (``_turns._parts``).
_TEXT_PARTS = ("text", "reasoning")


def read_turns(
    path: Path, ids: Optional[set[str]] = None, texts: Optional[set[str]] = None, *, content: bool = True
) -> tuple[list[Turn], list[tuple[str, Finding]]]:
    """``turns_of_traces`` of the traces that sessions of the cases ``ids`` (first messages
    ``texts``) may be in (see the module docstring); with ``ids`` ``None``, of every trace.
    ``content``: as ``trace_turns`` (``False``: what a lint reads). A ``DataError`` names
    the file (a turn's own error, e.g. content no message can hold, names only its span)."""
    try:
        return _read_turns(path, ids, texts, content=content)
    except DataError as exc:
        if exc.source is not None:
            raise
        raise DataError(exc.message, source=str(path)) from None


def _read_turns(
    path: Path, ids: Optional[set[str]], texts: Optional[set[str]], *, content: bool
) -> tuple[list[Turn], list[tuple[str, Finding]]]:
    where = str(path)
    texts = texts or set()
    beside = logs_beside(path)
    # read first: the content of its records tells which traces are wanted
    beside_records, beside_spans, beside_error = _read_beside(beside)
    text_spans = _spans_with_texts(beside_records, texts, where)
    records: list[dict[str, Any]] = []
    groups = _Groups()
    kept: dict[str, list[Span]] = defaultdict(list)
    pending: dict[str, list[Span]] = defaultdict(list)
    pending_count = 0
    dropped: set[str] = set()
    lines: dict[str, set[int]] = defaultdict(set)
    looked = _LastLook(texts)
    # a large JSONL file's second half read by a second process (``_parallel``)
    shared = shared_read(path, ids, texts, content=content, beside=beside is not None)
    try:
        spans, built, read = _source(path, records, kept, shared)
        # a JSONL file's traces read as turns at the end of a line (``_EarlyTurns``); not when the
        # logs beside the file may add content to any span
        early = _EarlyTurns(kept, enabled=beside is None, content=content, read=read)
        last: tuple[Optional[str], int] = (None, 0)  # the trace and line of the span read before
        for number, found in spans:
            trace = found.trace_id
            attributes = found.peek if type(found) is RawSpan else found.attributes
            groups.add(trace, attributes)
            if number and (trace, number) != last:  # a line's spans are mostly one trace's
                early.line(number)
                lines[trace].add(number)
            last = (trace, number)
            if early.reopens(trace):
                continue
            if trace not in kept and (
                ids is None
                or (
                    found.wanted
                    if type(found) is Handed
                    else _wanted(trace, found.span_id, attributes, ids, looked, text_spans)
                )
            ):
                groups.want(trace)
                kept[trace] = [built(s) for s in pending.pop(trace, [])]
                pending_count -= len(kept[trace])
                early.add(kept[trace])
            if trace in kept:
                span = built(found)
                kept[trace].append(span)
                early.add([span])
            else:
                pending[trace].append(found)
                pending_count += 1
                if pending_count > PENDING_SPANS and number:  # a JSONL line can be read again
                    dropped.update(pending)
                    pending.clear()
                    pending_count = 0
        early.line(0)
    finally:
        if shared is not None:
            shared.close()
    if beside_error is not None:
        raise beside_error
    if records or beside_spans:  # logs among the spans, or spans among the logs: read everything
        from ._otlp import read_traces

        return turns_of_traces(read_traces(path), content=content)
    wanted = groups.wanted_traces()
    again = {trace for trace in wanted if trace in dropped or trace in early.reopened}
    traces: dict[str, list[Span]] = {}
    for trace in [t for t in kept if t in wanted and t not in again]:
        traces[trace] = kept.pop(trace)
    for trace in [t for t in pending if t in wanted and t not in again]:
        traces[trace] = [built(s) for s in pending.pop(trace)]
    del kept, pending
    if again:
        _read_again(path, again, lines, traces)
    if beside_records:
        merge_logs([span for found in traces.values() for span in found], beside_records, where)
    turns, empty = turns_of_traces(traces, content=content, read=early.read)
    for trace, (found_turns, finding) in early.built.items():
        if trace in again:  # some of its spans were dropped before it was wanted: read again
            continue
        turns.extend(found_turns)
        if finding is not None:
            empty.append((trace, finding))
    empty.sort(key=lambda pair: pair[0])
    return in_order(turns), empty


def _source(
    path: Path, records: list[dict[str, Any]], kept: dict[str, list[Span]], shared: Optional[Shared]
) -> tuple[Iterator[tuple[int, Any]], Callable[[Any], Any], Callable[..., Any]]:
    """The file's spans (``iter_spans``), what makes a kept span whole (``_built``) and what reads
    a trace's turns (``trace_turns``): this process's, or shared with a helper (``_parallel``)."""
    if shared is None:
        return iter_spans(path, records, whole=kept), functools.partial(_built, where=str(path)), trace_turns
    return shared.spans(records, kept), shared.built, shared.turns


def _read_again(
    path: Path, again: set[str], lines: dict[str, set[int]], traces: dict[str, list[Span]]
) -> None:
    """The spans of the traces ``again`` read again from their ``lines``, into ``traces``."""
    where = str(path)
    numbers = {n for trace in again for n in lines[trace]}
    for _, found in iter_spans(path, [], lines=numbers, whole=again):
        if found.trace_id in again:
            traces.setdefault(found.trace_id, []).append(_built(found, where))


def _read_beside(beside: Optional[Path]) -> tuple[list[dict[str, Any]], list[Any], Optional[DataError]]:
    """The log records and spans of the logs file beside the spans file, and its error (reported
    after the spans file's own, as ``read_spans`` does)."""
    records: list[dict[str, Any]] = []
    if beside is None:
        return records, [], None
    try:
        return records, [span for _, span in iter_spans(beside, records, logs_only=True)], None
    except DataError as exc:
        return records, [], exc


class _EarlyTurns:
    """The turns of a JSONL file's traces, read at the end of a line once ``HELD_SPANS`` spans
    are kept, from the spans ``kept`` of the traces the lines added to that have their root
    span (in a process, the span that ends, and is exported, last), the spans then let go:
    memory holds the turns, not every span of the file. A trace a later line adds to is
    ``reopened`` (its turns dropped, its lines read again at the end); a trace whose turns
    cannot be read yet waits, so that errors come in the order of reading the whole file first."""

    def __init__(
        self,
        kept: dict[str, list[Span]],
        *,
        enabled: bool,
        content: bool,
        read: Callable[..., tuple[list[Turn], Optional[Finding]]] = trace_turns,
    ) -> None:
        self.kept = kept
        self.enabled = enabled
        self.content = content
        self.built: dict[str, tuple[list[Turn], Optional[Finding]]] = {}
        self.reopened: set[str] = set()
        self.touched: set[str] = set()
        self.rooted: set[str] = set()
        self.number = 0
        self.held = 0  # spans kept since the last read, of traces not read yet
        #: What reads a trace's turns (``trace_turns``; ``_parallel.Shared.turns``).
        self.read = read

    def add(self, spans: list[Span]) -> None:
        """Spans of a trace are kept (of the line read now)."""
        self.held += len(spans)
        for span in spans if self.number else ():
            self.touched.add(span.trace_id)
            if span.parent_id is None:
                self.rooted.add(span.trace_id)

    def reopens(self, trace: str) -> bool:
        """Whether ``trace`` is read again at the end (its span is not kept now)."""
        if trace not in self.built and trace not in self.reopened:  # (asked for every span)
            return False
        if trace in self.built:
            del self.built[trace]
            self.reopened.add(trace)
        return trace in self.reopened

    def line(self, number: int) -> None:
        """A span of line ``number`` is read (0: the file is read): once ``HELD_SPANS`` spans
        are kept, the traces the lines before added to are read as turns."""
        if number == self.number:
            return
        self.number = number
        if number and self.held < HELD_SPANS:
            return
        for trace in self.touched & self.rooted if self.enabled else ():
            try:
                self.built[trace] = self.read(trace, self.kept[trace], content=self.content)
            except DataError:
                continue
            del self.kept[trace]
            self.rooted.discard(trace)
        self.touched = {trace for trace in self.touched if trace in self.kept}
        self.held = sum(len(self.kept[trace]) for trace in self.touched)


def _built(found: Union[RawSpan, Span], where: str) -> Span:
    return found.span(where) if type(found) is RawSpan else found


def _wanted(
    trace: str,
    span_id: str,
    attributes: dict[str, Any],
    ids: set[str],
    looked: _LastLook,
    text_spans: set[str],
) -> bool:
    case_id = attributes.get("agenteval.case_id")
    if case_id not in (None, "") and str(case_id) in ids:
        return True
    if trace in ids or any(str(attributes.get(k)) in ids for k in _SESSION_KEYS if k in attributes):
        return True
    if looked.texts and (span_id in text_spans or looked.names_a_text(attributes)):
        return True
    return False


#: Characters a JSON string may write as an escape other than ``\u``: a text holding none of
#: them is in a JSON text without ``\u`` escapes, as it is, wherever the JSON holds it.
_ESCAPED = frozenset('"\\/') | frozenset(map(chr, range(32)))


class _LastLook:
    """Whether a span's model input holds a user message whose text is one of ``texts``
    (``user_texts``), its JSON text parsed only when it may: when a text could be in it (a
    search of the JSON text itself, for a few texts without escaped characters) and it is not
    the same input as the last span's (a model call's history repeats from call to call: the
    answer for the last input is kept)."""

    def __init__(self, texts: set[str]) -> None:
        self.texts = texts
        self.searchable = len(texts) <= 32 and not any(_ESCAPED.intersection(t) for t in texts)
        self.last: tuple[Any, Any, bool] = (None, None, False)

    def names_a_text(self, attributes: dict[str, Any]) -> bool:
        for key in _INPUT_KEYS:  # (the texts of both inputs together are the texts of each)
            value = attributes.get(key)
            if isinstance(value, str):
                if self.searchable and "\\u" not in value and not any(t in value for t in self.texts):
                    continue
                if self._names(key, value):
                    return True
            elif value is not None and not self.texts.isdisjoint(user_texts({key: value})):
                return True
        return False

    def _names(self, key: str, value: str) -> bool:
        """Whether the JSON text ``value`` of ``key`` names a text (kept for the next span's)."""
        last_key, last_value, last_names = self.last
        if key == last_key and value == last_value:
            return last_names
        names = not self.texts.isdisjoint(user_texts({key: parsed(value)}))
        self.last = (key, value, names)
        return names


#: The attributes a model call's input is in.
_INPUT_KEYS = ("gen_ai.input.messages", "gcp.vertex.agent.llm_request")


def user_texts(attributes: dict[str, Any]) -> Iterable[str]:
    """The text of every user message of a model call's input (GenAI messages, or ADK schema
    1's ``llm_request``), trimmed: the texts a turn's first user message can be."""
    messages = value_of(attributes, "gen_ai.input.messages")
    if isinstance(messages, list):
        for message in messages:
            if isinstance(message, dict) and message.get("role") == "user":
                parts = message.get("parts") or ()
                yield "\n".join(
                    p["content"]
                    for p in parts
                    if isinstance(p, dict)
                    and p.get("type") in _TEXT_PARTS
                    and isinstance(p.get("content"), str)
                    and p["content"]
                ).strip()
    request = value_of(attributes, "gcp.vertex.agent.llm_request")
    contents = request.get("contents") if isinstance(request, dict) else None
    for content in contents if isinstance(contents, list) else ():
        if isinstance(content, dict) and content.get("role") == "user":
            yield "\n".join(
                str(p["text"]) for p in content.get("parts") or () if isinstance(p, dict) and p.get("text")
            ).strip()


def _spans_with_texts(records: Sequence[Any], texts: set[str], where: str) -> set[str]:
    """The span ids whose log records give them a user message of ``texts`` (``EVENT_ONLY``
    capture), each span's records taken together as ``merge_logs`` takes them. A record that
    cannot be read is left to ``merge_logs`` to report."""
    from ._span import hex_id

    by_span: dict[str, list[Any]] = defaultdict(list)
    for index, record in enumerate(records):
        raw = record.get("spanId", record.get("span_id")) if isinstance(record, dict) else None
        if texts and raw:
            try:
                by_span[hex_id(raw, 8, f"log record {index}.spanId", where)].append(record)
            except DataError:
                continue
    found: set[str] = set()
    for span_id, given in by_span.items():
        content: dict[str, Any] = {}
        try:
            content_from_events(content, given, f"logs of span {span_id}", where)
        except DataError:
            continue
        if not texts.isdisjoint(user_texts(content)):
            found.add(span_id)
    return found


class _Groups:
    """Traces joined when they share a session id: a union-find over trace ids and session ids
    (one namespace: a session without an id is named by its trace id)."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}
        self.traces: set[str] = set()
        self.wanted: set[str] = set()

    def find(self, key: str) -> str:
        parent = self.parent.setdefault(key, key)
        while parent != key:
            grand = self.parent[parent]
            self.parent[key] = grand
            key, parent = parent, grand
        return key

    def add(self, trace: str, attributes: dict[str, Any]) -> None:
        self.traces.add(trace)
        if _SESSION_KEYS[0] not in attributes and _SESSION_KEYS[1] not in attributes:
            return  # (asked for every span: most name no session)
        for key in _SESSION_KEYS:
            value = attributes.get(key)
            if value not in (None, ""):
                root, other = self.find(trace), self.find(str(value))
                if other != root:
                    self.parent[other] = root

    def want(self, trace: str) -> None:
        self.wanted.add(trace)

    def wanted_traces(self) -> set[str]:
        roots = {self.find(trace) for trace in self.wanted}
        return {trace for trace in self.traces if self.find(trace) in roots}
