"""``models/_eval_set.py``: eval sets, cases, scenarios and session input."""

from __future__ import annotations

import json

import pytest
from agenteval.models import ConversationScenario, EvalCase, EvalSet, SessionInput, UserPersona
from agenteval.testing import make_case, make_invocation
from pydantic import ValidationError


def test_eval_set_top_level_takes_snake_case_only():
    with pytest.raises(ValidationError):
        EvalSet.model_validate({"evalSetId": "s", "evalCases": []})


def test_eval_case_takes_both_spellings():
    snake = EvalCase.model_validate(
        {"eval_id": "a", "conversation": [], "session_input": {"app_name": "x", "user_id": "u"}}
    )
    camel = EvalCase.model_validate(
        {"evalId": "a", "conversation": [], "sessionInput": {"appName": "x", "userId": "u"}}
    )
    assert snake == camel


def test_user_persona_is_an_object_or_a_builtin_id():
    scenario = ConversationScenario.model_validate(
        {
            "starting_prompt": "hi",
            "conversation_plan": "plan",
            "user_persona": {
                "id": "p",
                "description": "d",
                "behaviors": [
                    {"name": "b", "description": "d", "behavior_instructions": ["x"], "violation_rubrics": []}
                ],
            },
        }
    )
    assert isinstance(scenario.user_persona, UserPersona)
    assert (
        ConversationScenario(starting_prompt="a", conversation_plan="b", user_persona="EXPERT").user_persona
        == "EXPERT"
    )


def test_session_input_defaults():
    session = SessionInput(app_name="a", user_id="u")
    assert session.session_id is None and session.state == {}


def test_final_session_state_defaults_to_empty():
    assert EvalCase(eval_id="a", conversation=[]).final_session_state == {}


def test_to_json_compact_and_full():
    es = EvalSet(eval_set_id="s", eval_cases=[make_case([make_invocation("q", "a")])])
    compact = json.loads(es.to_json())
    full = json.loads(es.to_json(compact=False))
    assert "name" not in compact and full["name"] is None
    assert full["eval_cases"][0]["conversation"][0]["duration"] is None
    assert es.to_json(indent=None).count("\n") == 0


def test_make_case_with_a_scenario():
    case = make_case(scenario="Roll a die")
    assert case.conversation is None
    assert case.conversation_scenario.starting_prompt == "Roll a die"
    assert make_case().conversation == []


def test_context_turns_are_never_written_and_leave_a_judged_turn():
    turns = [make_invocation("q1", "a1"), make_invocation("q2", "a2")]
    case = EvalCase(eval_id="a", conversation=turns, context_turns=1)
    assert case.context_turns == 1
    es = EvalSet(eval_set_id="s", eval_cases=[case])
    assert "context_turns" not in es.to_json() and "context_turns" not in es.to_json(compact=False)
    assert EvalCase(eval_id="a", conversation=turns).context_turns == 0
    with pytest.raises(ValidationError, match="at least the last turn is judged"):
        EvalCase(eval_id="a", conversation=turns, context_turns=2)
    with pytest.raises(ValidationError, match="at least the last turn is judged"):
        make_case(scenario="Roll a die").model_validate(
            {
                "eval_id": "b",
                "conversation_scenario": {"starting_prompt": "p", "conversation_plan": "x"},
                "context_turns": 1,
            }
        )
