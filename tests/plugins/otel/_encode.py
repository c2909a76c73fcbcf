"""Writing spans back as OTLP/JSON in each of the shapes the reader accepts (for the
property tests: the same spans in any order, with ids in hex or base64, attributes as
``AnyValue`` or plain, as one request, per-scope legacy wrappers, JSONL or Jaeger's JSON), and
with the content moved to OTLP log records (``EVENT_ONLY`` capture)."""

from __future__ import annotations

import base64
import json
from typing import Any

from agenteval_otel._otlp import Span
from agenteval_otel._span import JSON_ATTRIBUTES


def any_value(value: Any) -> dict[str, Any]:
    if value is None:
        return {}  # an AnyValue with no value, as the OTLP exporters encode None
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [any_value(v) for v in value]}}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [{"key": k, "value": any_value(v)} for k, v in value.items()]}}
    return {"stringValue": value}


def encode_span(span: Span, *, base64_ids: bool, plain: bool, json_strings: bool) -> dict[str, Any]:
    def ident(hex_id: str) -> str:
        return base64.b64encode(bytes.fromhex(hex_id)).decode() if base64_ids else hex_id

    attributes = {
        key: json.dumps(value) if json_strings and isinstance(value, (dict, list)) else value
        for key, value in span.attributes.items()
    }
    item: dict[str, Any] = {
        "traceId": ident(span.trace_id),
        "spanId": ident(span.span_id),
        "name": span.name,
        "startTimeUnixNano": str(span.start),
        "endTimeUnixNano": str(span.end),
        "attributes": attributes
        if plain
        else [{"key": k, "value": any_value(v)} for k, v in attributes.items()],
    }
    if span.parent_id:
        item["parentSpanId"] = ident(span.parent_id)
    return item


def jaeger_span(span: Span) -> dict[str, Any]:
    """A span as Jaeger writes it: hex ids without their leading zeros, microseconds, typed tags."""

    def tag(key: str, value: Any) -> dict[str, Any]:
        if isinstance(value, (dict, list)):
            value = json.dumps(value)  # Jaeger's tags hold no structures
        kind = {bool: "bool", int: "int64", float: "float64"}.get(type(value), "string")
        return {"key": key, "type": kind, "value": value}

    item: dict[str, Any] = {
        "traceID": span.trace_id.lstrip("0") or "0",
        "spanID": span.span_id.lstrip("0") or "0",
        "operationName": span.name,
        "startTime": span.start // 1000,
        "duration": (span.end - span.start) // 1000,
        "tags": [tag(k, v) for k, v in span.attributes.items()],
        "logs": [],
        "processID": "p1",
        "references": [],
    }
    if span.parent_id:
        item["references"] = [{"refType": "CHILD_OF", "traceID": item["traceID"], "spanID": span.parent_id}]
    return item


def split_logs(spans: list[Span], *, elide: bool) -> tuple[list[Span], str]:
    """The spans without their content (``<elided>`` or absent) and an OTLP logs request
    holding it, one record per span, as ``EVENT_ONLY`` capture records it."""
    bare, records = [], []
    for span in spans:
        content = {k: v for k, v in span.attributes.items() if k in JSON_ATTRIBUTES}
        rest = {k: v for k, v in span.attributes.items() if k not in JSON_ATTRIBUTES}
        if elide:
            rest.update(dict.fromkeys(content, "<elided>"))
        bare.append(Span(span.trace_id, span.span_id, span.parent_id, span.name, span.start, span.end, rest))
        if content:
            records.append(
                {
                    "timeUnixNano": str(span.end),
                    "traceId": span.trace_id,
                    "spanId": span.span_id,
                    "eventName": "gen_ai.client.inference.operation.details",
                    "attributes": [
                        {"key": k, "value": any_value(json.dumps(v) if isinstance(v, (dict, list)) else v)}
                        for k, v in content.items()
                    ],
                }
            )
    return bare, json.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": records}]}]})


def encode(spans: list[Span], *, shape: str, **options: bool) -> str:
    """``shape``: ``request`` (one export request), ``legacy`` (instrumentationLibrarySpans),
    ``tempo-batches`` / ``tempo-trace`` (Tempo's API answers), ``jaeger``,
    ``jsonl-spans`` (one span per line) or ``jsonl-requests`` (one request per line)."""
    if shape == "jaeger":
        traces: dict[str, list[dict[str, Any]]] = {}
        for span in spans:
            item = jaeger_span(span)
            traces.setdefault(item["traceID"], []).append(item)
        data = [
            {"traceID": t, "spans": items, "processes": {"p1": {"serviceName": "agent", "tags": []}}}
            for t, items in traces.items()
        ]
        return json.dumps({"data": data, "total": 0, "limit": 0, "offset": 0, "errors": None})
    items = [encode_span(span, **options) for span in spans]
    if shape == "request":
        return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": items}]}]})
    if shape == "tempo-batches":
        return json.dumps({"batches": [{"scopeSpans": [{"spans": items}]}]})
    if shape == "tempo-trace":
        return json.dumps({"trace": {"batches": [{"instrumentationLibrarySpans": [{"spans": items}]}]}})
    if shape == "legacy":
        return json.dumps({"resourceSpans": [{"instrumentationLibrarySpans": [{"spans": items}]}]})
    if shape == "jsonl-spans":
        return "\n".join(json.dumps(item) for item in items) + "\n"
    assert shape == "jsonl-requests"
    return "\n".join(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [item]}]}]}) for item in items)
