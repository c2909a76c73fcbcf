"""Jaeger's JSON (its query API and UI export, ``{"data": [{"traceID", "spans", "processes"}]}``)
read as plain spans.

Ids are hex, possibly without their leading zeros (left-padded here); times are microseconds;
``tags`` are ``{key, type, value}`` with plain values; the parent is the ``CHILD_OF``
reference (or the older ``parentSpanID``); span ``logs`` are read as OTLP span events are.
``processes`` (Jaeger's resources) hold nothing a turn needs and are not read.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, Optional

from agenteval.errors import DataError

from ._span import Span, attributes_of, content_from_events, list_at, shown

__all__ = ["is_jaeger", "jaeger_spans", "jaeger_trace_spans"]


def is_jaeger(document: Any) -> bool:
    """Whether a parsed JSON document is Jaeger's: ``data``, a list of traces with spans."""
    if not isinstance(document, dict) or not isinstance(document.get("data"), list):
        return False
    return all(isinstance(t, dict) and ("spans" in t or "traceID" in t) for t in document["data"][:1])


def jaeger_spans(document: dict[str, Any], where: str) -> Iterator[Span]:
    """Every span of a Jaeger document."""
    for t, trace in enumerate(document["data"]):
        yield from jaeger_trace_spans(trace, t, where)


def jaeger_trace_spans(trace: Any, t: int, where: str) -> Iterator[Span]:
    """The spans of the document's trace ``data[t]``."""
    if not isinstance(trace, dict):
        raise DataError(f"data[{t}]: expected a trace object", source=where)
    spans = trace.get("spans") or []
    if not isinstance(spans, list):
        raise DataError(f"data[{t}].spans: expected a list", source=where)
    for s, item in enumerate(spans):
        yield _span(item, f"data[{t}].spans[{s}]", where)


def _span(item: Any, at: str, where: str) -> Span:
    if not isinstance(item, dict):
        raise DataError(f"{at}: expected a span object", source=where)
    trace_id = _hex(item.get("traceID"), 16, f"{at}.traceID", where)
    parent = _parent(item, trace_id, at, where)
    start = _micros(item.get("startTime"), f"{at}.startTime", where)
    duration = _micros(item.get("duration"), f"{at}.duration", where)
    attributes = attributes_of(_tags(item.get("tags"), f"{at}.tags", where), f"{at}.tags", where)
    events = [
        {"attributes": _tags(log.get("fields"), f"{at}.logs[{i}].fields", where)}
        for i, log in enumerate(list_at(item.get("logs"), f"{at}.logs", where))
        if isinstance(log, dict)
    ]
    content_from_events(attributes, events, at, where)
    name = str(item.get("operationName") or "")
    return Span(
        trace_id=trace_id,
        span_id=_hex(item.get("spanID"), 8, f"{at}.spanID", where),
        parent_id=parent,
        name=name,
        start=start,
        end=start + max(duration, 0),
        attributes=attributes,
        where=f"{at} ({name!r})" if name else at,
    )


def _parent(item: dict[str, Any], trace_id: str, at: str, where: str) -> Optional[str]:
    for r, ref in enumerate(list_at(item.get("references"), f"{at}.references", where)):
        if isinstance(ref, dict) and ref.get("refType") == "CHILD_OF":
            if _hex(ref.get("traceID"), 16, f"{at}.references[{r}].traceID", where) == trace_id:
                return _hex(ref.get("spanID"), 8, f"{at}.references[{r}].spanID", where)
    parent = item.get("parentSpanID")
    return _hex(parent, 8, f"{at}.parentSpanID", where) if parent else None


def _hex(value: Any, size: int, at: str, where: str) -> str:
    text = value.lower() if isinstance(value, str) else ""
    if not text or len(text) > 2 * size or any(c not in "0123456789abcdef" for c in text):
        expected = f"expected a hex id of at most {2 * size} digits"
        raise DataError(f"{at}: {expected}, got {shown(value)}", source=where)
    return text.rjust(2 * size, "0")


def _micros(value: Any, at: str, where: str) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise DataError(f"{at}: expected microseconds (a finite number), got {shown(value)}", source=where)
    return int(value) * 1000


def _tags(value: Any, at: str, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, list):
        raise DataError(f"{at}: expected a list of {{key, type, value}}", source=where)
    tags = {}
    for i, tag in enumerate(value):
        if not isinstance(tag, dict) or not isinstance(tag.get("key"), str):
            raise DataError(f"{at}[{i}]: expected {{'key': ..., 'type': ..., 'value': ...}}", source=where)
        tags[tag["key"]] = tag.get("value")
    return tags
