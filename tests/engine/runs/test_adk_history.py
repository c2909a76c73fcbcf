"""``runs/_adk_history.py``: ADK eval history carries ADK 2.13's ``details`` (the efficiency
breakdowns, ``DurationDetails`` among them, and rubric scores), and ADK's model reads it."""

from __future__ import annotations

import pytest
from agenteval import AgentRunRecord, CriterionResult, InvocationResult, PluginInfo, Status
from agenteval.models import Content, Invocation, Part
from agenteval.runs import CaseRecord, CriterionEntry, EvalSetEntry
from agenteval.runs._adk_history import adk_history_documents

PLUGIN = PluginInfo(distribution="d", version="1", entry_point="m:C")
DURATION = {"total_seconds": 2.0, "model_seconds": 1.25, "tool_seconds": 0.5, "framework_seconds": 0.25}
RUBRICS = [{"rubric_id": "polite", "verdict": "yes", "score": 1.0, "rationale": "says please", "votes": {}}]


def _result(name: str, details: dict, status: Status = Status.INFORMATIONAL) -> CriterionResult:
    turn = InvocationResult(index=0, invocation_id="i0", score=1.0, status=status, details=details)
    summary = (
        {"rubric_scores": [{"rubric_id": "polite", "score": 1.0, "invocations": 1}]}
        if "rubrics" in details
        else details
    )
    return CriterionResult(
        criterion=name,
        threshold=None if status is Status.INFORMATIONAL else 0.5,
        score=1.0,
        status=status,
        plugin=PLUGIN,
        per_invocation=[turn],
        details=summary,
    )


def _document(*results: CriterionResult) -> dict:
    entry = EvalSetEntry(
        index=0,
        eval_set_id="s",
        case_ids=["c"],
        criteria=[
            CriterionEntry(
                name=r.criterion, distribution="d", version="1", entry_point="m:C", threshold=r.threshold
            )
            for r in results
        ],
    )
    turn = Invocation(invocation_id="i0", user_content=Content(role="user", parts=[Part(text="hi")]))
    record = CaseRecord(
        run_id="r",
        eval_set_index=0,
        eval_set_id="s",
        case_id="c",
        status=Status.PASSED,
        actual=AgentRunRecord(run=0, invocations=[turn]),
    )
    cases = [(entry, record, list(results), Status.PASSED)]
    [document] = adk_history_documents("app", cases, created=1.5).values()
    return document


def test_the_duration_split_and_token_breakdown_are_in_details_as_adk_writes_them():
    eval_result = pytest.importorskip("google.adk.evaluation.eval_result")
    tokens = {"total_tokens": 30, "input_tokens": 20, "output_tokens": 10}
    document = _document(_result("invocation_duration_v1", DURATION), _result("token_usage_v1", tokens))
    loaded = eval_result.EvalSetResult.model_validate(document)
    case = loaded.eval_case_results[0]
    duration, usage = case.overall_eval_metric_results
    assert duration.details.duration_details.model_dump() == DURATION
    assert usage.details.token_usage_details.total_tokens == 30
    assert usage.details.token_usage_details.cached_tokens is None
    per_turn = case.eval_metric_result_per_invocation[0].eval_metric_results[0]
    assert per_turn.details.duration_details.framework_seconds == 0.25


def test_rubric_scores_are_in_details_and_other_criteria_have_none():
    eval_result = pytest.importorskip("google.adk.evaluation.eval_result")
    document = _document(
        _result("rubric_based_final_response_quality_v1", {"rubrics": RUBRICS}, Status.PASSED),
        _result("response_match_score", {"rouge": 1.0}, Status.PASSED),
    )
    case = eval_result.EvalSetResult.model_validate(document).eval_case_results[0]
    rubric, plain = case.overall_eval_metric_results
    assert [(s.rubric_id, s.score) for s in rubric.details.rubric_scores] == [("polite", 1.0)]
    [turn_rubric] = case.eval_metric_result_per_invocation[0].eval_metric_results[0].details.rubric_scores
    assert (turn_rubric.rubric_id, turn_rubric.rationale, turn_rubric.score) == ("polite", "says please", 1.0)
    assert plain.details.model_dump() == {
        "rubric_scores": None,
        "token_usage_details": None,
        "duration_details": None,
    }


def test_a_vertex_metrics_explanation_is_written_as_adk_writes_it():
    eval_result = pytest.importorskip("google.adk.evaluation.eval_result")
    details = {"rubrics": RUBRICS, "explanation": "the user got the booking"}
    document = _document(_result("multi_turn_task_success_v1", details, Status.PASSED))
    case = eval_result.EvalSetResult.model_validate(document).eval_case_results[0]
    scores = case.eval_metric_result_per_invocation[0].eval_metric_results[0].details.rubric_scores
    assert [(s.rubric_id, s.rationale, s.score) for s in scores] == [
        ("polite", "says please", 1.0),
        ("explanation", "the user got the booking", None),
    ]
