"""Writing spans back as OTLP/JSON in each of the shapes the reader accepts (for the
property tests: the same spans in any order, with ids in hex or base64, attributes as
``AnyValue`` or plain, as one request, per-scope legacy wrappers or JSONL)."""

from __future__ import annotations

import base64
import json
from typing import Any

from agenteval_otel._otlp import Span


def any_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
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


def encode(spans: list[Span], *, shape: str, **options: bool) -> str:
    """``shape``: ``request`` (one export request), ``legacy`` (instrumentationLibrarySpans),
    ``tempo-batches`` / ``tempo-trace`` (Tempo's API answers),
    ``jsonl-spans`` (one span per line) or ``jsonl-requests`` (one request per line)."""
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
