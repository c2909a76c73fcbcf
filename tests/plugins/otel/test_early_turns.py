"""A JSONL file's traces are read as turns at the end of a line once ``HELD_SPANS`` spans are
kept (those with their root span read), their spans let go: the turns are those of the reader
that held every span, however the spans are spread over lines (a trace a later line adds to is
read again)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agenteval_otel import _select
from agenteval_otel._otlp import Span, read_spans
from agenteval_otel._select import read_turns
from agenteval_otel._turns import turns_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.plugins.otel._encode import encode_span
from tests.plugins.otel._held import assert_one_trace_held_at_a_time, in_batches, spans_by_trace

FIXTURES = Path(__file__).parent / "fixtures"
SOURCES = (FIXTURES / "adk_v2.otlp.json", FIXTURES / "openai_agents.otlp.json")
SPANS = [span for source in SOURCES for span in read_spans(source)]


def _lines(batches: list[list[Span]]) -> str:
    items = (
        [encode_span(span, base64_ids=False, plain=False, json_strings=True) for span in batch]
        for batch in batches
    )
    return "".join(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": i}]}]}) + "\n" for i in items)


def _dumped(found: tuple[list[Any], list[Any]]) -> Any:
    turns, empty = found
    read = [(t.trace_id, t.session_id, t.case_id, t.invocation.model_dump(), t.findings) for t in turns]
    return read, empty


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(order=st.permutations(range(len(SPANS))), cuts=st.lists(st.integers(1, 8), min_size=len(SPANS)))
def test_any_spread_of_the_spans_over_lines_reads_as_every_span_held(
    tmp_path_factory, monkeypatch, order, cuts
):
    monkeypatch.setattr(_select, "HELD_SPANS", 1)  # traces read at the end of every line
    batches = in_batches(SPANS, order, cuts)
    path = tmp_path_factory.mktemp("early") / "t.jsonl"
    path.write_text(_lines(batches), encoding="utf-8")
    assert _dumped(read_turns(path)) == _dumped(turns_of(read_spans(path)))


def test_a_file_of_one_trace_a_line_holds_one_trace_s_spans_at_a_time(tmp_path, monkeypatch):
    traces = spans_by_trace(SPANS)
    path = tmp_path / "t.jsonl"
    path.write_text(_lines(traces), encoding="utf-8")
    assert_one_trace_held_at_a_time(path, traces, monkeypatch)


def test_a_lint_keeps_of_each_turn_its_user_message_and_findings_not_its_events(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(_lines([[span] for span in SPANS]), encoding="utf-8")
    whole, empty = read_turns(path)
    lint, lint_empty = read_turns(path, content=False)
    assert any(t.invocation.intermediate_data for t in whole)
    assert not any(t.invocation.intermediate_data or t.invocation.final_response for t in lint)
    assert lint_empty == empty
    assert [(t.trace_id, t.session_id, t.user_text, t.findings) for t in lint] == [
        (t.trace_id, t.session_id, t.user_text, t.findings) for t in whole
    ]
