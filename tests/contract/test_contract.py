"""Every installed criterion keeps the plugin contract (``agenteval.testing.check_evaluator``).

Parametrised over what ``agenteval.Registry()`` discovers, so a newly installed plugin is
checked without editing this file; criteria that need parameters get them from ``PARAMS``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from agenteval import Registry
from agenteval.testing import check_evaluator

#: Parameters for criteria that cannot be built without some (judge criteria get one
#: sample per question, to keep the fake server busy only as long as needed).
RUBRICS = [{"rubric_id": "helpful", "rubric_content": {"text_property": "The answer helps the user."}}]
PARAMS: dict[str, dict] = {
    "trajectory_single_tool_use": {"tool_name": "get_weather"},
    "final_response_match_v2": {"judge_model_options": {"num_samples": 1}},
    "rubric_based_final_response_quality_v1": {"judge_model_options": {"num_samples": 1}, "rubrics": RUBRICS},
    "rubric_based_tool_use_quality_v1": {"judge_model_options": {"num_samples": 1}, "rubrics": RUBRICS},
    "rubric_based_multi_turn_trajectory_quality_v1": {
        "judge_model_options": {"num_samples": 1},
        "rubrics": RUBRICS,
    },
    "hallucinations_v1": {"judge_model_options": {"num_samples": 1}},
    "per_turn_user_simulator_quality_v1": {"judge_model_options": {"num_samples": 1}},
}

BUILTIN = {
    "response_match_score",
    "tool_call_count_v1",
    "tool_parameter_match",
    "tool_trajectory_avg_score",
    "tool_trajectory_match_v2",
    "trajectory_precision",
    "trajectory_recall",
    "trajectory_single_tool_use",
}

#: The criteria scored by the Vertex AI evaluation service (plugins/vertex_safety).
VERTEX = {
    "safety_v1",
    "response_evaluation_score",
    "multi_turn_task_success_v1",
    "multi_turn_trajectory_quality_v1",
    "multi_turn_tool_use_quality_v1",
}

INSTALLED = Registry().names()


def _load(stem: str):
    """``tests/fixtures/<stem>.py``, loaded by path (importlib mode)."""
    path = Path(__file__).resolve().parents[1] / "fixtures" / f"{stem}.py"
    spec = importlib.util.spec_from_file_location(f"_contract_{stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses need it
    spec.loader.exec_module(module)
    return module


def test_discovery_is_not_vacuous():
    if importlib.util.find_spec("agenteval_builtin") is None:
        pytest.skip("agenteval-builtin is not installed")
    assert BUILTIN <= set(INSTALLED)


@pytest.mark.parametrize("name", INSTALLED)
def test_installed_criterion_keeps_the_contract(name, request):
    loaded = Registry().load([name])[name]
    judge = None
    if loaded.info.requires_judge:
        # A real JudgeService whose Gemini provider talks to our fake server, which answers
        # every request with an instance of the request's own JSON schema.
        from agenteval import JudgeService

        if name in VERTEX:
            # The Vertex AI evaluation service, faked (tests/fixtures/fake_vertex_eval.py).
            monkeypatch = request.getfixturevalue("monkeypatch")
            request.getfixturevalue("clean_judge_env")
            fake = _load("fake_vertex_eval").FakeVertexEvalServer()
            fake.start()
            request.addfinalizer(fake.stop)
            monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "fake-project")
            monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
            monkeypatch.setenv("AGENTEVAL_VERTEX_EVAL_ENDPOINT", fake.base_url)
        else:
            answers = request.getfixturevalue("schema_answers")
            server = request.getfixturevalue("gemini_env")
            server.responder = lambda recorded: answers.answer_for(recorded.body)
        judge = JudgeService()
    scores = check_evaluator(loaded.evaluator_class, params=PARAMS.get(name), judge=judge)
    assert scores, "check_evaluator ran no context"
