"""``agenteval migrate``: legacy list files to the eval-set format."""

from __future__ import annotations

import json

import pytest
from agenteval import load_eval_set
from agenteval.cli import main

FLAT = [
    {
        "query": "roll a die",
        "expected_tool_use": [{"tool_name": "roll_die", "tool_input": {"sides": 6}, "mock_tool_output": 4}],
        "reference": "You rolled a 4.",
    },
    {"query": "thanks", "expected_tool_use": [], "reference": None},
]


def test_flat_file_with_initial_session(runner, tmp_path):
    old = tmp_path / "dice.test.json"
    old.write_text(json.dumps(FLAT))
    session = tmp_path / "initial.session.json"
    session.write_text(
        json.dumps({"id": "s1", "app_name": "dice", "user_id": "u", "state": {"k": 1}, "events": []})
    )
    new = tmp_path / "dice.evalset.json"
    result = runner.invoke(main, ["migrate", str(old), "--initial-session", str(session), "-o", str(new)])
    assert result.exit_code == 0, result.output
    assert "1 case(s), 2 invocation(s)" in result.output
    eval_set = load_eval_set(new)
    case = eval_set.eval_cases[0]
    assert eval_set.eval_set_id == "dice" and case.eval_id == "dice"
    assert case.session_input.app_name == "dice" and case.session_input.state == {"k": 1}
    first = case.conversation[0]
    assert first.invocation_id == "dice-1"
    assert [(c.name, c.args) for c in first.tool_calls()] == [("roll_die", {"sides": 6})]
    assert first.final_text() == "You rolled a 4."
    assert case.conversation[1].final_text() == ""
    written = json.loads(new.read_text())
    assert "evalSetId" not in written and "mock_tool_output" not in new.read_text()


def test_refuses_to_overwrite_and_new_format(runner, tmp_path):
    old = tmp_path / "a.test.json"
    old.write_text(json.dumps(FLAT))
    new = tmp_path / "b.json"
    new.write_text("{}")
    result = runner.invoke(main, ["migrate", str(old), "-o", str(new)])
    assert result.exit_code == 2 and "pass --force" in result.output
    assert runner.invoke(main, ["migrate", str(old), "-o", str(new), "--force"]).exit_code == 0
    again = runner.invoke(main, ["migrate", str(new), "-o", str(tmp_path / "c.json")])
    assert again.exit_code == 2 and "already in the eval-set format" in again.output


def test_bad_initial_session(runner, tmp_path):
    old = tmp_path / "a.test.json"
    old.write_text(json.dumps(FLAT))
    session = tmp_path / "s.json"
    session.write_text(json.dumps({"app_name": "x"}))
    result = runner.invoke(
        main, ["migrate", str(old), "--initial-session", str(session), "-o", str(tmp_path / "o.json")]
    )
    assert result.exit_code == 2
    assert "user_id: required key is missing" in result.output


# -- checked as ADK 2.13's migrate_eval_data_to_new_schema checks ------------------------------


def _adk_migrates(old, new) -> str | None:
    """None when ADK migrates ``old``, else its error message (skipped without google-adk)."""
    AgentEvaluator = pytest.importorskip("google.adk.evaluation.agent_evaluator").AgentEvaluator

    try:
        AgentEvaluator.migrate_eval_data_to_new_schema(str(old), str(new))
    except (ValueError, KeyError) as exc:
        return str(exc)
    return None


def _folder(tmp_path, turns, config=None):
    old = tmp_path / "dice.test.json"
    old.write_text(json.dumps(turns))
    if config is not None:
        (tmp_path / "test_config.json").write_text(json.dumps(config))
    return old


def test_a_config_with_a_non_legacy_criterion_is_refused_as_adk_refuses_it(runner, tmp_path):
    old = _folder(tmp_path, FLAT, {"criteria": {"response_match_score": 0.8, "final_response_match_v2": 0.5}})
    adk = _adk_migrates(old, tmp_path / "adk.json")
    assert adk is not None and "Invalid criteria key: final_response_match_v2" in adk
    result = runner.invoke(main, ["migrate", str(old), "-o", str(tmp_path / "new.json")])
    assert result.exit_code == 2, result.output
    assert f"{tmp_path / 'test_config.json'}: criteria.final_response_match_v2: ADK migrates" in result.output
    assert (
        "tool_trajectory_avg_score, response_evaluation_score, response_match_score, safety_v1"
        in result.output
    )
    assert "Traceback" not in result.output and not (tmp_path / "new.json").exists()


def test_a_turn_without_reference_is_refused_with_its_position(runner, tmp_path):
    turns = [dict(FLAT[0]), {"query": "thanks", "expected_tool_use": []}]
    old = _folder(tmp_path, turns)
    result = runner.invoke(main, ["migrate", str(old), "-o", str(tmp_path / "new.json")])
    assert result.exit_code == 2, result.output
    assert f"{old}: [1]: the turn has no 'reference'" in result.output
    assert "response_match_score" in result.output and 'Fix: add it, e.g. "reference":' in result.output
    # ADK checks only the first turn; with the reference missing there, it refuses too.
    first_missing = _folder(tmp_path, [turns[1], turns[0]])
    adk = _adk_migrates(first_missing, tmp_path / "adk.json")
    assert adk is not None and "must include 'query' and 'reference'" in adk
    again = runner.invoke(main, ["migrate", str(first_missing), "-o", str(tmp_path / "new.json")])
    assert again.exit_code == 2 and f"{first_missing}: [0]: the turn has no 'reference'" in again.output


def test_the_keys_required_follow_the_configs_criteria(runner, tmp_path):
    turns = [{"query": "hi", "reference": "hello"}]  # no expected_tool_use
    old = _folder(tmp_path, turns, {"criteria": {"response_match_score": 0.5}})
    assert _adk_migrates(old, tmp_path / "adk.json") is None
    assert runner.invoke(main, ["migrate", str(old), "-o", str(tmp_path / "new.json")]).exit_code == 0
    (tmp_path / "test_config.json").unlink()  # default criteria: the trajectory needs expected_tool_use
    adk = _adk_migrates(old, tmp_path / "adk.json")
    assert adk is not None and "'expected_tool_use'" in adk
    result = runner.invoke(main, ["migrate", str(old), "-o", str(tmp_path / "new2.json")])
    assert result.exit_code == 2 and "[0]: the turn has no 'expected_tool_use'" in result.output


def test_a_multi_case_turn_without_reference_is_named_by_case_and_turn(runner, tmp_path):
    cases = [{"name": "c1", "data": [FLAT[0], {"query": "q", "expected_tool_use": []}]}]
    old = _folder(tmp_path, cases)
    result = runner.invoke(main, ["migrate", str(old), "-o", str(tmp_path / "new.json")])
    assert result.exit_code == 2 and f"{old}: [0].data[1]: the turn has no 'reference'" in result.output
