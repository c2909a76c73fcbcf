"""The multi-turn Vertex criteria (``multi_turn_task_success_v1``, ``..._trajectory_quality_v1``,
``..._tool_use_quality_v1``) through ``agenteval.evaluate``, the judge service and the real
google-cloud-aiplatform client, against the loopback fake evaluation service; the request
checked against what ADK 2.13's own facade sends to the same fake."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import agenteval
import pytest
from agenteval import JudgeService, Status
from agenteval.models import AgentDetails, AppDetails, EvalSet
from agenteval.testing import make_case, make_invocation
from agenteval_tests_fixtures_fake_vertex_eval import EvalReply

METRICS = ["multi_turn_task_success_v1", "multi_turn_trajectory_quality_v1", "multi_turn_tool_use_quality_v1"]
TOOLS = [{"function_declarations": [{"name": "stock", "description": "Is it in stock?"}]}]


def conversation():
    app = AppDetails(
        agent_details={"shop": AgentDetails(name="shop", instructions="Sell shoes.", tool_declarations=TOOLS)}
    )
    turns = [
        make_invocation("Red shoes?", "Yes.", [("stock", {"colour": "red"})], form="events", author="shop"),
        make_invocation("Buy them", "Done.", form="events", author="shop", invocation_id="t2"),
    ]
    return [t.model_copy(update={"app_details": app}) for t in turns]


def run(name: str, conversation_=None, threshold: float = 0.5):
    turns = conversation_ or conversation()
    eval_set = EvalSet(eval_set_id="set", eval_cases=[make_case(turns, eval_id="case")])
    criteria = {name: {"threshold": threshold, "judge_model_options": {"max_retries": 1}}}
    outcome = agenteval.evaluate(eval_set, {"case": turns}, criteria, judge=JudgeService())
    return outcome.eval_sets[0].cases[0].criteria[0]


@pytest.mark.parametrize("name", METRICS)
def test_one_call_scores_the_last_turn(vertex_safety_env, name):
    vertex_safety_env.script(
        EvalReply(
            score=0.75,
            explanation="Mostly done.",
            rubric_verdicts=(
                ("The order is placed.", True, "It is."),
                ("The size is asked.", False, "Never."),
            ),
        )
    )
    result = run(name)
    assert (result.status, result.score) == (Status.PASSED, 0.75), result.reason
    (request,) = vertex_safety_env.requests
    assert request.body["metrics"] == [{"predefinedMetricSpec": {"metricSpecName": name}}]
    first, last = result.per_invocation
    assert (first.score, first.reason_code) == (None, "earlier_turn")
    assert last.details["explanation"] == "Mostly done."
    # The explanation is never a rubric; the verdicts are named by their text, as ADK names them.
    assert [(r["rubric_id"], r["verdict"], r["score"]) for r in last.details["rubrics"]] == [
        ("The order is placed.", "yes", 1.0),
        ("The size is asked.", "no", 0.0),
    ]
    assert result.judge.calls == 1


def test_no_score_keeps_the_explanation_and_a_metric_error_is_not_evaluated(vertex_safety_env):
    vertex_safety_env.script(EvalReply(score=None, explanation="Could not tell."))
    result = run("multi_turn_task_success_v1")
    assert (result.status, result.reason_code) == (Status.NOT_EVALUATED, "no_score")
    assert "Could not tell." in result.reason
    vertex_safety_env.script(EvalReply(metric_error="agent_data has no turns"))
    result = run("multi_turn_task_success_v1")
    assert result.status is Status.NOT_EVALUATED
    assert (
        "agent_data has no turns" in result.reason and "explanation" not in result.per_invocation[-1].details
    )


def test_below_threshold_fails(vertex_safety_env):
    vertex_safety_env.script(EvalReply(score=0.2, explanation="The task failed."))
    result = run("multi_turn_tool_use_quality_v1")
    assert result.status is Status.FAILED and result.score == pytest.approx(0.2)
    assert "The task failed." in result.per_invocation[-1].reason


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", lambda m: "_" + m.group(1).lower(), key)


def _normal(value: Any) -> Any:
    """A request body with snake_case keys and no empty values (proto JSON drops them)."""
    if isinstance(value, dict):
        items = {_snake(k): _normal(v) for k, v in value.items()}
        return {k: v for k, v in items.items() if v not in (None, "", [], {})}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::FutureWarning", "ignore::DeprecationWarning")
def test_the_request_is_the_one_adk_sends(vertex_safety_env, monkeypatch):
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    facade = pytest.importorskip("google.adk.evaluation.multi_turn_task_success_evaluator")
    import agentplatform
    import google.auth
    import google.oauth2.credentials
    from google.adk.evaluation.eval_case import Invocation as AdkInvocation
    from google.adk.evaluation.eval_metrics import EvalMetric

    token = google.oauth2.credentials.Credentials(token="fake")
    real_client = agentplatform.Client
    monkeypatch.setattr(google.auth, "default", lambda *a, **k: (token, "fake-project"))
    monkeypatch.setattr(
        agentplatform,
        "Client",
        lambda **kw: real_client(
            **{**kw, "credentials": token, "http_options": {"base_url": vertex_safety_env.base_url}}
        ),
    )
    ours = conversation()
    theirs = [AdkInvocation.model_validate(i.model_dump(mode="json", exclude_none=True)) for i in ours]
    evaluator = facade.MultiTurnTaskSuccessV1Evaluator(
        EvalMetric(metric_name="multi_turn_task_success_v1", threshold=0.5)
    )
    vertex_safety_env.script(EvalReply(score=1.0, explanation="Done."))
    adk_result = evaluator.evaluate_invocations(theirs)
    if asyncio.iscoroutine(adk_result):
        adk_result = asyncio.run(adk_result)
    assert adk_result.overall_score == 1.0
    # ADK reads the explanation back as a rubric score with the id "explanation".
    assert [r.rubric_id for r in adk_result.overall_rubric_scores] == ["explanation"]
    adk_request = vertex_safety_env.requests[-1]

    run("multi_turn_task_success_v1")
    our_request = vertex_safety_env.requests[-1]
    assert _normal(our_request.body) == _normal(adk_request.body)
    assert _normal(our_request.body)["instance"]["agent_eval_data"]["turns"][1]["turn_id"] == "t2"


def test_a_case_s_history_is_in_the_agent_data_and_only_the_judged_turn_is_scored(vertex_safety_env):
    """A dataset's ``conversation_history`` (context turns) is sent as the conversation's start."""
    vertex_safety_env.script(
        EvalReply(score=1.0, explanation="Done."), EvalReply(score=1.0, explanation="Done.")
    )
    turns = conversation()
    whole = run("multi_turn_task_success_v1")
    whole_request = vertex_safety_env.requests[-1]
    eval_set = EvalSet(eval_set_id="set", eval_cases=[make_case(turns, eval_id="case", context_turns=1)])
    criteria = {"multi_turn_task_success_v1": {"threshold": 0.5, "judge_model_options": {"max_retries": 1}}}
    outcome = agenteval.evaluate(eval_set, {"case": turns}, criteria, judge=JudgeService())
    result = outcome.eval_sets[0].cases[0].criteria[0]
    assert (result.status, result.score) == (Status.PASSED, 1.0) and whole.score == 1.0
    assert [p.index for p in result.per_invocation] == [1]  # the history's turn is not scored
    request = vertex_safety_env.requests[-1]
    assert _normal(request.body) == _normal(whole_request.body)  # both turns, the history first
    assert len(_normal(request.body)["instance"]["agent_eval_data"]["turns"]) == 2
