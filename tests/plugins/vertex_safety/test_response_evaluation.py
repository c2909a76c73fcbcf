"""``response_evaluation_score``: the service's coherence metric (1 to 5) per invocation,
needing expected invocations as in ADK, through the real client and the loopback fake."""

from __future__ import annotations

import agenteval
import pytest
from agenteval import JudgeService, Status
from agenteval.models import EvalSet
from agenteval.testing import make_case, make_invocation
from agenteval_tests_fixtures_fake_vertex_eval import EvalReply

NAME = "response_evaluation_score"


def run(actual, expected, threshold: float = 3.0):
    case = make_case(expected, eval_id="case")
    eval_set = EvalSet(eval_set_id="set", eval_cases=[case])
    criteria = {NAME: {"threshold": threshold, "judge_model_options": {"max_retries": 1}}}
    outcome = agenteval.evaluate(eval_set, {"case": actual}, criteria, judge=JudgeService())
    return outcome.eval_sets[0].cases[0].criteria[0]


def test_scores_each_response_1_to_5_with_the_coherence_metric(vertex_safety_env):
    vertex_safety_env.script(
        EvalReply(score=5.0, explanation="Clear."), EvalReply(score=2.0, explanation="Rambles.")
    )
    actual = [make_invocation("Q1", "A clear answer."), make_invocation("Q2", "A muddle.")]
    expected = [make_invocation("Q1", "ref 1"), make_invocation("Q2", "ref 2")]
    result = run(actual, expected)
    assert result.score == pytest.approx(3.5) and result.status is Status.PASSED
    assert sorted(i.score for i in result.per_invocation) == [2.0, 5.0]
    sent = sorted(r.body["coherenceInput"]["instance"]["prediction"] for r in vertex_safety_env.requests)
    assert sent == ["A clear answer.", "A muddle."]
    assert all(r.body["coherenceInput"].get("metricSpec", {}) == {} for r in vertex_safety_env.requests)
    low = next(i for i in result.per_invocation if i.score == 2.0)
    assert low.details["explanation"] == "Rambles." and "coherence score 2" in low.reason


def test_needs_expected_invocations_and_makes_no_call(vertex_safety_env):
    eval_set = EvalSet(eval_set_id="set", eval_cases=[make_case(eval_id="case", scenario="Hi")])
    criteria = {NAME: {"threshold": 3.0}}
    outcome = agenteval.evaluate(
        eval_set, {"case": [make_invocation("Hi", "Hello")]}, criteria, judge=JudgeService()
    )
    result = outcome.eval_sets[0].cases[0].criteria[0]
    assert (result.status, result.reason_code) == (Status.NOT_EVALUATED, "no_expected_invocations")
    assert vertex_safety_env.requests == []


def test_a_refused_call_is_not_evaluated(vertex_safety_env):
    vertex_safety_env.script(EvalReply(status=400))
    result = run([make_invocation("Q", "A")], [make_invocation("Q", "R")])
    assert (result.status, result.reason_code) == (Status.NOT_EVALUATED, "judge_error")
    assert "answered 400" in result.reason
