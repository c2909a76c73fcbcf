"""Traces recorded by ADK 2.13 itself score as ADK's own recording of the same runs.

``adk_recorder.py`` runs the scripted, offline ADK test team (no key, no network) with ADK's
own ``EvaluationGenerator`` under telemetry schema 1 and 2 and each content-capture mode,
keeping every span and log record ADK emits and the invocations ADK returned. Where the
content is captured, ``--actual TRACE`` scores exactly as ``--actual`` ADK's invocations,
criterion by criterion; where it is not, each criterion that needs it is NOT_EVALUATED with
the lint finding as its reason code and the setting to turn on in its reason, and
``lint-trace`` says the same. Skipped without google-adk (the floors' core venv)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from agenteval.cli import main

pytest.importorskip("google.adk", reason="the ADK-recorded fixtures need google-adk (agenteval-adk)")

HERE = Path(__file__).parent
EVALSET = HERE.parents[1] / "fixtures" / "adk_agents" / "weather_team" / "weather_team.evalset.json"
CRITERIA = (
    "tool_trajectory_avg_score,response_match_score,tool_call_count_v1,inference_call_count_v1,token_usage_v1"
)
SETTING = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY"
#: Schema 1's legacy spans carry the content whatever the OTel variable says
#: (ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS defaults on); schema 2 with EVENT_ONLY: in the logs.
CAPTURED = ["v1-NO_CONTENT", "v1-SPAN_ONLY", "v1-EVENT_ONLY", "v1-SPAN_AND_EVENT", "v2-SPAN_ONLY"]
CAPTURED += ["v2-SPAN_AND_EVENT"]
#: The transfer turn's final response: ADK's is the answering sub-agent's text.
TRANSFER = ("trip_then_thanks", "response_match_score")


@pytest.fixture(scope="module")
def recordings(tmp_path_factory) -> Path:
    """Every schema × mode's trace, logs and ADK invocations (a child process: ADK's global
    tracer and logger providers stay out of the test process)."""
    out = tmp_path_factory.mktemp("adk_recorded")
    done = subprocess.run(
        [sys.executable, str(HERE / "adk_recorder.py"), str(out)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def _scores(runner, actual: Path) -> dict[tuple[str, str], dict]:
    args = ["run", str(EVALSET), "--actual", str(actual), "--criteria", CRITERIA, "--format", "json"]
    result = runner.invoke(main, [*args, "--no-record"])
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    return {
        (case["eval_id"], r["criterion"]): {
            "score": r["score"],
            "status": r["status"],
            "reason_code": r["reason_code"],
            "reason": r["reason"] or "",
            "per_invocation": [p["score"] for p in r["per_invocation"]],
        }
        for case in doc["eval_sets"][0]["cases"]
        for r in case["criteria"]
    }


def _outcome(result: dict) -> tuple:
    return result["score"], result["status"], result["per_invocation"]


@pytest.mark.parametrize("name", CAPTURED)
def test_where_content_is_captured_the_trace_scores_as_adk_s_own_recording(runner, recordings, name):
    from_trace = _scores(runner, recordings / f"{name}.otlp.json")
    from_adk = _scores(runner, recordings / f"{name}.actual.json")
    assert from_trace.keys() == from_adk.keys()
    assert len(from_trace) == 15
    for key in from_adk:
        assert _outcome(from_trace[key]) == _outcome(from_adk[key]), key
    assert from_adk[("paris_weather", "tool_trajectory_avg_score")]["status"] == "PASSED"
    assert from_trace[("trip_then_thanks", "inference_call_count_v1")]["per_invocation"] == [4.0, 1.0]


@pytest.mark.parametrize("name", ["v1-SPAN_ONLY", "v2-SPAN_ONLY"])
def test_after_a_transfer_the_final_response_is_the_answering_agent_s(runner, recordings, name):
    from_trace = _scores(runner, recordings / f"{name}.otlp.json")
    from_adk = _scores(runner, recordings / f"{name}.actual.json")
    assert _outcome(from_trace[TRANSFER]) == _outcome(from_adk[TRANSFER]) == (1.0, "PASSED", [1.0, 1.0])


def test_without_content_each_criterion_that_needs_it_is_not_evaluated_naming_the_setting(runner, recordings):
    from_trace = _scores(runner, recordings / "v2-NO_CONTENT.otlp.json")
    from_adk = _scores(runner, recordings / "v2-NO_CONTENT.actual.json")
    for (case, criterion), result in from_trace.items():
        if criterion in ("inference_call_count_v1", "token_usage_v1"):  # counted from the spans alone
            assert _outcome(result) == _outcome(from_adk[case, criterion])
        else:
            assert (result["status"], result["reason_code"]) == ("NOT_EVALUATED", "content_absent")
            assert SETTING in result["reason"]
    lint = runner.invoke(main, ["lint-trace", str(recordings / "v2-NO_CONTENT.otlp.json")])
    assert "content_absent" in lint.output and "no_user_content" in lint.output and SETTING in lint.output


def test_under_event_only_the_text_and_tool_arguments_come_from_the_logs(runner, recordings):
    """Schema 2, EVENT_ONLY: the model calls' content is in log records (read from the logs
    file beside the trace); the tool spans carry no arguments or results, but the model's
    output carries each call's arguments, so the trajectory scores as ADK's and only the
    results are reported missing."""
    from_trace = _scores(runner, recordings / "v2-EVENT_ONLY.otlp.json")
    from_adk = _scores(runner, recordings / "v2-EVENT_ONLY.actual.json")
    assert _outcome(from_trace["paris_weather", "response_match_score"]) == (1.0, "PASSED", [1.0])
    assert _outcome(from_adk["paris_weather", "response_match_score"]) == (1.0, "PASSED", [1.0])
    for key in from_adk:
        assert _outcome(from_trace[key]) == _outcome(from_adk[key]), key
    assert from_trace["paris_weather", "tool_trajectory_avg_score"]["status"] == "PASSED"
    lint = runner.invoke(main, ["lint-trace", str(recordings / "v2-EVENT_ONLY.otlp.json")])
    assert "tool_result_absent" in lint.output and SETTING in lint.output
    assert "tool_arguments_absent" not in lint.output
    without_logs = recordings / "v2-EVENT_ONLY.otlp.logs.json"
    moved = without_logs.rename(without_logs.with_suffix(".off"))
    try:
        alone = _scores(runner, recordings / "v2-EVENT_ONLY.otlp.json")
    finally:
        moved.rename(without_logs)
    assert alone["paris_weather", "response_match_score"]["reason_code"] == "content_absent"
