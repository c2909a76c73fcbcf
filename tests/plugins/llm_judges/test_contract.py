"""The five judge criteria keep the plugin contract (``agenteval.testing.check_evaluator``),
with a real ``JudgeService`` whose Gemini provider talks to the fake server."""

from __future__ import annotations

import pytest
from agenteval import JudgeService, Registry
from agenteval.testing import check_evaluator
from agenteval_tests_fixtures_schema_answers import answer_for

RUBRICS = [{"rubric_id": "helpful", "rubric_content": {"text_property": "The answer helps the user."}}]
CRITERIA = {
    "final_response_match_v2": {},
    "rubric_based_final_response_quality_v1": {"rubrics": RUBRICS},
    "rubric_based_tool_use_quality_v1": {"rubrics": RUBRICS},
    "hallucinations_v1": {"evaluate_intermediate_nl_responses": True},
    "per_turn_user_simulator_quality_v1": {},
}


@pytest.mark.parametrize("name", sorted(CRITERIA))
def test_keeps_the_contract(gemini_env, name):
    gemini_env.responder = lambda request: answer_for(request.body)
    loaded = Registry().load([name])[name]
    params = {"judge_model_options": {"num_samples": 1}, **CRITERIA[name]}
    scores = check_evaluator(loaded.evaluator_class, params=params, judge=JudgeService())
    assert any(score.value == 1.0 for score in scores.values())
    assert gemini_env.requests


@pytest.mark.parametrize("name", sorted(CRITERIA))
def test_info(name):
    info = Registry().load([name])[name].info
    assert info.requires_judge and info.default_threshold == 0.8
    assert (info.min_score, info.max_score, info.higher_is_better) == (0.0, 1.0, True)
    assert info.requires_expected == (name == "final_response_match_v2")
    assert info.requires_rubrics == name.startswith("rubric_based")
