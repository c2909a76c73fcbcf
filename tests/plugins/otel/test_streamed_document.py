"""A large JSON trace document (OTLP, Tempo, Jaeger) read a resource (or a Jaeger trace) at a
time, never whole: the same spans as the document read whole, in every shape, and for a
damaged or cut-off file the same error (file, line:column or span, fix)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agenteval.errors import DataError
from agenteval_otel import _otlp, _select
from agenteval_otel._otlp import Span, read_spans
from agenteval_otel._select import read_turns
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.plugins.otel._encode import encode, encode_span
from tests.plugins.otel._held import assert_one_trace_held_at_a_time, in_batches, spans_by_trace

FIXTURES = Path(__file__).parent / "fixtures"
ADK_TRACE = FIXTURES / "adk_v2.otlp.json"
_SPAN = '{"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "000000000000a101"}'
_SHAPES = ["request", "legacy", "tempo-batches", "tempo-trace", "jaeger"]


def _per_resource(text: str) -> str:
    """The document with one resource per span (as a collector writes batch after batch)."""
    document = json.loads(text)
    inner = document["trace"] if "trace" in document else document
    key = next(k for k in ("resourceSpans", "batches") if k in inner)
    inner[key] = [
        {**resource, scope_key: [{**scope, "spans": [span]}]}
        for resource in inner[key]
        for scope_key in [k for k in resource if k != "resource"]
        for scope in resource[scope_key]
        for span in scope["spans"]
    ]
    return json.dumps(document, indent=1)


def _read(path: Path, monkeypatch: pytest.MonkeyPatch, *, streamed: bool):
    monkeypatch.setattr(_otlp, "STREAM_FROM_BYTES", 0 if streamed else 1 << 62)
    try:
        return read_spans(path)
    except DataError as exc:
        return str(exc)


def _whole_never_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(raw: bytes, where: str) -> None:
        raise AssertionError("the document was read whole")

    monkeypatch.setattr(_otlp, "_document", refuse)


@pytest.mark.parametrize("shape", _SHAPES)
def test_a_large_document_gives_the_spans_of_the_whole_document_without_holding_it(
    tmp_path, monkeypatch, shape
):
    text = encode(read_spans(ADK_TRACE), shape=shape, base64_ids=False, plain=False, json_strings=True)
    path = tmp_path / "trace.json"
    path.write_text(text if shape == "jaeger" else _per_resource(text))
    whole = _read(path, monkeypatch, streamed=False)
    _whole_never_parsed(monkeypatch)
    assert _read(path, monkeypatch, streamed=True) == whole


def test_log_records_in_a_large_document_give_their_content_as_in_the_whole_document(tmp_path, monkeypatch):
    spans = json.loads((FIXTURES / "event_only.otlp.json").read_text())
    logs = json.loads((FIXTURES / "event_only.otlp.logs.json").read_text())
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({**spans, **logs}))
    whole = _read(path, monkeypatch, streamed=False)
    _whole_never_parsed(monkeypatch)
    assert _read(path, monkeypatch, streamed=True) == whole


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    shape=st.sampled_from(_SHAPES),
    data=st.data(),
    damage=st.sampled_from(["cut", "replace", "delete"]),
    byte=st.sampled_from(list(b'{}[],:"0a\\\xff\n')),
)
def test_a_damaged_or_cut_off_document_gives_the_whole_document_s_error(
    tmp_path_factory, monkeypatch, shape, data, damage, byte
):
    text = encode(read_spans(ADK_TRACE), shape=shape, base64_ids=False, plain=False, json_strings=True)
    raw = (text if shape == "jaeger" else _per_resource(text)).encode()
    at = data.draw(st.integers(0, len(raw) - 1))
    damaged = {
        "cut": raw[:at],
        "replace": raw[:at] + bytes([byte]) + raw[at + 1 :],
        "delete": raw[:at] + raw[at + 1 :],
    }[damage]
    path = tmp_path_factory.mktemp("damaged") / "trace.json"
    path.write_bytes(damaged)
    with monkeypatch.context() as patch:
        whole = _read(path, patch, streamed=False)
    with monkeypatch.context() as patch:
        streamed = _read(path, patch, streamed=True)
    assert streamed == whole
    if isinstance(whole, str):
        assert whole.startswith(str(path))


def test_an_element_made_a_non_object_by_damage_gives_the_documents_syntax_error_first(tmp_path, monkeypatch):
    # a resource's opening brace deleted: its first member reads as a string element, which is
    # not a resource; the whole read fails on the syntax first, and so must the streamed one
    text = _per_resource(
        encode(read_spans(ADK_TRACE), shape="request", base64_ids=False, plain=False, json_strings=True)
    )
    second = text.index("\n  },\n  {") + len("\n  },\n  ")  # the second resource's brace (indent=1)
    path = tmp_path / "trace.json"
    path.write_text(text[:second] + text[second + 1 :])
    whole = _read(path, monkeypatch, streamed=False)
    assert "not valid JSON" in whole
    assert _read(path, monkeypatch, streamed=True) == whole


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ('{"resourceSpans": {"a": 1}}', "resourceSpans: expected a list"),
        (
            '{"resourceSpans": [{"scopeSpans": [{"spans": [' + _SPAN + ']}]}], "resourceSpans": []}',
            "not read: the member 'resourceSpans' is given twice",
        ),
        ('{"resourceSpans": [{"scopeSpans": [{"spans": [7]}]}]}', "spans[0]: expected a span object"),
        ('{"trace": {"batches": []}, "other": 1}', "not a trace"),
        ('{"data": [7]}', "not a trace"),
        (
            '{"resourceSpans": [{"scopeSpans": []}]\n  "x": 1}',
            "not valid JSON: Expecting ',' delimiter at line 2",
        ),
    ],
)
def test_a_large_document_s_errors_name_the_place_and_the_fix(tmp_path, monkeypatch, content, fragment):
    path = tmp_path / "t.json"
    path.write_text(content)
    message = _read(path, monkeypatch, streamed=True)
    assert isinstance(message, str) and fragment in message and message.startswith(str(path))


SPANS = [span for source in (ADK_TRACE, FIXTURES / "openai_agents.otlp.json") for span in read_spans(source)]


def _document_of(batches: list[list[Span]]) -> str:
    resources = [
        {
            "scopeSpans": [
                {"spans": [encode_span(s, base64_ids=False, plain=False, json_strings=True) for s in b]}
            ]
        }
        for b in batches
    ]
    return json.dumps({"resourceSpans": resources}, indent=1)


def _dumped(found: tuple[list[Any], list[Any]]) -> Any:
    turns, empty = found
    return [(t.trace_id, t.session_id, t.invocation.model_dump(), t.findings) for t in turns], empty


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    order=st.permutations(range(len(SPANS))),
    cuts=st.lists(st.integers(1, 8), min_size=len(SPANS)),
    few=st.booleans(),
)
def test_a_large_document_s_turns_are_read_as_a_jsonl_file_s_any_spread_of_spans_over_resources(
    tmp_path_factory, monkeypatch, order, cuts, few
):
    monkeypatch.setattr(_select, "HELD_SPANS", 1)  # traces read after every resource
    monkeypatch.setattr(_select, "PENDING_SPANS", 2)  # other traces' spans dropped, read again
    batches = in_batches(SPANS, order, cuts)
    path = tmp_path_factory.mktemp("doc") / "t.json"
    path.write_text(_document_of(batches), encoding="utf-8")
    ids = {"weather_paris"} if few else None
    whole = _dumped(read_turns(path, ids))
    monkeypatch.setattr(_otlp, "STREAM_FROM_BYTES", 0)
    assert _dumped(read_turns(path, ids)) == whole


def test_a_large_document_of_one_trace_a_resource_holds_one_trace_s_spans_at_a_time(tmp_path, monkeypatch):
    traces = spans_by_trace(SPANS)
    path = tmp_path / "t.json"
    path.write_text(_document_of(traces), encoding="utf-8")
    monkeypatch.setattr(_otlp, "STREAM_FROM_BYTES", 0)
    assert_one_trace_held_at_a_time(path, traces, monkeypatch)
