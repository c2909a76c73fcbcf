"""The GenAI conventions' legacy per-message events (``gen_ai.user.message``,
``gen_ai.assistant.message``, ``gen_ai.tool.message``, ``gen_ai.choice``), as span events or
as log records, read as the content ``gen_ai.input.messages`` / ``.output.messages`` give."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agenteval_otel._otlp import read_spans
from agenteval_otel._turns import turns_of

TRACE = "0af7651916cd43dd8448eb211c80319c"
USER = "What's the weather in Paris tomorrow?"
FINAL = "Tomorrow in Paris it will be sunny with a high of 24 degrees Celsius."
CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
}


def _kv(fields: dict[str, Any]) -> list[dict[str, Any]]:
    """Fields as OTLP attributes (structures as JSON text, as span events hold them)."""
    return [
        {"key": k, "value": {"stringValue": v if isinstance(v, str) else json.dumps(v)}}
        for k, v in fields.items()
    ]


def _events(content: bool) -> tuple[list[tuple[str, dict[str, Any]]], list[tuple[str, dict[str, Any]]]]:
    """The two model calls' events: (name, message fields); without ``content``, capture off."""
    said = (lambda **f: f) if content else (lambda **f: {k: v for k, v in f.items() if k != "content"})
    first = [
        ("gen_ai.system.message", said(content="You are a travel agent.")),
        ("gen_ai.user.message", said(content=USER)),
        ("gen_ai.choice", {"index": 0, "finish_reason": "tool_calls", "message": {"tool_calls": [CALL]}}),
    ]
    second = [
        ("gen_ai.user.message", said(content=USER)),
        ("gen_ai.assistant.message", {"tool_calls": [CALL]}),
        ("gen_ai.tool.message", said(id="call_1", content={"forecast": "sunny", "high": 24})),
        ("gen_ai.choice", {"index": 0, "finish_reason": "stop", "message": said(content=FINAL)}),
    ]
    return first, second


def _span(
    span_id: str, parent: str | None, name: str, start: int, attributes: dict[str, Any]
) -> dict[str, Any]:
    span = {
        "traceId": TRACE,
        "spanId": span_id,
        "name": name,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 10),
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()],
    }
    if parent:
        span["parentSpanId"] = parent
    return span


def _jaeger(span: dict[str, Any]) -> dict[str, Any]:
    """An OTLP span as Jaeger's JSON: tags, CHILD_OF references, microseconds, events as logs."""

    def tags(attributes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{"key": a["key"], "type": "string", "value": a["value"]["stringValue"]} for a in attributes]

    parent = span.get("parentSpanId")
    return {
        "traceID": TRACE,
        "spanID": span["spanId"],
        "operationName": span["name"],
        "references": [{"refType": "CHILD_OF", "traceID": TRACE, "spanID": parent}] if parent else [],
        "startTime": int(span["startTimeUnixNano"]),
        "duration": 10,
        "tags": tags(span["attributes"]),
        "logs": [
            {
                "timestamp": 0,
                "fields": [{"key": "event", "type": "string", "value": e["name"]}, *tags(e["attributes"])],
            }
            for e in span.get("events", ())
        ],
    }


def _trace(tmp_path, *, content: bool, as_logs: bool, jaeger: bool = False):
    chat = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"}
    spans = [
        _span("00000000000000a1", None, "invoke_agent travel", 0, {"gen_ai.operation.name": "invoke_agent"}),
        _span("00000000000000a2", "00000000000000a1", "chat gpt-4o", 1, chat),
        _span(
            "00000000000000a3",
            "00000000000000a1",
            "execute_tool get_weather",
            20,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.id": "call_1",
            },
        ),
        _span("00000000000000a4", "00000000000000a1", "chat gpt-4o", 40, chat),
    ]
    records = []
    for span, events in zip((spans[1], spans[3]), _events(content), strict=True):
        if as_logs:
            records += [
                {"spanId": span["spanId"], "traceId": TRACE, "eventName": name, "body": _any(fields)}
                for name, fields in events
            ]
        else:
            span["events"] = [{"name": name, "attributes": _kv(fields)} for name, fields in events]
    doc: dict[str, Any] = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    if jaeger:
        doc = {"data": [{"traceID": TRACE, "spans": [_jaeger(span) for span in spans], "processes": {}}]}
    if records:
        doc["resourceLogs"] = [{"scopeLogs": [{"logRecords": records}]}]
    path = tmp_path / "legacy.otlp.json"
    path.write_text(json.dumps(doc))
    turns, _ = turns_of(read_spans(path))
    return turns


def _any(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [{"key": k, "value": _any(v)} for k, v in value.items()]}}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_any(v) for v in value]}}
    if isinstance(value, int):
        return {"intValue": str(value)}
    return {"stringValue": value}


@pytest.mark.parametrize(
    ("as_logs", "jaeger"),
    [(False, False), (True, False), (False, True)],
    ids=["span-events", "log-records", "jaeger"],
)
def test_legacy_events_give_the_turn_s_user_message_tool_calls_and_final_text(tmp_path, as_logs, jaeger):
    [turn] = _trace(tmp_path, content=True, as_logs=as_logs, jaeger=jaeger)
    invocation = turn.invocation
    assert invocation.user_content.text() == USER
    assert invocation.final_response is not None and invocation.final_response.text() == FINAL
    events = invocation.intermediate_data.invocation_events
    calls = [p.function_call for e in events if e.content for p in e.content.parts or () if p.function_call]
    assert [(c.name, c.args) for c in calls] == [("get_weather", {"city": "Paris"})]
    assert not {f.code for f in turn.findings} & {"content_absent", "no_final_text", "no_user_content"}


def test_legacy_events_without_content_are_a_finding_never_an_empty_score(tmp_path):
    [turn] = _trace(tmp_path, content=False, as_logs=False)
    assert turn.invocation.final_response is None
    assert {"no_final_text", "no_user_content"} <= {f.code for f in turn.findings}
