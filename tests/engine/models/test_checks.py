"""Values the eval models refuse, reported through the loader with their JSON path,
all problems of a file together."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agenteval._loading import eval_set_from_data, read_eval_file
from agenteval.errors import DataError
from agenteval.models import EvalCase, EvalSet, FunctionCall, Rubric
from pydantic import ValidationError


def turn(**fields: Any) -> dict[str, Any]:
    return {"user_content": {"role": "user", "parts": [{"text": "hi"}]}, **fields}


def data_with(case: dict[str, Any]) -> dict[str, Any]:
    return {"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": [turn()], **case}]}


def rubric(rubric_id: str, kind: Any = "FINAL_RESPONSE_QUALITY") -> dict[str, Any]:
    return {"rubric_id": rubric_id, "rubric_content": {"text_property": "p"}, "type": kind}


def load_error(tmp_path: Path, data: dict[str, Any]) -> str:
    path = tmp_path / "s.evalset.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataError) as info:
        read_eval_file(path)
    message = str(info.value)
    assert message.startswith(f"{path}: not a valid eval set:\n"), message
    return message


@pytest.mark.parametrize(
    ("case", "fragment"),
    [
        ({"eval_id": ""}, "eval_cases[0].eval_id: eval_id is empty; give it a name"),
        ({"eval_id": "   "}, "eval_cases[0].eval_id: eval_id is empty"),
        (
            {"conversation": [turn(intermediate_data={"tool_uses": [{"args": {}}]})]},
            "eval_cases[0].conversation[0].intermediate_data.tool_uses[0].name: required key is missing",
        ),
        (
            {"conversation": [turn(intermediate_data={"tool_uses": [{"name": ""}]})]},
            "tool_uses[0].name: a tool call needs the tool's name; 'name' is empty",
        ),
        (
            {"conversation": [turn(final_response={"role": "robot", "parts": []})]},
            "eval_cases[0].conversation[0].final_response.role: unknown role 'robot'; a message's role is "
            "'user' or 'model'",
        ),
        (
            {"conversation": [turn(final_response={"role": "assistant", "parts": []})]},
            "unknown role 'assistant'; did you mean 'model'?",
        ),
        (
            {"rubrics": [rubric("r", "FOO")]},
            "eval_cases[0].rubrics[0].type: unknown rubric type 'FOO'; valid: FINAL_RESPONSE_QUALITY, "
            "TOOL_USE_QUALITY, TRAJECTORY_QUALITY",
        ),
        ({"rubrics": [rubric("r", "tool_use_quality")]}, "did you mean 'TOOL_USE_QUALITY'?"),
        (
            {"rubrics": [rubric("r"), rubric("q"), rubric("r")]},
            "eval_cases[0].rubrics: rubric_id 'r' is used twice; every rubric of a case needs its own id",
        ),
        (
            {"conversation": [turn(rubrics=[rubric("a"), rubric("a")])]},
            "eval_cases[0].conversation[0].rubrics: rubric_id 'a' is used twice",
        ),
        (
            {"rubrics": [rubric("a")], "conversation": [turn(), turn(rubrics=[rubric("a")])]},
            "rubric_id 'a' is used twice (in 'rubrics' and in conversation[1])",
        ),
        (
            {
                "conversation": None,
                "conversation_scenario": {
                    "starting_prompt": "a",
                    "conversation_plan": "b",
                    "user_persona": "X",
                },
            },
            "eval_cases[0].conversation_scenario.user_persona: unknown persona 'X'; "
            "the built-in personas are "
            "EXPERT, NOVICE, EVALUATOR",
        ),
        (
            {
                "conversation": None,
                "conversation_scenario": {
                    "starting_prompt": "a",
                    "conversation_plan": "b",
                    "user_persona": "novice",
                },
            },
            "did you mean 'NOVICE'?",
        ),
    ],
)
def test_bad_values_are_errors_with_their_json_path(tmp_path, case, fragment):
    assert fragment in load_error(tmp_path, data_with(case))


def test_the_problems_of_a_file_come_together(tmp_path):
    data = {
        "eval_set_id": "s",
        "eval_cases": [
            {"eval_id": "", "conversation": [turn(final_response={"role": "robot"})]},
            {"eval_id": "b", "conversation": [turn(intermediate_data={"tool_uses": [{"name": " "}]})]},
            {"eval_id": "c", "conversation": [turn()], "rubrics": [rubric("r", "FOO")]},
        ],
    }
    message = load_error(tmp_path, data)
    for path in (
        "eval_cases[0].eval_id",
        "eval_cases[0].conversation[0].final_response.role",
        "eval_cases[1].conversation[0].intermediate_data.tool_uses[0].name",
        "eval_cases[2].rubrics[0].type",
    ):
        assert f"\n{path}: " in message


def test_valid_values_still_load():
    data = data_with(
        {
            "rubrics": [rubric("a"), {"rubric_id": "b", "rubric_content": {}}],
            "conversation": [
                turn(
                    final_response={"role": "model", "parts": []}, rubrics=[rubric("c", "TOOL_USE_QUALITY")]
                ),
                turn(final_response={"parts": []}, intermediate_data={"tool_uses": [{"name": "t"}]}),
            ],
        }
    )
    loaded = eval_set_from_data(data).eval_set
    assert loaded.eval_cases[0].conversation[1].tool_calls()[0].name == "t"
    for persona in ("EXPERT", "NOVICE", "EVALUATOR", None):
        scenario = {"starting_prompt": "a", "conversation_plan": "b", "user_persona": persona}
        case = EvalCase.model_validate({"eval_id": "x", "conversation_scenario": scenario})
        assert case.conversation_scenario.user_persona == persona


@pytest.mark.parametrize("text", ["a\ud800", "\udfff"])
def test_a_lone_surrogate_in_an_id_given_from_python_is_refused(text):
    with pytest.raises(ValidationError, match="half of a UTF-16 surrogate pair"):
        EvalCase(eval_id=text, conversation=[])
    with pytest.raises(ValidationError, match="half of a UTF-16 surrogate pair"):
        EvalSet(eval_set_id=text, eval_cases=[])
    with pytest.raises(ValidationError, match="half of a UTF-16 surrogate pair"):
        Rubric(rubric_id=text, rubric_content={})


def test_a_tool_call_from_python_needs_a_name():
    with pytest.raises(ValidationError):
        FunctionCall(name="")
    assert FunctionCall(name="t").name == "t"


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (
            {"eval_set_id": "../../outside/x", "eval_cases": []},
            "eval_set_id: eval_set_id '../../outside/x' holds the path separator '/'",
        ),
        ({"eval_set_id": "a\\\\b", "eval_cases": []}, "holds the path separator '\\\\'"),
        (
            data_with({"eval_id": "one\ntwo"}),
            "eval_cases[0].eval_id: eval_id holds the control character \\u000a at position 3",
        ),
        ({"eval_set_id": "s\r", "eval_cases": []}, "eval_set_id holds the control character \\u000d"),
    ],
)
def test_ids_that_would_name_other_files_or_break_lines_are_refused(tmp_path, data, fragment):
    assert fragment in load_error(tmp_path, data)


def test_a_case_id_may_hold_a_path_separator_as_adks_converted_files_do(tmp_path):
    path = tmp_path / "s.evalset.json"
    path.write_text(json.dumps(data_with({"eval_id": "tests/fixture/roll_die.test.json"})), encoding="utf-8")
    assert read_eval_file(path).eval_set.eval_cases[0].eval_id == "tests/fixture/roll_die.test.json"


def test_the_cli_refuses_such_an_id_with_exit_2_naming_the_file_and_the_json_path(tmp_path):
    from agenteval.cli import main
    from click.testing import CliRunner

    path = tmp_path / "s.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "../../outside/x", "eval_cases": []}), encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(path), "--actual", str(path)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert (
        f"{path}: not a valid eval set:" in result.stderr
        and "eval_set_id: eval_set_id '../../outside/x'" in result.stderr
    )
