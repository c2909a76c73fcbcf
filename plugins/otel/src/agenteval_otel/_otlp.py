"""Reading trace files into plain spans.

Accepted: an ``ExportTraceServiceRequest`` (``resourceSpans[].scopeSpans[].spans[]``, or the
legacy ``instrumentationLibrarySpans``), Tempo's API answers (``batches`` instead of
``resourceSpans``, and the ``{"trace": ...}`` wrapper), Jaeger's JSON (``data``, see
``_jaeger``), and JSONL with one request or one span per line. OTLP log requests
(``resourceLogs``) in the file, or in the logs file beside it (``NAME.logs.EXT``), give their
content to the spans they name (``_logs``): what ``EVENT_ONLY`` capture records.
Attributes are flattened from ``AnyValue`` (``intValue`` is a string in JSON; arrays and
key-value lists become lists and objects) or taken as they are when already plain; ids are
hex (the OTLP/JSON spec) or base64 (some exporters), normalised to lowercase hex; attributes
that hold JSON text (messages, tool arguments and results) are parsed, and kept as text when
they are not JSON (``<elided>``). A damaged file is a ``DataError`` naming the line or span.
"""

from __future__ import annotations

import codecs
import functools
import json
import os
from collections import defaultdict
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Optional, Union

from agenteval.errors import DataError
from pydantic_core import from_json

from ._jaeger import is_jaeger, jaeger_spans, jaeger_trace_spans
from ._logs import LOG_KEYS, log_records, merge_logs
from ._span import HEX_DIGITS, Span, attributes_of, content_from_events, hex_id, list_at, loads, shown

__all__ = [
    "PEEK_KEYS",
    "RawSpan",
    "Span",
    "is_jsonl",
    "iter_spans",
    "jsonl_part",
    "logs_beside",
    "read_spans",
    "read_traces",
    "request_spans",
    "sniff",
]

#: An export request's list of resources; Tempo's API calls it ``batches``.
_REQUEST_KEYS = ("resourceSpans", "resource_spans", "batches")
_SCOPE_KEYS = ("scopeSpans", "scope_spans", "instrumentationLibrarySpans", "instrumentation_library_spans")
_SPAN_KEYS = {"traceId", "trace_id", "spanId", "span_id"}
#: What turns a span's item, its place and the file into what is yielded (``_span``, ``_raw_span``).
_Make = Callable[[Any, str, str], Any]
#: The attributes that tell whether a span's trace is wanted (``_select``): case and session
#: ids, and the model input a first user message is in.
PEEK_KEYS = frozenset(
    {
        "agenteval.case_id",
        "gen_ai.conversation.id",
        "gcp.vertex.agent.session_id",
        "gen_ai.input.messages",
        "gcp.vertex.agent.llm_request",
    }
)


def sniff(head: bytes) -> bool:
    """Whether a file starting with ``head`` is a trace file this reader reads (by its first keys)."""
    from agenteval.plugins import leading_keys

    keys = leading_keys(head)
    if keys[:1] and keys[0] in (*_REQUEST_KEYS, *LOG_KEYS):
        return True
    if keys[:1] == ("data",):  # Jaeger's {"data": [{"traceID": ..., "spans": [...]}]}
        start = head.find(b"{", head.find(b'"data"'))
        inner = leading_keys(head[start:]) if start >= 0 else ()
        return bool({"traceID", "spans"}.intersection(inner))
    if keys[:1] == ("trace",):  # Tempo's {"trace": {"batches" | "resourceSpans": [...]}}
        start = head.find(b"{", head.find(b'"trace"'))
        inner = leading_keys(head[start:]) if start >= 0 else ()
        return bool(inner) and inner[0] in _REQUEST_KEYS
    first = head.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    try:
        line = json.loads(first)
    except _REFUSALS:
        return bool(keys[:1]) and keys[0] in _SPAN_KEYS  # a long first line, cut off
    return isinstance(line, dict) and (any(k in line for k in (*_REQUEST_KEYS, *LOG_KEYS)) or _is_span(line))


def _is_span(item: dict[str, Any]) -> bool:
    return ("traceId" in item or "trace_id" in item) and ("spanId" in item or "span_id" in item)


def read_spans(path: Path) -> list[Span]:
    """Every span of the file at ``path`` (see the module docstring), with the content of the
    log records in it or in its logs file beside it (``logs_beside``)."""
    records: list[dict[str, Any]] = []
    spans = [span for _, span in iter_spans(path, records)]
    beside = logs_beside(path)
    if beside is not None:
        spans.extend(span for _, span in iter_spans(beside, records, logs_only=True))
    if records:
        merge_logs(spans, records, str(path))
    return spans


def read_traces(path: Path) -> dict[str, list[Span]]:
    """``read_spans``'s spans by trace id, for ``turns_of_traces`` (which frees each trace's
    spans once its turns are built: no flat list of them is kept)."""
    traces: dict[str, list[Span]] = defaultdict(list)
    for span in read_spans(path):
        traces[span.trace_id].append(span)
    return dict(traces)


def logs_beside(path: Path) -> Optional[Path]:
    """The OTLP logs file read with the spans file ``path``: ``NAME.logs.EXT`` beside
    ``NAME.EXT`` (``trace.json`` → ``trace.logs.json``), when it exists (``None`` for a
    path with no name: ``''``, ``.``)."""
    if not path.name:
        return None
    suffix = path.suffix
    stem = path.name[: -len(suffix)] if suffix else path.name
    candidate = path.with_name(f"{stem}.logs{suffix}")
    return candidate if candidate.is_file() and candidate != path else None


#: The read buffer of a trace file: a JSONL file's lines (a trace each, tens of kilobytes) are
#: read in about a third of the CPU the default 8 KB buffer takes.
_BUFFER = 1 << 20


def iter_spans(
    path: Path,
    records: list[dict[str, Any]],
    *,
    logs_only: bool = False,
    lines: Optional[Container[int]] = None,
    whole: Optional[Container[str]] = None,
) -> Iterator[tuple[int, Any]]:
    """The spans of one file in file order, each with its line (JSONL; in a large JSON document
    read a resource at a time, the resource's number from 1, as if each were a line; 0 in a JSON
    document read whole), the log records it holds added to ``records``. JSONL is read line by
    line, never whole; with ``lines``, only those lines are read (a second look at a JSONL file;
    a JSON document is read again whole, or streamed again). With ``whole``,
    only the OTLP spans of the traces it holds come flattened; the others come as ``RawSpan``
    (checked, not flattened; Jaeger's are ``Span``)."""
    make: _Make = _span if whole is None else functools.partial(_raw_span, whole=whole)
    where = str(path)
    with path.open("rb", buffering=_BUFFER) as handle:
        if _is_jsonl(handle, where):
            handle.seek(0)
            yield from _jsonl(_numbered_lines(handle, lines), where, records, make)
            return
        handle.seek(0)
        path_in = None if logs_only else _streamed_path(handle)
        if path_in is not None:
            yield from _streamed(handle, path_in, records, where, make)
            return
        raw = handle.read()
    spans = _whole(raw, where, records, make, logs_only=logs_only, name=path.name)
    del raw  # parsed: the document's bytes are let go while its spans are read
    for span in spans:
        yield 0, span


def _whole(
    raw: bytes,
    where: str,
    records: list[dict[str, Any]],
    make: _Make,
    *,
    logs_only: bool = False,
    name: str = "",
) -> Iterable[Any]:
    """The spans of a JSON document read whole (its log records added to ``records``)."""
    document = _document(raw, where)
    del raw
    if isinstance(document, dict) and isinstance(document.get("trace"), dict) and len(document) == 1:
        document = document["trace"]  # Tempo's wrapper
    if isinstance(document, dict) and any(k in document for k in LOG_KEYS):
        records.extend(log_records(document, "", where))
        if not any(k in document for k in _REQUEST_KEYS):
            return ()
    elif logs_only:
        raise DataError(
            f"read as the OTLP logs beside {name.replace('.logs', '')}, but it holds no "
            "'resourceLogs'. Fix: rename it, or export the agent's logs there",
            source=where,
        )
    if isinstance(document, dict) and any(k in document for k in _REQUEST_KEYS):
        return _request(document, "", where, make)
    if is_jaeger(document):
        return jaeger_spans(document, where)
    if isinstance(document, dict) and _is_span(document):
        return [make(document, "the span", where)]
    raise DataError(_NOT_A_TRACE, source=where)


#: A JSON document of at least this many bytes is read an element of its list of resources
#: (Jaeger: of traces) at a time (``_streamed``), never whole.
STREAM_FROM_BYTES = 32 << 20


def _streamed_path(handle: BinaryIO) -> Optional[tuple[str, ...]]:
    """The keys to the list a JSON document is read by (``_streamed``): when it is large, and
    that list is its first member (``resourceSpans``, ``batches``; Tempo's ``trace`` wrapper's;
    Jaeger's ``data``); ``None`` otherwise."""
    from agenteval.plugins import leading_keys

    if os.fstat(handle.fileno()).st_size < STREAM_FROM_BYTES:
        return None
    head = handle.read(65536)
    handle.seek(0)
    keys = leading_keys(head)[:1]
    if keys == ("trace",):
        start = head.find(b"{", head.find(b'"trace"'))
        inner = leading_keys(head[start:])[:1] if start >= 0 else ()
        return ("trace", inner[0]) if inner and inner[0] in _REQUEST_KEYS else None
    return keys if keys and keys[0] in (*_REQUEST_KEYS, "data") else None


def _streamed(
    handle: BinaryIO, keys: tuple[str, ...], records: list[dict[str, Any]], where: str, make: _Make
) -> Iterator[tuple[int, Any]]:
    """The spans of a large JSON document (``_streamed_path``), read a resource (or a Jaeger
    trace) at a time: what ``iter_spans`` gives for the document read whole, with the same
    errors for a damaged file. A document of another shape than its first keys tell is read
    whole (as nothing of it has been given yet)."""
    from agenteval.plugins import iter_json_array

    rest: dict[tuple[str, ...], Any] = {}
    given = False
    elements = iter_json_array(handle, keys, rest)
    try:
        try:
            for index, element in enumerate(elements):
                if keys == ("data",):
                    if index == 0 and not is_jaeger({"data": [element]}):
                        raise DataError(_NOT_A_TRACE, source=where)
                    spans: Iterable[Any] = jaeger_trace_spans(element, index, where)
                else:
                    spans = _resource_spans(element, f"{keys[-1]}[{index}]", where, make)
                for span in spans:
                    given = True
                    yield index + 1, span  # a resource read is as a line read (``_select``'s early turns)
        except DataError:
            # an element's problem (a span's); the whole read parses the document first, so a
            # damaged document's own error comes first: the rest is read (and let go) for it
            for _ in elements:
                pass
            raise
    except DataError:  # a span's (a ``ValueError`` too)
        raise
    except LookupError as shape:
        if given:
            raise DataError(f"not read: {shape}. Fix: export the trace again", source=where) from None
        handle.seek(0)
        yield from ((0, span) for span in _whole(handle.read(), where, records, make))
        return
    except UnicodeDecodeError as exc:
        raise _not_utf8(exc, where) from None
    except _REFUSALS as exc:
        raise _not_json(exc, where) from None
    if any(len(key) < len(keys) for key in rest):  # Tempo's wrapper beside other members
        raise DataError(_NOT_A_TRACE, source=where)
    logs = {key[-1]: value for key, value in rest.items() if key[-1] in LOG_KEYS and len(key) == len(keys)}
    if logs:
        records.extend(log_records(logs, "", where))


def _document(raw: bytes, where: str) -> Any:
    try:  # the bytes themselves (no text copy of a big file); what it refuses is read again below
        return from_json(raw[3:] if raw.startswith(codecs.BOM_UTF8) else raw)
    except ValueError:
        pass
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _not_utf8(exc, where) from None
    try:
        return loads(text)
    except _REFUSALS as whole:
        raise _not_json(whole, where) from None


def _not_utf8(exc: UnicodeDecodeError, where: str) -> DataError:
    return DataError(f"not UTF-8 text (byte {exc.start}); an OTLP/JSON file is UTF-8", source=where)


def _not_json(exc: BaseException, where: str) -> DataError:
    return DataError(
        f"not valid JSON: {_why(exc)}. Fix: export the trace again (the file looks cut off or damaged)",
        source=where,
    )


_NOT_A_TRACE = (
    "not a trace: expected OTLP/JSON ('resourceSpans'), Tempo ('batches'), Jaeger ('data'), or "
    "one span or request per line"
)


#: What ``json.loads`` raises on text it refuses: a ``JSONDecodeError`` (a ``ValueError``) for bad
#: syntax, a plain ``ValueError`` for an integer longer than the interpreter converts (4,300 digits),
#: a ``RecursionError`` for nesting deeper than the stack.
_REFUSALS = (ValueError, RecursionError)


def _why(exc: BaseException, *, one_line: bool = False) -> str:
    """Why ``json.loads`` refused the text, and where when it knows (the column alone for a JSONL
    line)."""
    if isinstance(exc, json.JSONDecodeError):
        return (
            f"{exc.msg} at column {exc.colno}"
            if one_line
            else (f"{exc.msg} at line {exc.lineno}, column {exc.colno}")
        )
    if isinstance(exc, RecursionError):
        return "arrays or objects nested too deeply to read"
    # "Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits; use
    # sys.set_int_max_str_digits() to increase the limit": the advice is for programmers, not users
    return str(exc).split(";", 1)[0] or type(exc).__name__


def _is_jsonl(handle: BinaryIO, where: str) -> bool:
    """Whether the file is JSON lines: its first line is a whole JSON object and more follow
    (a JSON document whose first line is a whole object has nothing after it). The first line
    is parsed only once a second one is found: a one-line document is parsed once, later."""
    first: Optional[str] = None
    for _, raw, offset in _numbered_lines(handle, None):
        line = _decoded(raw, offset, where)
        if not line.strip():
            continue
        if first is None:
            first = line
            continue
        try:
            return isinstance(loads(first), dict)
        except _REFUSALS:
            return False
    return False


def _numbered_lines(
    handle: BinaryIO,
    wanted: Optional[Container[int]],
    *,
    first: int = 1,
    offset: int = 0,
    until: Optional[int] = None,
) -> Iterator[tuple[int, bytes, int]]:
    """Each line of a binary file, numbered from 1, with the file offset of its first byte (a
    UTF-8 byte-order mark dropped); with ``wanted``, only those lines. From the middle of the
    file: ``handle`` at the start of line ``first``, at byte ``offset``; with ``until``, the
    lines that start before that byte."""
    for number, raw in enumerate(handle, start=first):
        if until is not None and offset >= until:
            return
        if wanted is None or number in wanted:
            start = 3 if number == 1 and raw.startswith(codecs.BOM_UTF8) else 0
            yield number, raw[start:] if start else raw, offset + start
        offset += len(raw)


def jsonl_part(
    path: Path, records: list[dict[str, Any]], make: _Make, *, first: int, offset: int, until: Optional[int]
) -> Iterator[tuple[int, Any]]:
    """``iter_spans`` of the lines of a JSONL file from line ``first`` (at byte ``offset``) to
    the line that starts at byte ``until`` (``None``: to the end), each span made by ``make``."""
    where = str(path)
    with path.open("rb", buffering=_BUFFER) as handle:
        handle.seek(offset)
        yield from _jsonl(
            _numbered_lines(handle, None, first=first, offset=offset, until=until), where, records, make
        )


def is_jsonl(path: Path) -> bool:
    """Whether ``path`` holds JSON lines (``_is_jsonl``); ``False`` when it cannot be read as
    text either (the read says why)."""
    try:
        with path.open("rb", buffering=_BUFFER) as handle:
            return _is_jsonl(handle, str(path))
    except (OSError, DataError):
        return False


def _decoded(raw: bytes, offset: int, where: str) -> str:
    """A line's text; a ``DataError`` naming the byte (from the file's start) that is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(
            f"not UTF-8 text (byte {offset + exc.start}); an OTLP/JSON file is UTF-8", source=where
        ) from None


def _jsonl(
    lines: Iterable[tuple[int, bytes, int]], where: str, records: list[dict[str, Any]], make: _Make
) -> Iterator[tuple[int, Any]]:
    for number, raw, offset in lines:
        try:  # the line's bytes, not a text copy; what pydantic-core refuses is read again below
            item = from_json(raw)
        except ValueError:
            line = _decoded(raw, offset, where)
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except _REFUSALS as exc:
                raise DataError(
                    f"line {number}: not valid JSON ({_why(exc, one_line=True)}). Fix: each line of an "
                    "OTLP JSONL file is one span or one export request; the file looks cut off or damaged",
                    source=where,
                ) from None
        if isinstance(item, dict) and any(k in item for k in LOG_KEYS):
            records.extend(log_records(item, f"line {number}: ", where))
        elif isinstance(item, dict) and any(k in item for k in _REQUEST_KEYS):
            for span in _request(item, f"line {number}: ", where, make):
                yield number, span
        elif isinstance(item, dict):
            yield number, make(item, f"line {number}: span", where)
        else:
            raise DataError(f"line {number}: expected a span or an export request object", source=where)


def request_spans(document: Any, where: str) -> list[Span]:
    """The spans of one OTLP trace export request (``ExportTraceServiceRequest`` as JSON), as
    a receiver gets them; ``DataError`` (with ``where``) when it is not one."""
    if not isinstance(document, dict) or not any(k in document for k in _REQUEST_KEYS):
        raise DataError("not an OTLP trace export request: expected 'resourceSpans'", source=where)
    return list(_request(document, "", where, _span))


def _request(document: dict[str, Any], prefix: str, where: str, make: _Make) -> Iterator[Any]:
    """The spans of one export request; each resource's entry is let go (``None`` in its list)
    once its spans are read, so a big document's parsed JSON shrinks as its spans grow."""
    key = next(k for k in _REQUEST_KEYS if k in document)
    resources = list_at(document[key], f"{prefix}{key}", where)
    for r, resource in enumerate(resources):
        resources[r] = None
        yield from _resource_spans(resource, f"{prefix}{key}[{r}]", where, make)


def _resource_spans(resource: Any, at: str, where: str, make: _Make) -> Iterator[Any]:
    """The spans of one entry of an export request's list of resources, at ``at``."""
    if not isinstance(resource, dict):
        raise DataError(f"{at}: expected an object", source=where)
    for scope_key in _SCOPE_KEYS:
        for s, scope in enumerate(list_at(resource.get(scope_key), f"{at}.{scope_key}", where)):
            base = f"{at}.{scope_key}[{s}].spans"
            if not isinstance(scope, dict):
                raise DataError(f"{base[:-6]}: expected an object", source=where)
            for i, span in enumerate(list_at(scope.get("spans"), base, where)):
                yield make(span, f"{base}[{i}]", where)


#: Trace and parent span ids as read (``hex_id``), by their text: a trace's spans repeat its
#: id and mostly a few parents'. Emptied when it holds ``_SHARED_IDS``.
_shared_ids: dict[str, str] = {}
_SHARED_IDS = 4096


def _shared_id(value: Any, size: int, at: str, where: str, key: str) -> str:
    """``hex_id`` of an id many spans share, read once per text."""
    found = _shared_ids.get(value) if type(value) is str else None
    if found is not None and len(found) == 2 * size:
        return found
    found = hex_id(value, size, at, where, key)
    if len(_shared_ids) >= _SHARED_IDS:
        _shared_ids.clear()
    _shared_ids[value] = found
    return found


def _head(item: Any, at: str, where: str) -> tuple[str, str, Optional[str], int, int]:
    """A span's ids and times, checked: trace id, span id, parent id, start, end. (The common
    spellings read inline: this runs for every span of a file.)"""
    if not isinstance(item, dict):
        raise DataError(f"{at}: expected a span object", source=where)
    get = item.get
    trace = get("traceId") if "traceId" in item else get("trace_id")
    trace_id = _shared_ids.get(trace) if type(trace) is str else None
    if trace_id is None or len(trace_id) != 32:
        trace_id = _shared_id(trace, 16, at, where, ".traceId")
    span = get("spanId") if "spanId" in item else get("span_id")
    if type(span) is str and len(span) == 16 and not span.strip(HEX_DIGITS):
        span_id = span.lower()
    else:
        span_id = hex_id(span, 8, at, where, ".spanId")
    parent = get("parentSpanId") if "parentSpanId" in item else get("parent_span_id")
    parent_id = None
    if parent:
        parent_id = _shared_ids.get(parent) if type(parent) is str else None
        if parent_id is None or len(parent_id) != 16:
            parent_id = _shared_id(parent, 8, at, where, ".parentSpanId")
    start = get("startTimeUnixNano") if "startTimeUnixNano" in item else get("start_time_unix_nano")
    end = get("endTimeUnixNano") if "endTimeUnixNano" in item else get("end_time_unix_nano")
    try:
        return trace_id, span_id, parent_id, int(start), int(end)
    except (TypeError, ValueError, OverflowError):  # absent (0), or not a time: as ``_time`` says it
        return (
            trace_id,
            span_id,
            parent_id,
            _time(start, at, where, ".startTimeUnixNano"),
            _time(end, at, where, ".endTimeUnixNano"),
        )


def _span(item: Any, at: str, where: str) -> Span:
    return _flattened(item, at, where, _head(item, at, where))


def _flattened(item: Any, at: str, where: str, head: tuple[str, str, Optional[str], int, int]) -> Span:
    """The ``Span`` of a checked item (``_head``)."""
    trace_id, span_id, parent_id, start, end = head
    attributes = attributes_of(item.get("attributes"), f"{at}.attributes", where)
    events = item.get("events")
    if events:  # some exporters put content there
        content_from_events(attributes, events, at, where)
    name = item.get("name")
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=parent_id,
        name=str(name) if name is not None else "",
        start=start,
        end=max(end, start),
        attributes=attributes,
        where=f"{at} ({name!r})" if name else at,
    )


@dataclass(slots=True)
class RawSpan:
    """A span as the file has it, checked as ``Span`` is built from it (the same errors), with
    only the attributes in ``PEEK_KEYS`` taken (JSON text left unparsed): enough to tell whether
    its trace is wanted, for a fraction of the cost of flattening it (``span`` does that)."""

    head: tuple[str, str, Optional[str], int, int]
    item: dict[str, Any]
    at: str
    peek: dict[str, Any]

    @property
    def trace_id(self) -> str:
        return self.head[0]

    @property
    def span_id(self) -> str:
        return self.head[1]

    def span(self, where: str) -> Span:
        return _flattened(self.item, self.at, where, self.head)


def _raw_span(item: Any, at: str, where: str, *, whole: Container[str]) -> Union[RawSpan, Span]:
    """A ``RawSpan``; a ``Span`` when its trace is in ``whole``, or when it has events (their
    content may be what is looked at)."""
    head = _head(item, at, where)
    if head[0] in whole or item.get("events"):
        return _flattened(item, at, where, head)
    peek = attributes_of(item.get("attributes"), f"{at}.attributes", where, only=PEEK_KEYS)
    return RawSpan(head, item, at, peek)


def _time(value: Any, at: str, where: str, key: str) -> int:
    if value is None:
        return 0
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):  # (an infinite number)
        message = f"{at}{key}: expected a time in nanoseconds, got {shown(value)}"
        raise DataError(message, source=where) from None
