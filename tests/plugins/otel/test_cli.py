"""``agenteval run EVALSET --actual TRACE`` scores a trace as ADK's own recording of the
same runs scores, and ``agenteval lint-trace`` says what a trace lacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agenteval.cli import main
from click.testing import CliRunner

from tests.plugins.otel._cli import run_scores

FIXTURES = Path(__file__).parent / "fixtures"
EVALSET = FIXTURES / "travel.evalset.json"


def test_a_trace_scores_as_adk_s_own_recording_of_the_same_runs_criterion_by_criterion(runner):
    from_trace = run_scores(runner, str(EVALSET), "--actual", str(FIXTURES / "adk_v2.otlp.json"))
    from_adk = run_scores(runner, str(EVALSET), "--actual", str(FIXTURES / "adk_v2.actual.json"))
    assert from_trace == from_adk
    criteria = {criterion for _, criterion in from_trace}
    assert {
        "tool_trajectory_avg_score",
        "response_match_score",
        "token_usage_v1",
        "inference_call_count_v1",
    } <= criteria
    assert from_trace[("flight_then_currency", "inference_call_count_v1")][0] == 2.0


def test_format_in_otel_and_a_non_adk_trace(runner):
    target = f"{EVALSET}:weather_paris"
    scores = run_scores(
        runner, target, "--actual", str(FIXTURES / "openai_agents.otlp.json"), "--format-in", "otel"
    )
    # IN_ORDER: the handoff (transfer_to_weather) is an extra call, which that match allows.
    assert scores[("weather_paris", "tool_trajectory_avg_score")][:2] == (1.0, "PASSED")
    assert scores[("weather_paris", "tool_call_count_v1")][0] == 2.0
    assert scores[("weather_paris", "inference_call_count_v1")][0] == 4.0
    assert scores[("weather_paris", "response_match_score")][1] == "PASSED"


def _elided(tmp_path: Path, *keys: str) -> Path:
    """The ADK fixture with ``keys`` elided; eliding the tool spans' arguments elides them in
    the model's output too (it records each call: its arguments would stand in)."""
    doc = json.loads((FIXTURES / "adk_v2.otlp.json").read_text())
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for attribute in span["attributes"]:
            if attribute["key"] in keys:
                attribute["value"] = {"stringValue": "<elided>"}
            elif attribute["key"] == "gen_ai.output.messages" and "gen_ai.tool.call.arguments" in keys:
                messages = json.loads(attribute["value"]["stringValue"])
                for part in (p for m in messages for p in m["parts"] if p["type"] == "tool_call"):
                    part["arguments"] = "<elided>"
                attribute["value"] = {"stringValue": json.dumps(messages)}
    path = tmp_path / "elided.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_criterion_whose_inputs_the_trace_lacks_is_not_evaluated_naming_the_finding(runner, tmp_path):
    trace = _elided(tmp_path, "gen_ai.tool.call.arguments")
    scores = _reasons(runner, f"{EVALSET}:weather_paris", "--actual", str(trace))
    status, code, reason = scores["tool_trajectory_avg_score"]
    assert (status, code) == ("NOT_EVALUATED", "tool_arguments_elided")
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY" in reason and "turn 1" in reason
    assert scores["response_match_score"][0] == "PASSED"  # it reads the final text, which is there
    assert scores["token_usage_v1"][0] == "INFORMATIONAL"

    trace = _elided(tmp_path, "gen_ai.output.messages")
    scores = _reasons(runner, f"{EVALSET}:weather_paris", "--actual", str(trace))
    assert scores["response_match_score"][:2] == ("NOT_EVALUATED", "content_elided")
    assert scores["inference_call_count_v1"][0] == "INFORMATIONAL"


def _reasons(runner: CliRunner, *args: str) -> dict[str, tuple]:
    result = runner.invoke(main, ["run", *args, "--format", "json", "--no-record"])
    assert result.exit_code in (0, 1), result.output
    [case] = json.loads(result.stdout)["eval_sets"][0]["cases"]
    return {r["criterion"]: (r["status"], r["reason_code"], r["reason"]) for r in case["criteria"]}


@pytest.mark.parametrize("cut", [0.3, 0.77])
def test_a_truncated_trace_exits_2_with_the_file_and_the_reason(runner, tmp_path, cut):
    text = (FIXTURES / "adk_v2.otlp.json").read_text()
    path = tmp_path / "trace.json"
    path.write_text(text[: int(len(text) * cut)])
    result = runner.invoke(main, ["run", str(EVALSET), "--actual", str(path), "--no-record"])
    assert result.exit_code == 2, result.output
    assert f"error: {path}: not valid JSON" in result.output and "cut off or damaged" in result.output
    assert "Traceback" not in result.output


def test_a_selected_case_missing_from_the_trace_exits_2_listing_it(runner):
    trace = FIXTURES / "openai_agents.otlp.json"
    result = runner.invoke(main, ["run", str(EVALSET), "--actual", str(trace), "--no-record"])
    assert result.exit_code == 2
    assert "no session in this trace for case(s) 'flight_then_currency'" in result.output


def test_lint_trace_of_a_complete_trace(runner):
    result = runner.invoke(main, ["lint-trace", str(FIXTURES / "adk_v2.otlp.json")])
    assert result.exit_code == 0, result.output
    assert "4 trace(s), 3 session(s), 4 turn(s)" in result.output and "nothing lacking" in result.output


def test_lint_trace_names_each_finding_and_the_setting_to_turn_on(runner, tmp_path):
    doc = json.loads((FIXTURES / "openai_agents.otlp.json").read_text())
    spans = doc["resourceSpans"][0]["instrumentationLibrarySpans"][0]["spans"]
    for span in spans:
        for attribute in span["attributes"]:
            if attribute["key"] == "gen_ai.output.messages":
                attribute["value"] = {"stringValue": "<elided>"}
        span["attributes"] = [a for a in span["attributes"] if a["key"] != "gen_ai.tool.call.result"]
    spans.append(
        {
            "traceId": "1" * 32,
            "spanId": "2" * 16,
            "name": "GET /health",
            "startTimeUnixNano": "1",
            "attributes": [],
        }
    )
    path = tmp_path / "elided.json"
    path.write_text(json.dumps(doc))
    result = runner.invoke(main, ["lint-trace", str(path)])
    assert result.exit_code == 1, result.output
    out = result.output
    for code in ("content_elided", "tool_result_absent", "no_final_text", "unknown_schema"):
        assert f"  {code}: " in out
    assert (
        "execute_tool get_weather" in out
        and "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY" in out
    )


def test_lint_trace_of_a_damaged_file_exits_2(runner, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"resourceSpans": [')
    result = runner.invoke(main, ["lint-trace", str(path)])
    assert result.exit_code == 2 and f"error: {path}: not valid JSON" in result.output


def test_a_jsonl_line_with_a_5000_digit_integer_exits_2_without_a_traceback(runner, tmp_path):
    path = tmp_path / "t.jsonl"
    span = '{"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "000000000000a101"}'
    path.write_text(f'{span}\n{{"traceId": {"9" * 5000}}}\n')
    for args in (["lint-trace", str(path)], ["run", str(EVALSET), "--actual", str(path), "--no-record"]):
        result = runner.invoke(main, args)
        assert result.exit_code == 2, result.output
        assert f"error: {path}: line 2: not valid JSON" in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)


def test_the_distribution_registers_the_format_and_the_command():
    from agenteval._plugins import KINDS, PluginFinder
    from agenteval_otel import OtelReader

    assert PluginFinder(KINDS["agenteval.formats"]).load_one("otel") is OtelReader
    assert {"lint-trace", "import-trace"} <= set(PluginFinder(KINDS["agenteval.commands"]).names())
    assert "otel" in PluginFinder(KINDS["agenteval.reporters"]).names()


def test_lint_trace_escapes_the_trace_s_text(runner, tmp_path):
    doc = json.loads((FIXTURES / "adk_v2.otlp.json").read_text())
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        span["name"] = span["name"] + "\x1b[2J"
        for attribute in span["attributes"]:
            if attribute["key"] == "gen_ai.conversation.id":
                attribute["value"] = {"stringValue": "s\x1b[31mred"}
            if attribute["key"] == "gen_ai.tool.call.result":
                attribute["value"] = {"stringValue": "<elided>"}
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(doc))
    result = runner.invoke(main, ["lint-trace", str(path)])
    assert result.exit_code == 1, result.output
    assert "\x1b" not in result.output and "tool_result_absent" not in result.output
    assert "tool_result_elided" in result.output


@pytest.mark.parametrize("trace", ["langgraph.jaeger.json", "event_only.otlp.json"])
def test_a_jaeger_export_and_an_event_only_trace_with_its_logs_score_and_lint_clean(runner, trace):
    scores = _reasons(runner, f"{EVALSET}:weather_paris", "--actual", str(FIXTURES / trace))
    assert scores["tool_trajectory_avg_score"][0] == scores["response_match_score"][0] == "PASSED"
    result = runner.invoke(main, ["lint-trace", str(FIXTURES / trace)])
    assert result.exit_code == 0 and "nothing lacking" in result.output, result.output


def test_re_scoring_the_run_folder_of_a_trace_that_lacks_content_is_not_evaluated_again(runner, tmp_path):
    trace = _elided(tmp_path, "gen_ai.tool.call.arguments")
    runs = tmp_path / "runs"
    first = runner.invoke(
        main, ["run", f"{EVALSET}:weather_paris", "--actual", str(trace), "--runs-dir", str(runs), "-q"]
    )
    assert first.exit_code == 1, first.output
    [folder] = [p for p in runs.iterdir() if p.is_dir()]
    scores = _reasons(runner, f"{EVALSET}:weather_paris", "--actual", str(folder))
    assert scores["tool_trajectory_avg_score"][:2] == ("NOT_EVALUATED", "tool_arguments_elided")


@pytest.mark.parametrize("command", [["lint-trace", ""], ["import-trace", "", "-o", "x.evalset.json"]])
def test_an_empty_trace_path_is_exit_2_not_a_traceback(runner, tmp_path, monkeypatch, command):
    """Found by fuzzing the commands: ``Path("")`` is ``.``, which has no name to put a logs
    file's beside (``ValueError``)."""
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(main, command)
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Is a directory" in result.output and not (tmp_path / "x.evalset.json").exists()
