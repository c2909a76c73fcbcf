"""Reading OTLP/JSON trace files into plain spans.

Accepted: an ``ExportTraceServiceRequest`` (``resourceSpans[].scopeSpans[].spans[]``, or the
legacy ``instrumentationLibrarySpans``), Tempo's API answers (``batches`` instead of
``resourceSpans``, and the ``{"trace": ...}`` wrapper), and JSONL with one request or one span
per line.
Attributes are flattened from ``AnyValue`` (``intValue`` is a string in JSON; arrays and
key-value lists become lists and objects) or taken as they are when already plain; ids are
hex (the OTLP/JSON spec) or base64 (some exporters), normalised to lowercase hex; attributes
that hold JSON text (messages, tool arguments and results) are parsed, and kept as text when
they are not JSON (``<elided>``). A damaged file is a ``DataError`` naming the line or span.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from agenteval.errors import DataError

__all__ = ["Span", "read_spans", "sniff"]

#: Attributes whose value is JSON, parsed when a string holds it.
JSON_ATTRIBUTES = frozenset(
    {
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.system_instructions",
        "gen_ai.tool.definitions",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gcp.vertex.agent.tool_call_args",
        "gcp.vertex.agent.tool_response",
        "gcp.vertex.agent.llm_request",
        "gcp.vertex.agent.llm_response",
    }
)
#: An export request's list of resources; Tempo's API calls it ``batches``.
_REQUEST_KEYS = ("resourceSpans", "resource_spans", "batches")
_SCOPE_KEYS = ("scopeSpans", "scope_spans", "instrumentationLibrarySpans", "instrumentation_library_spans")
_SPAN_KEYS = {"traceId", "trace_id", "spanId", "span_id"}


@dataclass
class Span:
    """One span, flattened: lowercase hex ids, times in nanoseconds, plain attributes."""

    trace_id: str
    span_id: str
    parent_id: Optional[str]
    name: str
    start: int
    end: int
    attributes: dict[str, Any] = field(default_factory=dict)
    #: Where the span is in the file (``line 3``, ``resourceSpans[0].scopeSpans[1].spans[4]``).
    where: str = ""

    @property
    def operation(self) -> str:
        return str(self.attributes.get("gen_ai.operation.name") or "")


def sniff(head: bytes) -> bool:
    """Whether a file starting with ``head`` is OTLP/JSON or OTLP JSONL."""
    from agenteval.plugins import leading_keys

    keys = leading_keys(head)
    if keys[:1] and keys[0] in _REQUEST_KEYS:
        return True
    if keys[:1] == ("trace",):  # Tempo's {"trace": {"batches" | "resourceSpans": [...]}}
        start = head.find(b"{", head.find(b'"trace"'))
        inner = leading_keys(head[start:]) if start >= 0 else ()
        return bool(inner) and inner[0] in _REQUEST_KEYS
    first = head.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
    try:
        line = json.loads(first)
    except ValueError:
        return bool(keys[:1]) and keys[0] in _SPAN_KEYS  # a long first line, cut off
    return isinstance(line, dict) and (any(k in line for k in _REQUEST_KEYS) or _is_span(line))


def _is_span(item: dict[str, Any]) -> bool:
    return ("traceId" in item or "trace_id" in item) and ("spanId" in item or "span_id" in item)


def read_spans(path: Path) -> list[Span]:
    """Every span of the file at ``path`` (see the module docstring)."""
    where = str(path)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(
            f"not UTF-8 text (byte {exc.start}); an OTLP/JSON file is UTF-8", source=where
        ) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as whole:
        lines = text.splitlines()
        if not _is_jsonl(lines):
            raise DataError(
                f"not valid JSON: {whole.msg} at line {whole.lineno}, column {whole.colno}. Fix: export the "
                "trace again (the file looks cut off or damaged)",
                source=where,
            ) from None
        return list(_jsonl(lines, where))
    if isinstance(document, dict) and isinstance(document.get("trace"), dict) and len(document) == 1:
        document = document["trace"]  # Tempo's wrapper
    if isinstance(document, dict) and any(k in document for k in _REQUEST_KEYS):
        return list(_request(document, "", where))
    if isinstance(document, dict) and _is_span(document):
        return [_span(document, "the span", where)]
    raise DataError(
        "not an OTLP/JSON trace: expected an object with 'resourceSpans', or one span or request per line",
        source=where,
    )


def _is_jsonl(lines: list[str]) -> bool:
    """Whether the file is JSON lines: its first line is a whole JSON object and more follow."""
    filled = [ln for ln in lines if ln.strip()]
    if len(filled) < 2:
        return False
    try:
        return isinstance(json.loads(filled[0]), dict)
    except ValueError:
        return False


def _jsonl(lines: list[str], where: str) -> Iterator[Span]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise DataError(
                f"line {number}: not valid JSON ({exc.msg} at column {exc.colno}). Fix: each line of an "
                "OTLP JSONL file is one span or one export request; the file looks cut off or damaged",
                source=where,
            ) from None
        if isinstance(item, dict) and any(k in item for k in _REQUEST_KEYS):
            yield from _request(item, f"line {number}: ", where)
        elif isinstance(item, dict):
            yield _span(item, f"line {number}: span", where)
        else:
            raise DataError(f"line {number}: expected a span or an export request object", source=where)


def _list(value: Any, path: str, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise DataError(f"{path}: expected a list", source=where)
    return value


def _request(document: dict[str, Any], prefix: str, where: str) -> Iterator[Span]:
    key = next(k for k in _REQUEST_KEYS if k in document)
    for r, resource in enumerate(_list(document[key], f"{prefix}{key}", where)):
        if not isinstance(resource, dict):
            raise DataError(f"{prefix}{key}[{r}]: expected an object", source=where)
        for scope_key in _SCOPE_KEYS:
            for s, scope in enumerate(
                _list(resource.get(scope_key), f"{prefix}{key}[{r}].{scope_key}", where)
            ):
                base = f"{prefix}{key}[{r}].{scope_key}[{s}].spans"
                if not isinstance(scope, dict):
                    raise DataError(f"{base[:-6]}: expected an object", source=where)
                for i, span in enumerate(_list(scope.get("spans"), base, where)):
                    yield _span(span, f"{base}[{i}]", where)


def _get(item: dict[str, Any], camel: str, snake: str) -> Any:
    return item[camel] if camel in item else item.get(snake)


def _span(item: Any, at: str, where: str) -> Span:
    if not isinstance(item, dict):
        raise DataError(f"{at}: expected a span object", source=where)
    trace_id = _id(_get(item, "traceId", "trace_id"), 16, f"{at}.traceId", where)
    span_id = _id(_get(item, "spanId", "span_id"), 8, f"{at}.spanId", where)
    parent = _get(item, "parentSpanId", "parent_span_id")
    parent_id = _id(parent, 8, f"{at}.parentSpanId", where) if parent else None
    start = _time(_get(item, "startTimeUnixNano", "start_time_unix_nano"), f"{at}.startTimeUnixNano", where)
    end = _time(_get(item, "endTimeUnixNano", "end_time_unix_nano"), f"{at}.endTimeUnixNano", where)
    attributes = attributes_of(item.get("attributes"), f"{at}.attributes", where)
    for e, event in enumerate(item.get("events") or ()):  # content some exporters put in span events
        if isinstance(event, dict):
            for key, value in attributes_of(event.get("attributes"), f"{at}.events[{e}]", where).items():
                if key in JSON_ATTRIBUTES:
                    attributes.setdefault(key, value)
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


def _id(value: Any, size: int, at: str, where: str) -> str:
    """An id of ``size`` bytes as lowercase hex, from hex or base64."""
    if not isinstance(value, str) or not value:
        raise DataError(f"{at}: expected {_bytes(size)} id (hex or base64), got {value!r}", source=where)
    if len(value) == 2 * size:
        try:
            bytes.fromhex(value)
            return value.lower()
        except ValueError:
            pass
    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        decoded = b""
    if len(decoded) != size:
        raise DataError(
            f"{at}: {value!r} is not {_bytes(size)} id ({2 * size} hex digits, or base64)", source=where
        )
    return decoded.hex()


def _bytes(size: int) -> str:
    return f"an {size}-byte" if size == 8 else f"a {size}-byte"


def _time(value: Any, at: str, where: str) -> int:
    if value is None:
        return 0
    try:
        return int(value)
    except (TypeError, ValueError):
        raise DataError(f"{at}: expected a time in nanoseconds, got {value!r}", source=where) from None


def attributes_of(value: Any, at: str, where: str) -> dict[str, Any]:
    """Attributes as plain values: OTLP's ``[{key, value: AnyValue}]`` or an object."""
    if value is None:
        return {}
    if isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, list):
        pairs = []
        for i, entry in enumerate(value):
            if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
                raise DataError(f"{at}[{i}]: expected {{'key': ..., 'value': ...}}", source=where)
            pairs.append((entry["key"], any_value(entry.get("value"))))
    else:
        raise DataError(f"{at}: expected a list of key-value pairs", source=where)
    flat = {}
    for key, item in pairs:
        if key in JSON_ATTRIBUTES and isinstance(item, str):
            try:
                item = json.loads(item)
            except ValueError:
                pass  # "<elided>" and other plain text stay text
        flat[key] = item
    return flat


def any_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as a plain value (a plain value is returned as it is)."""
    if not isinstance(value, dict):
        return value
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        try:
            return int(value["intValue"])
        except (TypeError, ValueError):
            return value["intValue"]
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [any_value(v) for v in (value["arrayValue"] or {}).get("values") or ()]
    if "kvlistValue" in value:
        return {
            kv.get("key"): any_value(kv.get("value"))
            for kv in (value["kvlistValue"] or {}).get("values") or ()
            if isinstance(kv, dict)
        }
    if "bytesValue" in value:
        return value["bytesValue"]
    if not value:
        return None
    return value
