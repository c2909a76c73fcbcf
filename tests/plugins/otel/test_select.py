"""Which traces ``--actual`` reads: spans of traces no selected case can match are checked but
never flattened, and a first user text is found in a model input's JSON text however the
exporter escaped it."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval_otel import _otlp
from agenteval_otel._select import read_turns


def _trace(index: int, user_json: str) -> str:
    trace_id = f"{index + 1:032x}"
    attributes = [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "generate_content"}},
        {"key": "gen_ai.conversation.id", "value": {"stringValue": f"s{index}"}},
        {"key": "agenteval.case_id", "value": {"stringValue": f"c{index}"}},
        {"key": "gen_ai.input.messages", "value": {"stringValue": user_json}},
    ]
    spans = [
        {
            "traceId": trace_id,
            "spanId": f"{index + 1:016x}",
            "name": "generate_content m",
            "attributes": attributes,
        }
    ]
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})


def _write(path: Path, users: list[str]) -> Path:
    path.write_text("\n".join(_trace(i, text) for i, text in enumerate(users)) + "\n", encoding="utf-8")
    return path


def _traces(turns: list) -> list[str]:
    return sorted({turn.trace_id for turn in turns})


def _user(text: str, **dumps: bool) -> str:
    return json.dumps([{"role": "user", "parts": [{"type": "text", "content": text}]}], **dumps)


def test_spans_of_traces_no_selected_case_can_match_are_never_flattened(tmp_path, monkeypatch):
    path = _write(tmp_path / "t.jsonl", [_user(f"question {i}") for i in range(50)])
    built: list[str] = []
    original = _otlp._flattened

    def counting(item, at, where, head):
        built.append(head[0])
        return original(item, at, where, head)

    monkeypatch.setattr(_otlp, "_flattened", counting)
    traces = _traces(read_turns(path, {"c7", "s9"}, {"question 11"})[0])
    assert sorted(traces) == [f"{i + 1:032x}" for i in (7, 9, 11)]
    assert sorted(built) == sorted(traces)


def test_a_first_user_text_is_found_however_the_json_text_escapes_it(tmp_path):
    texts = ['say "hi"', "café", "a/b", "tab\there", "plain"]
    users = [
        _user(texts[0]),
        _user(texts[1]),  # \u00e9
        _user(texts[1], ensure_ascii=False),
        _user(texts[2]).replace("/", "\\/"),
        _user(texts[3]),
        _user(texts[4]).replace("p", "\\u0070"),  # an exporter that escapes letters
        _user("not selected"),
    ]
    path = _write(tmp_path / "t.jsonl", users)
    traces = _traces(read_turns(path, set(), set(texts))[0])
    assert sorted(traces) == [f"{i + 1:032x}" for i in range(6)]


def test_a_model_input_is_parsed_only_when_read_and_elided_content_stays_itself(tmp_path):
    from agenteval_otel._otlp import read_spans
    from agenteval_otel._span import ELIDED, JsonText, value_of

    messages = [{"role": "user", "parts": [{"type": "text", "content": "hello"}]}]
    path = _write(tmp_path / "t.jsonl", [json.dumps(messages), ELIDED, json.dumps(json.dumps(messages))])
    lazy, elided, quoted = read_spans(path)
    assert type(lazy.attributes["gen_ai.input.messages"]) is JsonText
    assert value_of(lazy.attributes, "gen_ai.input.messages") == messages
    assert elided.attributes["gen_ai.input.messages"] == ELIDED
    assert value_of(quoted.attributes, "gen_ai.input.messages") == json.dumps(messages)
