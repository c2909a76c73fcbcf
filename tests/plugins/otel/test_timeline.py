"""The waterfall of a trace-recorded turn (``FormatReader.timeline`` through
``agenteval.plugins.read_timeline``): every span of the turn with its depth, start and
duration, and the tool's arguments and result; nothing for a changed or missing file."""

from __future__ import annotations

import hashlib
from pathlib import Path

from agenteval import load_eval_set
from agenteval.plugins import read_timeline
from agenteval_otel._otlp import read_spans
from agenteval_otel._timeline import CLIP
from agenteval_otel._turns import turns_of

FIXTURES = Path(__file__).parent / "fixtures"
JAEGER = FIXTURES / "langgraph.jaeger.json"


def _ids(path: Path) -> list[str]:
    return [t.invocation.invocation_id for t in turns_of(read_spans(path))[0]]


def test_a_turn_s_spans_as_waterfall_rows():
    digest = hashlib.sha256(JAEGER.read_bytes()).hexdigest()
    [turn] = read_timeline(JAEGER, _ids(JAEGER), digest)
    rows = turn["spans"]
    assert [(r["name"], r["depth"], r["start_ms"], r["duration_ms"]) for r in rows] == [
        ("invoke_agent weather", 0, 0.0, 3000.0),
        ("chat gpt-4o-mini", 1, 10.0, 400.0),
        ("execute_tool get_weather", 1, 420.0, 900.0),
        ("chat gpt-4o-mini", 1, 1400.0, 1500.0),
    ]
    assert rows[2]["attributes"] == {
        "tool": "get_weather",
        "arguments": '{"city": "Paris", "day": "tomorrow"}',
        "result": '{"forecast": "sunny", "high_c": 24}',
    }


def test_the_turns_asked_for_in_their_order_and_nested_depths():
    ids = _ids(FIXTURES / "adk_v2.otlp.json")
    turns = read_timeline(FIXTURES / "adk_v2.otlp.json", [ids[2], "nope", ids[0]])
    assert [t["invocation_id"] for t in turns] == [ids[2], ids[0]]
    depths = [r["depth"] for r in turns[0]["spans"]]
    assert depths[0] == 0 and max(depths) >= 2


def test_long_values_are_clipped(tmp_path):
    text = JAEGER.read_text().replace('\\"sunny\\"', '\\"' + "s" * (3 * CLIP) + '\\"')
    path = tmp_path / "long.json"
    path.write_text(text)
    [turn] = read_timeline(path, _ids(path))
    assert len(turn["spans"][2]["attributes"]["result"]) == CLIP


def test_no_timeline_for_a_changed_missing_or_adk_file(tmp_path):
    ids = _ids(JAEGER)
    assert read_timeline(JAEGER, ids, "0" * 64) is None
    assert read_timeline(tmp_path / "gone.json", ids) is None
    evalset = FIXTURES / "travel.evalset.json"
    assert load_eval_set(evalset) and read_timeline(evalset, ids) is None


def test_a_file_s_format_is_chosen_once_while_it_is_unchanged(tmp_path, monkeypatch):
    """A report or a viewer asks case by case: the file's head is read and parsed once."""
    from agenteval._loading import _formats

    chosen = []
    real = _formats.choose_format
    monkeypatch.setattr(_formats, "choose_format", lambda path: chosen.append(path) or real(path))
    _formats._timeline_format.cache_clear()
    path = tmp_path / "trace.json"
    path.write_bytes(JAEGER.read_bytes())
    ids = _ids(path)
    for _ in range(3):
        [turn] = read_timeline(path, ids)
        assert turn["spans"]
    assert len(chosen) == 1
    evalset = tmp_path / "trace.json"
    evalset.write_bytes((FIXTURES / "travel.evalset.json").read_bytes())  # another size: chosen again
    assert read_timeline(evalset, ids) is None and len(chosen) == 2


def test_no_turns_asked_tells_whether_the_file_has_timelines_without_reading_its_spans(monkeypatch):
    """``read_timeline(path, [])``: ``[]`` for a trace file, its spans not read (a viewer asks
    so which of a run's files to look in); ``None`` for an ADK file or a changed one."""
    from agenteval_otel import _reader

    def no_read(*args, **kwargs):
        raise AssertionError("the spans were read")

    monkeypatch.setattr(_reader, "read_spans", no_read)
    _reader._spans_of.cache_clear()
    digest = hashlib.sha256(JAEGER.read_bytes()).hexdigest()
    assert read_timeline(JAEGER, [], digest) == [] and read_timeline(JAEGER, []) == []
    assert read_timeline(JAEGER, [], "0" * 64) is None
    assert read_timeline(FIXTURES / "adk_v2.actual.json", []) is None
