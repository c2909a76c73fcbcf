"""The ``otel`` data format: OTLP/JSON traces read as the invocations ADK's own recording
gives, sessions matched to cases by the documented rule, any encoding of the same spans
read the same, and a damaged file refused with the file and the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agenteval import load_eval_set
from agenteval.errors import DataError
from agenteval_otel import OtelReader
from agenteval_otel._otlp import Span, read_spans, sniff
from agenteval_otel._select import read_turns
from agenteval_otel._turns import turns_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.plugins.otel._encode import encode

FIXTURES = Path(__file__).parent / "fixtures"
ADK_TRACE = FIXTURES / "adk_v2.otlp.json"
OPENAI_TRACE = FIXTURES / "openai_agents.otlp.json"
EVALSET = FIXTURES / "travel.evalset.json"


def _cases(*ids: str):
    cases = load_eval_set(EVALSET).eval_cases
    return [c for c in cases if not ids or c.eval_id in ids]


def _read(path: Path, *ids: str):
    reader = OtelReader()
    eval_set = reader.read_actual(path, _cases(*ids))
    return {case.eval_id: case.conversation for case in eval_set.eval_cases}, reader.warnings


def test_both_fixtures_are_claimed_and_an_adk_eval_set_is_not():
    assert OtelReader.claims(ADK_TRACE.read_bytes()[:65536])
    assert OtelReader.claims(OPENAI_TRACE.read_bytes()[:65536])
    assert not OtelReader.claims(EVALSET.read_bytes())
    assert not OtelReader.claims(b'{"eval_set_id": "x", "note": "resourceSpans"}')


def test_an_adk_v2_trace_gives_exactly_what_adk_records_for_the_same_runs():
    got, warnings = _read(ADK_TRACE)
    recorded = {c.eval_id: c.conversation for c in load_eval_set(FIXTURES / "adk_v2.actual.json").eval_cases}
    assert got == recorded
    assert warnings == []


def test_sessions_spanning_traces_keep_their_turns_in_order_and_other_apps_sessions_are_ignored():
    got, _ = _read(ADK_TRACE)
    assert set(got) == {"weather_paris", "flight_then_currency"}  # s-other-app matched nothing
    assert [t.user_content.text() for t in got["flight_then_currency"]] == [
        "Find me a flight from Berlin to Tokyo on 12 March.",
        "How much is that in Japanese yen?",
    ]


def test_an_openai_agents_style_trace_gives_sub_agent_events_and_the_root_agent_s_final_text():
    got, _ = _read(OPENAI_TRACE, "weather_paris")
    [turn] = got["weather_paris"]
    assert turn.final_text() == "Tomorrow in Paris it will be sunny with a high of 24 degrees Celsius."
    assert [(c.name, c.args) for c in turn.tool_calls()] == [
        ("transfer_to_weather", {}),
        ("get_weather", {"city": "Paris", "day": "tomorrow"}),
    ]
    assert [(r.name, r.response) for r in turn.tool_responses()] == [
        ("transfer_to_weather", {"assistant": "Weather"}),
        ("get_weather", {"forecast": "sunny", "high_c": 24}),
    ]
    assert turn.intermediate_texts() == [("Weather", "Sunny tomorrow in Paris, up to 24 degrees.")]
    events = turn.intermediate_data.invocation_events
    assert [e.author for e in events] == ["Triage", "Triage", "Weather", "Weather", "Weather", "Triage"]
    assert events[-1].content is None and events[-1].usage_metadata["prompt_token_count"] == 160
    assert turn.invocation_id == "b7ad6b7169203301"  # no ADK invocation id: the root span's id


def test_a_case_matched_by_its_first_user_message(tmp_path):
    spans = [s for s in read_spans(OPENAI_TRACE)]
    for span in spans:
        span.attributes.pop("agenteval.case_id", None)
    path = tmp_path / "t.json"
    path.write_text(encode(spans, shape="request", base64_ids=False, plain=True, json_strings=False))
    got, _ = _read(path, "weather_paris")
    assert list(got) == ["weather_paris"]


def test_a_selected_case_with_no_session_is_an_error_listing_it_and_the_rule():
    with pytest.raises(DataError) as info:
        _read(OPENAI_TRACE)  # holds weather_paris only
    message = str(info.value)
    assert message.startswith(f"{OPENAI_TRACE}: no session in this trace for case(s) 'flight_then_currency'")
    assert "agenteval.case_id" in message and "gen_ai.conversation.id" in message
    assert "FILE:CASE_ID" in message


def test_two_sessions_for_one_case_is_an_error(tmp_path):
    spans = read_spans(ADK_TRACE)
    for span in spans:
        if span.attributes.get("gen_ai.conversation.id") == "s-other-app":
            span.attributes["agenteval.case_id"] = "weather_paris"
    path = tmp_path / "t.json"
    path.write_text(encode(spans, shape="request", base64_ids=False, plain=False, json_strings=True))
    with pytest.raises(DataError, match=r"more than one session matches a case \('weather_paris': "):
        _read(path)


def _turn_dump(spans) -> list[str]:
    turns, _ = turns_of(spans)
    return [t.invocation.model_dump_json() + t.session_id for t in turns]


BASELINE = {path.name: _turn_dump(read_spans(path)) for path in (ADK_TRACE, OPENAI_TRACE)}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    which=st.sampled_from([ADK_TRACE, OPENAI_TRACE]),
    order=st.randoms(use_true_random=False),
    shape=st.sampled_from(
        ["request", "legacy", "jsonl-spans", "jsonl-requests", "tempo-batches", "tempo-trace", "jaeger"]
    ),
    base64_ids=st.booleans(),
    plain=st.booleans(),
    json_strings=st.booleans(),
)
def test_any_span_order_id_encoding_and_attribute_form_gives_the_same_turns(
    tmp_path_factory, which, order, shape, base64_ids, plain, json_strings
):
    spans = read_spans(which)
    order.shuffle(spans)
    path = tmp_path_factory.mktemp("enc") / "trace.json"
    path.write_text(encode(spans, shape=shape, base64_ids=base64_ids, plain=plain, json_strings=json_strings))
    assert sniff(path.read_bytes()[:65536])
    assert _turn_dump(read_spans(path)) == BASELINE[which.name]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.floats(min_value=0.0, max_value=0.999), shape=st.sampled_from(["request", "jsonl-spans"]))
def test_a_truncated_file_is_a_data_error_naming_the_file_never_another_exception(
    tmp_path_factory, cut, shape
):
    text = encode(read_spans(ADK_TRACE), shape=shape, base64_ids=False, plain=False, json_strings=True)
    path = tmp_path_factory.mktemp("cut") / "trace.json"
    path.write_text(text[: int(len(text) * cut)])
    try:
        OtelReader().read_actual(path, _cases())
    except DataError as exc:
        assert str(exc).startswith(str(path))
    else:  # a cut at a line's end leaves a shorter but valid JSONL file
        assert shape == "jsonl-spans"


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (
            '{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz", "spanId": "00"}]}]}]}',
            "traceId: 'zz'",
        ),
        ('{"resourceSpans": {"a": 1}}', "resourceSpans: expected a list"),
        (
            '{"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "000000000000a101"}\n'
            '{"resourceSpans": [',
            "line 2: not valid JSON",
        ),
        ('{"traceId": "5b8efff798038103d269b633813fc60c"}\n{}', "line 1: span.spanId: expected an 8-byte id"),
        ('{"resourceSpans": [{"scopeSpans": [{"spans": [7]}]}]}', "spans[0]: expected a span object"),
        (  # a parent id's text, read once for the spans that share it, is no trace id
            '{"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "000000000000a101", '
            '"parentSpanId": "000000000000a100"}\n'
            '{"traceId": "000000000000a100", "spanId": "000000000000a102"}',
            "line 2: span.traceId: '000000000000a100' is not a 16-byte id",
        ),
    ],
)
def test_a_damaged_file_names_the_place_and_the_reason(tmp_path, content, fragment):
    path = tmp_path / "t.json"
    path.write_text(content)
    with pytest.raises(DataError) as info:
        read_spans(path)
    assert fragment in str(info.value) and str(info.value).startswith(str(path))


_SPAN_LINE = '{"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "000000000000a101"}'
_HUGE = "9" * 5000  # beyond the interpreter's 4,300-digit int conversion: a plain ValueError


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (
            f'{_SPAN_LINE}\n{{"traceId": {_HUGE}}}\n',
            "line 2: not valid JSON (Exceeds the limit (4300 digits)",
        ),
        (f'{{"resourceSpans": [], "n": {_HUGE}}}', "not valid JSON: Exceeds the limit (4300 digits)"),
        (f"{_SPAN_LINE}\n{'[' * 100_000}\n", "line 2: not valid JSON (arrays or objects nested too deeply"),
        ("[" * 100_000, "not valid JSON: arrays or objects nested too deeply"),
    ],
    ids=["jsonl-huge-int", "document-huge-int", "jsonl-deep", "document-deep"],
)
def test_text_json_refuses_without_a_decode_error_is_still_a_data_error(tmp_path, content, fragment):
    path = tmp_path / "t.jsonl"
    path.write_text(content)
    with pytest.raises(DataError) as info:
        read_spans(path)
    message = str(info.value)
    assert fragment in message and message.startswith(str(path))
    assert "set_int_max_str_digits" not in message  # the interpreter's advice is not the user's fix


@pytest.mark.parametrize("arguments", ['{"n": ' + _HUGE + "}", "[" * 100_000], ids=["huge-int", "deep"])
def test_an_attribute_s_json_text_json_cannot_read_stays_text(tmp_path, arguments):
    span = json.loads(_SPAN_LINE) | {
        "name": "execute_tool f",
        "attributes": [{"key": "gen_ai.tool.call.arguments", "value": {"stringValue": arguments}}],
    }
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    [read] = read_spans(path)
    assert read.attributes["gen_ai.tool.call.arguments"] == arguments


def test_elided_content_and_missing_tool_arguments_are_warnings_naming_the_setting(tmp_path):
    doc = json.loads(ADK_TRACE.read_text())
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for attribute in span["attributes"]:
            if attribute["key"] in ("gen_ai.output.messages", "gen_ai.input.messages"):
                attribute["value"] = {"stringValue": "<elided>"}
        span["attributes"] = [a for a in span["attributes"] if a["key"] != "gen_ai.tool.call.arguments"]
    path = tmp_path / "elided.json"
    path.write_text(json.dumps(doc))
    reader = OtelReader()
    cases = [c for c in _cases() if c.eval_id == "weather_paris"]
    for case in cases:  # no user text in the trace: matched by the session id
        case.eval_id = "s-weather"
    eval_set = reader.read_actual(path, cases)
    [turn] = eval_set.eval_cases[0].conversation
    assert turn.final_response is None and turn.user_content.text() == ""
    codes = [w.split(": ")[1] for w in reader.warnings[:-1]]
    assert {"content_elided", "tool_arguments_absent", "no_final_text", "no_user_content"} <= set(codes)
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY" in reader.warnings[-1]


def _span(span_id: str, parent, name: str, start: int, **attributes) -> Span:
    return Span("ab" * 16, span_id * 8, parent * 8 if parent else None, name, start, start + 10, attributes)


def test_adk_schema_1_spans_read_from_call_llm_json_and_the_legacy_tool_attributes(tmp_path):
    request = {"contents": [{"role": "user", "parts": [{"text": "What's the weather in Paris tomorrow?"}]}]}
    call = {
        "function_call": {"id": "c1", "name": "get_weather", "args": {"city": "Paris", "day": "tomorrow"}}
    }
    answer = "Tomorrow in Paris it will be sunny with a high of 24 degrees Celsius."
    usage = {"prompt_token_count": 50, "candidates_token_count": 5, "total_token_count": 55}
    spans = [
        _span("01", None, "invocation", 0, **{"gcp.vertex.agent.invocation_id": "e-1"}),
        _span(
            "02",
            "01",
            "invoke_agent weather",
            1,
            **{
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": "weather",
                "gen_ai.conversation.id": "weather_paris",
            },
        ),
        _span(
            "03",
            "02",
            "call_llm",
            2,
            **{
                "gcp.vertex.agent.llm_request": json.dumps(request),
                "gcp.vertex.agent.llm_response": json.dumps(
                    {"content": {"role": "model", "parts": [call]}, "usage_metadata": usage}
                ),
            },
        ),
        _span(
            "04",
            "03",
            "generate_content gemini-2.5-flash",
            3,
            **{"gen_ai.operation.name": "generate_content", "gen_ai.request.model": "gemini-2.5-flash"},
        ),
        _span(
            "05",
            "02",
            "execute_tool get_weather",
            20,
            **{
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.id": "c1",
                "gcp.vertex.agent.tool_call_args": json.dumps(call["function_call"]["args"]),
                "gcp.vertex.agent.tool_response": json.dumps({"forecast": "sunny"}),
            },
        ),
        _span(
            "06",
            "02",
            "call_llm",
            40,
            **{
                "gcp.vertex.agent.llm_request": json.dumps(request),
                "gcp.vertex.agent.llm_response": json.dumps(
                    {"content": {"role": "model", "parts": [{"text": answer}]}}
                ),
            },
        ),
    ]
    path = tmp_path / "v1.json"
    path.write_text(encode(spans, shape="request", base64_ids=True, plain=False, json_strings=False))
    got, warnings = _read(path, "weather_paris")
    [turn] = got["weather_paris"]
    assert turn.invocation_id == "e-1" and turn.user_content.text() == "What's the weather in Paris tomorrow?"
    assert [(c.name, c.args) for c in turn.tool_calls()] == [
        ("get_weather", {"city": "Paris", "day": "tomorrow"})
    ]
    assert [r.response for r in turn.tool_responses()] == [{"forecast": "sunny"}]
    assert turn.final_text() == answer and warnings == []
    events = turn.intermediate_data.invocation_events
    assert events[0].usage_metadata == usage and events[0].model_version == "gemini-2.5-flash"


def test_a_tool_call_no_tool_span_answers_is_an_unpaired_call(tmp_path):
    spans = [s for s in read_spans(ADK_TRACE) if s.operation != "execute_tool"]
    turns, _ = turns_of(spans)
    codes = {f.code for t in turns for f in t.findings}
    assert codes == {"unpaired_call"}


_INTERVALS = st.lists(
    st.tuples(st.integers(0, 40), st.integers(0, 8)).map(lambda p: (p[0], p[0] + p[1])), max_size=8
)


@given(a=_INTERVALS, b=_INTERVALS)
def test_model_and_tool_time_are_measured_as_unions_of_intervals(a, b):
    from agenteval_otel._turns import _length, _minus, _union

    def points(intervals):
        return {t for start, end in intervals for t in range(start, end)}

    assert _length(_union(a)) == len(points(a))
    assert points(_minus(_union(a), _union(b))) == points(a) - points(b)
    assert _length(_minus(_union(a), _union(b))) == len(points(a) - points(b))


def test_a_parent_cycle_or_content_no_message_can_hold_is_a_data_error_not_a_crash(tmp_path):
    looped = [_span("01", "01", "invoke_agent a", 0, **{"gen_ai.operation.name": "invoke_agent"})]
    looped.append(
        _span("02", "01", "chat m", 1, **{"gen_ai.operation.name": "chat", "gen_ai.output.messages": []})
    )
    turns, _ = turns_of(looped)  # a span that is its own parent: read once, no endless walk
    assert [len(t.invocation.intermediate_data.invocation_events) for t in turns] == [1]
    bad = [
        _span("01", None, "invocation", 0),
        _span(
            "02",
            "01",
            "call_llm",
            1,
            **{"gcp.vertex.agent.llm_response": {"content": {"parts": [{"bogus": 1}]}}},
        ),
    ]
    path = tmp_path / "bad.json"
    path.write_text(encode(bad, shape="request", base64_ids=False, plain=True, json_strings=True))
    with pytest.raises(DataError, match=r"the turn at span .*'invocation'.* cannot be read: "):
        OtelReader().read_actual(path, _cases())


@pytest.mark.parametrize("content", [True, False], ids=["actual", "lint"])
def test_a_user_message_no_message_can_hold_is_a_data_error_when_read_not_when_a_case_runs(tmp_path, content):
    request = {"contents": [{"role": "user", "parts": [{"text": 7}]}]}  # a number, not text
    bad = [
        _span("01", None, "invocation", 0),
        _span("02", "01", "call_llm", 1, **{"gcp.vertex.agent.llm_request": request}),
    ]
    path = tmp_path / "bad.json"
    path.write_text(encode(bad, shape="request", base64_ids=False, plain=True, json_strings=True))
    with pytest.raises(DataError, match=r"the turn at span .*'invocation'.* cannot be read: "):
        read_turns(path, content=content)
