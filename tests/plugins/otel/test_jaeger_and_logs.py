"""Jaeger's JSON and OTLP log records (``EVENT_ONLY`` capture) read as the same turns as OTLP
spans with their content; both recognised by content; a damaged file names the place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agenteval import load_eval_set
from agenteval.errors import DataError
from agenteval_otel import OtelReader
from agenteval_otel._otlp import read_spans, sniff
from agenteval_otel._turns import turns_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.plugins.otel._encode import encode, split_logs

FIXTURES = Path(__file__).parent / "fixtures"
JAEGER = FIXTURES / "langgraph.jaeger.json"
EVENT_ONLY = FIXTURES / "event_only.otlp.json"
ADK_TRACE = FIXTURES / "adk_v2.otlp.json"
ANSWER = "Tomorrow in Paris it will be sunny with a high of 24 degrees Celsius."


def _weather(path: Path):
    reader = OtelReader()
    cases = [
        c for c in load_eval_set(FIXTURES / "travel.evalset.json").eval_cases if c.eval_id == "weather_paris"
    ]
    [case] = reader.read_actual(path, cases).eval_cases
    [turn] = case.conversation
    return turn, reader.warnings


def _essentials(turn) -> tuple:
    return (
        turn.user_content.text(),
        [(c.name, c.args) for c in turn.tool_calls()],
        [r.response for r in turn.tool_responses()],
        turn.final_text(),
        [e.usage_metadata for e in turn.intermediate_data.invocation_events if e.usage_metadata],
        turn.missing_inputs(),
    )


EXPECTED = (
    "What's the weather in Paris tomorrow?",
    [("get_weather", {"city": "Paris", "day": "tomorrow"})],
    [{"forecast": "sunny", "high_c": 24}],
    ANSWER,
    [
        {"prompt_token_count": 64, "candidates_token_count": 12, "total_token_count": 76},
        {"prompt_token_count": 90, "candidates_token_count": 18, "total_token_count": 108},
    ],
    (),
)


def test_a_jaeger_export_is_claimed_by_content_and_read_as_its_turns():
    assert OtelReader.claims(JAEGER.read_bytes())
    assert not OtelReader.claims(b'{"data": [1, 2, 3]}') and not OtelReader.claims(b'{"data": {"x": 1}}')
    turn, warnings = _weather(JAEGER)
    assert _essentials(turn) == EXPECTED and warnings == []
    assert turn.duration == 3.0 and turn.tool_duration == pytest.approx(0.9)  # microseconds read as such
    spans = read_spans(JAEGER)
    assert {s.trace_id for s in spans} == {"00000000000000005f1c9a0b7e2d4c31"}  # 64-bit id, padded
    assert {s.span_id for s in spans} >= {"00000000a1000001"}


def test_event_only_content_is_read_from_the_logs_file_beside_the_spans():
    turn, warnings = _weather(EVENT_ONLY)
    assert _essentials(turn) == EXPECTED and warnings == []


def test_without_its_logs_file_an_event_only_trace_lacks_its_content(tmp_path):
    alone = tmp_path / "trace.json"
    alone.write_bytes(EVENT_ONLY.read_bytes())
    turns, _ = turns_of(read_spans(alone))
    [turn] = turns
    assert {f.code for f in turn.findings} == {
        "content_absent",
        "tool_arguments_absent",
        "tool_result_absent",
        "no_user_content",
        "no_final_text",
    }


def test_one_jsonl_file_holding_logs_and_spans_is_claimed_whichever_comes_first(tmp_path):
    logs = json.loads((FIXTURES / "event_only.otlp.logs.json").read_text())
    spans = json.loads(EVENT_ONLY.read_text())
    path = tmp_path / "collector.jsonl"
    path.write_text(json.dumps(logs) + "\n" + json.dumps(spans) + "\n")
    assert sniff(path.read_bytes())
    turn, warnings = _weather(path)
    assert _essentials(turn) == EXPECTED and warnings == []


def _dump(spans) -> list[str]:
    turns, _ = turns_of(spans)
    return [t.invocation.model_dump_json() + t.session_id for t in turns]


BASELINE = _dump(read_spans(ADK_TRACE))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(elide=st.booleans(), order=st.randoms(use_true_random=False), jsonl=st.booleans())
def test_content_moved_to_log_records_gives_the_same_turns(tmp_path_factory, elide, order, jsonl):
    bare, logs = split_logs(read_spans(ADK_TRACE), elide=elide)
    order.shuffle(bare)
    folder = tmp_path_factory.mktemp("logs")
    shape = "jsonl-spans" if jsonl else "request"
    text = encode(bare, shape=shape, base64_ids=False, plain=False, json_strings=True)
    (folder / "trace.json").write_text(text)
    (folder / "trace.logs.json").write_text(logs)
    assert _dump(read_spans(folder / "trace.json")) == BASELINE


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (
            lambda d: d["data"][0]["spans"][1].update(spanID="xyz"),
            "data[0].spans[1].spanID: expected a hex id",
        ),
        (lambda d: d["data"][0]["spans"][2].update(startTime="soon"), "data[0].spans[2].startTime"),
        (lambda d: d["data"][0]["spans"][0].update(tags={"a": 1}), "data[0].spans[0].tags: expected a list"),
    ],
)
def test_a_damaged_jaeger_file_names_the_span_and_the_field(tmp_path, edit, fragment):
    doc = json.loads(JAEGER.read_text())
    edit(doc)
    path = tmp_path / "jaeger.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(DataError) as info:
        read_spans(path)
    assert fragment in str(info.value) and str(info.value).startswith(str(path))


def test_a_file_beside_named_as_logs_that_holds_no_logs_is_an_error(tmp_path):
    (tmp_path / "trace.json").write_bytes(EVENT_ONLY.read_bytes())
    (tmp_path / "trace.logs.json").write_bytes(EVENT_ONLY.read_bytes())
    with pytest.raises(DataError) as info:
        read_spans(tmp_path / "trace.json")
    assert "trace.logs.json" in str(info.value) and "'resourceLogs'" in str(info.value)
