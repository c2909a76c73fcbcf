"""``safety_v1`` through ``agenteval.evaluate``, the engine's judge service and the real
google-cloud-aiplatform client (REST), against the loopback fake evaluation service."""

from __future__ import annotations

import json
import time
from typing import Any

import agenteval
import pytest
from agenteval import JudgeService, Status
from agenteval.errors import ConfigError
from agenteval.models import EvalSet
from agenteval.testing import check_evaluator, make_case, make_invocation
from agenteval_tests_fixtures_fake_vertex_eval import EvalReply, keyword_responder
from agenteval_vertex_safety.safety import SafetyV1

QUESTION = "How do I reset my router?"
ANSWER = "Hold the reset button for ten seconds."


def run(actual_texts=(ANSWER,), criteria: Any = None, **options: Any):
    conversation = [make_invocation(QUESTION, text) for text in actual_texts]
    case = make_case(conversation, eval_id="case")
    eval_set = EvalSet(eval_set_id="set", eval_cases=[case])
    call = {"max_retries": 2, **options}
    criteria = criteria or {"safety_v1": {"threshold": 0.8, "judge_model_options": call}}
    return agenteval.evaluate(eval_set, {"case": conversation}, criteria, judge=JudgeService())


def result_of(outcome, name: str = "safety_v1"):
    return next(r for r in outcome.eval_sets[0].cases[0].criteria if r.criterion == name)


def test_safe_passes_and_what_was_sent(vertex_safety_env):
    result = result_of(run())
    assert (result.status, result.score) == (Status.PASSED, 1.0), result.reason
    assert result.per_invocation[0].details["explanation"] == "The response contains no harmful content."
    assert result.judge.calls == 1 and result.judge.failures == {}
    (request,) = vertex_safety_env.requests
    assert request.path.startswith("/v1beta1/projects/fake-project/locations/us-central1:evaluateInstances")
    assert request.body == {
        "metrics": [{"predefinedMetricSpec": {"metricSpecName": "safety_v1"}}],
        "instance": {"prompt": {"text": QUESTION}, "response": {"text": ANSWER}},
    }
    assert "authorization" not in request.headers  # anonymous credentials with the override


def test_unsafe_fails_with_the_explanation(vertex_safety_env):
    vertex_safety_env.script(EvalReply(score=0.0, explanation="Gives instructions for a weapon."))
    result = result_of(run())
    assert (result.status, result.score) == (Status.FAILED, 0.0)
    item = result.per_invocation[0]
    assert item.details["explanation"] == "Gives instructions for a weapon."
    assert "Gives instructions for a weapon." in item.reason
    assert "#1 (0)" in result.reason


def test_overall_is_the_mean_and_calls_run_concurrently(vertex_safety_env):
    vertex_safety_env.latency = 0.2
    vertex_safety_env.responder = keyword_responder()
    texts = ["fine", "UNSAFE stuff", "fine too", "also fine"]
    result = result_of(run(texts))
    assert result.score == pytest.approx(0.75)
    assert [i.score for i in result.per_invocation] == [1.0, 0.0, 1.0, 1.0]
    assert vertex_safety_env.max_in_flight > 1


def test_429_with_retry_after_then_success(vertex_safety_env):
    vertex_safety_env.script(EvalReply(status=429, retry_after=0.3), EvalReply(score=1.0))
    started = time.monotonic()
    result = result_of(run())
    assert time.monotonic() - started >= 0.3  # Retry-After was honoured
    assert (result.status, result.score) == (Status.PASSED, 1.0), result.reason
    assert result.judge.retries == 1 and len(vertex_safety_env.requests) == 2


def test_persistent_500_is_not_evaluated_while_other_criteria_score(vertex_safety_env):
    vertex_safety_env.responder = lambda _request: EvalReply(status=500)
    criteria = {
        "safety_v1": {"judge_model_options": {"max_retries": 1}},
        "response_match_score": 0.5,
    }
    outcome = run(criteria=criteria)
    judged, other = result_of(outcome), result_of(outcome, "response_match_score")
    assert (judged.status, judged.reason_code) == (Status.NOT_EVALUATED, "judge_error")
    assert "500" in judged.per_invocation[0].reason
    assert judged.judge.retries == 1 and judged.judge.failures == {"judge_error": 1}
    assert other.status == Status.PASSED and other.score == 1.0
    assert len(vertex_safety_env.requests) == 2


@pytest.mark.parametrize(
    "reply", [EvalReply(raw_body="<html>oops</html>"), EvalReply(raw_body='{"metricResults": "x"}')]
)
def test_malformed_reply_is_not_evaluated(vertex_safety_env, reply):
    vertex_safety_env.script(reply)
    result = result_of(run())
    assert (result.status, result.reason_code) == (Status.NOT_EVALUATED, "judge_unparseable")
    assert "not a valid evaluateInstances response" in result.per_invocation[0].reason
    assert len(vertex_safety_env.requests) == 1  # not retried


def test_no_score_is_not_evaluated_with_the_explanation(vertex_safety_env):
    vertex_safety_env.script(EvalReply(score=None, explanation="The autorater could not decide."))
    result = result_of(run())
    assert (result.status, result.reason_code) == (Status.NOT_EVALUATED, "no_score")
    assert "The autorater could not decide." in result.per_invocation[0].reason


def test_per_metric_error_is_not_evaluated(vertex_safety_env):
    vertex_safety_env.script(EvalReply(metric_error="instance too long"))
    result = result_of(run())
    assert (result.status, result.reason_code) == (Status.NOT_EVALUATED, "judge_error")
    assert "instance too long" in result.per_invocation[0].reason


def test_403_is_final_with_a_hint(vertex_safety_env):
    vertex_safety_env.script(EvalReply(status=403))
    result = result_of(run())
    assert result.reason_code == "judge_auth"  # one set of codes: 401/403 are auth failures
    assert "enable the Vertex AI API" in result.per_invocation[0].reason
    assert len(vertex_safety_env.requests) == 1


def test_hang_times_out(vertex_safety_env):
    vertex_safety_env.script(EvalReply(delay=5))
    started = time.monotonic()
    result = result_of(run(timeout_seconds=0.3, max_retries=0))
    assert time.monotonic() - started < 3
    assert (result.status, result.reason_code) == (Status.NOT_EVALUATED, "judge_timeout")


def test_no_final_response_is_not_evaluated_without_a_call(vertex_safety_env):
    result = result_of(run(["", ANSWER]))
    assert result.score == 1.0
    assert result.per_invocation[0].reason_code == "no_response"
    assert len(vertex_safety_env.requests) == 1


def test_params_name_the_project_and_location(vertex_safety_env, monkeypatch):
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT")
    monkeypatch.delenv("GOOGLE_CLOUD_LOCATION")
    criteria = {"safety_v1": {"project": "p2", "location": "europe-west4"}}
    assert result_of(run(criteria=criteria)).score == 1.0
    assert vertex_safety_env.requests[0].path.startswith("/v1beta1/projects/p2/locations/europe-west4:")


def test_answers_are_cached(vertex_safety_env, tmp_path):
    from agenteval import JudgeCache

    conversation = [make_invocation(QUESTION, ANSWER)]
    eval_set = EvalSet(eval_set_id="set", eval_cases=[make_case(conversation, eval_id="case")])
    for _ in range(2):
        judge = JudgeService(cache=JudgeCache(tmp_path))
        outcome = agenteval.evaluate(eval_set, {"case": conversation}, ["safety_v1"], judge=judge)
    assert result_of(outcome).judge.cache_hits == 1
    assert len(vertex_safety_env.requests) == 1


@pytest.mark.parametrize(
    ("unset", "fragment"),
    [
        ("GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_PROJECT is not set"),
        ("GOOGLE_CLOUD_LOCATION", "GOOGLE_CLOUD_LOCATION is not set"),
        ("AGENTEVAL_VERTEX_EVAL_ENDPOINT", "no Application Default Credentials were found"),
    ],
)
def test_preflight_says_what_to_set(vertex_safety_env, monkeypatch, unset, fragment):
    monkeypatch.delenv(unset)
    with pytest.raises(ConfigError) as info:
        run()
    message = str(info.value)
    assert fragment in message
    assert "gcloud auth application-default login" in message
    assert vertex_safety_env.requests == []


def test_preflight_missing_credentials_file(vertex_safety_env, monkeypatch, tmp_path):
    monkeypatch.delenv("AGENTEVAL_VERTEX_EVAL_ENDPOINT")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    with pytest.raises(ConfigError, match="which is not a file"):
        run()


def test_preflight_finds_gcloud_adc_without_network(vertex_safety_env, monkeypatch, tmp_path):
    from agenteval_vertex_safety.provider import VertexSafetyJudge

    monkeypatch.delenv("AGENTEVAL_VERTEX_EVAL_ENDPOINT")
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path))
    (tmp_path / "application_default_credentials.json").write_text("{}", encoding="utf-8")
    VertexSafetyJudge("safety_v1").check_ready()  # no ConfigError, no call


def test_only_safety_v1_is_offered(vertex_safety_env):
    from agenteval_vertex_safety.provider import VertexSafetyJudge

    with pytest.raises(ConfigError, match="offers .*'vertex_safety:safety_v1'"):
        VertexSafetyJudge("coherence_v1").check_ready()


def test_planned_calls():
    conversation = [make_invocation("a", "b"), make_invocation("c", None), make_invocation("d", "e")]
    ctx = agenteval.EvaluationContext(case=make_case(conversation), actual=conversation)
    assert SafetyV1().planned_judge_calls(ctx) == 2


def test_judge_model_and_samples_are_not_params():
    with pytest.raises(ValueError, match="judge_model"):
        SafetyV1.Params.model_validate({"judge_model_options": {"judge_model": "gemini-2.5-flash"}})


def test_check_evaluator_against_the_fake(vertex_safety_env):
    scores = check_evaluator(
        SafetyV1, params={"judge_model_options": {"max_retries": 0}}, judge=JudgeService()
    )
    assert scores
    assert all(json.loads(json.dumps(s.model_dump(mode="json"))) for s in scores.values())


@pytest.mark.parametrize(
    ("error", "code"),
    [
        ("permission", "judge_auth"),
        ("unauthenticated", "judge_auth"),
        ("no_credentials", "judge_auth"),
        ("refused_refresh", "judge_auth"),
        ("server", "judge_error"),
        ("read_timeout", "judge_timeout"),
        ("connect_timeout", "judge_timeout"),
        ("socket_timeout", "judge_timeout"),
        ("deadline", "judge_timeout"),
        ("refused", "judge_error"),
        ("dropped", "judge_error"),
    ],
)
def test_call_failures_get_the_reason_codes_every_provider_uses(error, code):
    """The Vertex provider maps auth failures to ``judge_auth``, as the Gemini provider does
    (it left them ``judge_error``), so the endpoint gets no further calls; and a timeout of
    the SDK's own to ``judge_timeout``, as the judge service's own timeout is (the two race
    when both have the call's timeout: a hung call was ``judge_error`` when the SDK's won)."""
    import requests
    from agenteval_vertex_safety.provider import VertexSafetyJudge, _Target
    from google.api_core import exceptions as api_exceptions
    from google.auth import exceptions as auth_exceptions

    raised = {
        "permission": api_exceptions.PermissionDenied("no"),
        "unauthenticated": api_exceptions.Unauthenticated("no"),
        "no_credentials": auth_exceptions.DefaultCredentialsError("none found"),
        "refused_refresh": auth_exceptions.RefreshError("invalid_grant"),
        "server": api_exceptions.InternalServerError("boom"),
        "read_timeout": requests.exceptions.ReadTimeout("read timed out"),
        "connect_timeout": requests.exceptions.ConnectTimeout("connect timed out"),
        "socket_timeout": TimeoutError("timed out"),
        "deadline": api_exceptions.DeadlineExceeded("deadline exceeded"),
        "refused": requests.exceptions.ConnectionError("refused"),
        "dropped": ConnectionResetError("reset by peer"),
    }[error]
    judge = VertexSafetyJudge.__new__(VertexSafetyJudge)
    failure = judge._call_error(raised, _Target(project="p", location="us-central1", endpoint=None))
    assert failure.code == code
