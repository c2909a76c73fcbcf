"""``agenteval import-trace``: a recorded trace written as an ADK eval set that agenteval's
loader reads; as actual invocations it scores as the trace does, as expected ones a later
recording of the same runs scores full marks against it; a trace that lacks content is refused."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from agenteval import load_eval_set
from agenteval.cli import main
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.plugins.otel._cli import run_scores

FIXTURES = Path(__file__).parent / "fixtures"
EVALSET = FIXTURES / "travel.evalset.json"
ADK_TRACE = FIXTURES / "adk_v2.otlp.json"
CONFIG = FIXTURES / "test_config.json"


def test_imported_as_actual_it_scores_exactly_as_the_trace(runner, tmp_path):
    out = tmp_path / "recorded.evalset.json"
    result = runner.invoke(main, ["import-trace", str(ADK_TRACE), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert {c.eval_id for c in load_eval_set(out).eval_cases} == {"s-weather", "s-flight", "s-other-app"}
    result = runner.invoke(main, ["import-trace", str(ADK_TRACE), "-o", str(out), "--cases", str(EVALSET)])
    assert result.exit_code == 0, result.output
    loaded = load_eval_set(out)
    assert loaded.eval_set_id == "recorded"
    assert {c.eval_id for c in loaded.eval_cases} == {"weather_paris", "flight_then_currency"}
    from_file = run_scores(runner, str(EVALSET), "--actual", str(out))
    assert from_file == run_scores(runner, str(EVALSET), "--actual", str(ADK_TRACE))


def test_imported_as_expected_a_later_recording_scores_full_marks_against_it(runner, tmp_path):
    out = tmp_path / "golden.evalset.json"
    (tmp_path / "test_config.json").write_text(CONFIG.read_text())
    result = runner.invoke(
        main, ["import-trace", str(FIXTURES / "langgraph.jaeger.json"), "-o", str(out), "--as-expected"]
    )
    assert result.exit_code == 0, result.output
    [case] = load_eval_set(out).eval_cases
    [turn] = case.conversation
    assert case.eval_id == "weather_paris" and turn.duration is None
    assert [(c.name, c.args) for c in turn.intermediate_data.tool_uses] == [
        ("get_weather", {"city": "Paris", "day": "tomorrow"})
    ]
    # the same runs recorded another way (OTLP spans with their content in logs)
    scores = run_scores(runner, str(out), "--actual", str(FIXTURES / "event_only.otlp.json"))
    gated = {k: v for k, v in scores.items() if v[1] != "INFORMATIONAL"}
    assert gated and all(status == "PASSED" and score == 1.0 for score, status, _ in gated.values())


def test_the_printed_command_runs(tmp_path):
    out = tmp_path / "golden set.evalset.json"
    result = CliRunner().invoke(
        main, ["import-trace", str(FIXTURES / "langgraph.jaeger.json"), "-o", str(out), "--as-expected"]
    )
    line = next(ln for ln in result.output.splitlines() if ln.startswith("score a later recording"))
    command = line.split(": ", 1)[1].replace(
        "LATER_TRACE.json", shlex.quote(str(FIXTURES / "event_only.otlp.json"))
    )
    argv = shlex.split(command)
    assert argv[:2] == ["agenteval", "run"]
    done = subprocess.run(
        [sys.executable, "-m", "agenteval", *argv[1:], "--no-record"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_trace_that_lacks_content_is_refused_with_the_findings(runner, tmp_path):
    doc = json.loads(ADK_TRACE.read_text())
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for attribute in span["attributes"]:
            if attribute["key"] == "gen_ai.tool.call.result":
                attribute["value"] = {"stringValue": "<elided>"}
    trace = tmp_path / "elided.json"
    trace.write_text(json.dumps(doc))
    out = tmp_path / "x.evalset.json"
    result = runner.invoke(main, ["import-trace", str(trace), "-o", str(out), "--as-expected"])
    assert result.exit_code == 2 and not out.exists()
    assert (
        "tool_result_elided" in result.output
        and "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in result.output
    )
    assert "Traceback" not in result.output


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(picks=st.lists(st.integers(0, 100), max_size=5), name=st.text(max_size=20))
def test_the_eval_set_is_written_a_case_at_a_time_byte_for_byte_as_dumped_whole(tmp_path, picks, name):
    from agenteval.models import EvalSet
    from agenteval_otel._golden import eval_set_from_trace
    from agenteval_otel._import_command import write_eval_set

    whole = eval_set_from_trace(ADK_TRACE, "set", as_expected=False)
    cases = [whole.eval_cases[i % len(whole.eval_cases)] for i in picks]
    eval_set = EvalSet(eval_set_id="set", name=name + '"eval_cases": []', eval_cases=cases)
    output = tmp_path / "out.evalset.json"
    dumped = eval_set.model_dump_json(indent=2, exclude_none=True) + "\n"
    assert write_eval_set(eval_set, output) == [case.eval_id for case in cases]
    assert output.read_text(encoding="utf-8") == dumped
    # the cases given one at a time as they are built, beside a frame without them
    frame = eval_set.model_copy(update={"eval_cases": []})
    assert write_eval_set(frame, output, iter(cases)) == [case.eval_id for case in cases]
    assert output.read_text(encoding="utf-8") == dumped


def test_the_cases_are_built_one_at_a_time_as_they_are_written(tmp_path):
    from agenteval_otel._golden import eval_set_from_trace, imported_cases

    frame, found = imported_cases(ADK_TRACE, "set", as_expected=False)
    assert frame.eval_cases == [] and not isinstance(found, list)
    whole = eval_set_from_trace(ADK_TRACE, "set", as_expected=False)
    assert [next(iter(found))] == whole.eval_cases[:1]  # built when reached, equal to the whole set's
    # built again each time it is read, by index too (a helper process writes by index)
    assert found[0] == whole.eval_cases[0] and found[0] is not found[0]
    assert found[-1:] == whole.eval_cases[-1:] and len(found) == len(whole.eval_cases)


def _elided(tmp_path: Path, tool: str = "") -> Path:
    """The ADK trace with its tool results (of the tool ``tool``, or every one) elided."""
    doc = json.loads(ADK_TRACE.read_text())
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for attribute in span["attributes"]:
            if attribute["key"] == "gen_ai.tool.call.result" and span["name"].endswith(tool):
                attribute["value"] = {"stringValue": "<elided>"}
    trace = tmp_path / "elided.json"
    trace.write_text(json.dumps(doc))
    return trace


def test_the_sessions_a_trace_holds_are_listed_with_what_each_lacks(tmp_path):
    from agenteval_otel import OtelReader

    listed = OtelReader().recorded_sessions(ADK_TRACE)
    assert [(s["session_id"], s["case_id"], s["turns"], s["findings"]) for s in listed["sessions"]] == [
        ("s-weather", "s-weather", 1, []),
        ("s-flight", "s-flight", 2, []),
        ("s-other-app", "s-other-app", 1, []),
    ]
    assert listed["sessions"][0]["first_user_text"] == "What's the weather in Paris tomorrow?"
    [jaeger] = OtelReader().recorded_sessions(FIXTURES / "langgraph.jaeger.json")["sessions"]
    assert (jaeger["session_id"], jaeger["case_id"]) == ("thread-7", "weather_paris")
    lacking = OtelReader().recorded_sessions(_elided(tmp_path))["sessions"]
    assert all(s["findings"] for s in lacking)
    assert "tool_result_elided" in lacking[0]["findings"][0]


def test_one_session_is_the_case_import_trace_writes_for_it(tmp_path):
    from agenteval_otel import OtelReader

    for trace in (ADK_TRACE, FIXTURES / "langgraph.jaeger.json", FIXTURES / "event_only.otlp.json"):
        for as_expected in (True, False):
            out = tmp_path / "all.evalset.json"
            flag = ["--as-expected"] if as_expected else []
            done = CliRunner().invoke(main, ["import-trace", str(trace), "-o", str(out), *flag])
            assert done.exit_code == 0, done.output
            written = json.loads(out.read_text())["eval_cases"]
            sessions = OtelReader().recorded_sessions(trace)["sessions"]
            assert len(sessions) == len(written)
            for session, case in zip(sessions, written, strict=True):
                one = OtelReader().session_case(trace, session["session_id"], as_expected=as_expected)
                assert json.loads(one.model_dump_json(exclude_none=True)) == case


def test_a_session_that_lacks_content_or_is_not_there_is_refused(tmp_path):
    import pytest
    from agenteval.errors import DataError
    from agenteval_otel import OtelReader

    trace = _elided(tmp_path, "get_weather")
    with pytest.raises(DataError) as refused:
        OtelReader().session_case(trace, "s-weather")
    assert "session s-weather: turn 1: tool_result_elided" in refused.value.message
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in refused.value.message
    assert OtelReader().session_case(trace, "s-other-app").eval_id == "s-other-app"  # lacks nothing
    found = "no session 'nope'; sessions found: s-flight, s-other-app, s-weather"
    with pytest.raises(DataError, match=found):
        OtelReader().session_case(ADK_TRACE, "nope")


def test_a_trace_is_read_once_while_its_content_is_unchanged(tmp_path, monkeypatch):
    """The viewer lists a trace's sessions, then starts a case from one: one read of the file;
    other bytes of the same size, written at once (the file's times may not change), are
    read again."""
    from agenteval_otel import OtelReader, _golden

    reads = []
    real = _golden.read_turns
    monkeypatch.setattr(_golden, "read_turns", lambda path: reads.append(path) or real(path))
    monkeypatch.setattr(_golden, "_last_read", None)
    document = json.loads(ADK_TRACE.read_text())
    trace = tmp_path / "trace.otlp.json"
    trace.write_text(json.dumps(document))
    listed = OtelReader().recorded_sessions(trace)["sessions"]
    for session in listed:
        OtelReader().session_case(trace, session["session_id"])
    assert len(reads) == 1 and "s-weather" in [s["session_id"] for s in listed]
    size = trace.stat().st_size
    for span in document["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for attribute in span.get("attributes", ()):
            if attribute["value"].get("stringValue") == "s-weather":
                attribute["value"]["stringValue"] = "s-climate"  # as long: the file keeps its size
    trace.write_text(json.dumps(document))
    assert trace.stat().st_size == size
    ids = [s["session_id"] for s in OtelReader().recorded_sessions(trace)["sessions"]]
    assert len(reads) == 2 and "s-climate" in ids and "s-weather" not in ids
    assert OtelReader().session_case(trace, "s-climate").eval_id == "s-climate" and len(reads) == 2
