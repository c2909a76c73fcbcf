"""``loading/_eval_files.py``: the EvalSet schema, ADK's key rules and the legacy formats.

Every malformed file ends in exactly one ``DataError`` whose message names the file, the
JSON path, what is wrong and what is expected.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from agenteval import load_eval_set
from agenteval._loading import eval_set_from_data, read_eval_file
from agenteval.errors import DataError
from agenteval.models import EvalSet, IntermediateData, InvocationEvents, SessionInput
from hypothesis import given, settings

from tests.fixtures.eval_file_edits import JSON, mutated

pytestmark = pytest.mark.usefixtures("no_max_file_env")

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "evalsets"


def inv(text: str = "hi", **fields: Any) -> dict[str, Any]:
    return {"user_content": {"role": "user", "parts": [{"text": text}]}, **fields}


def case(eval_id: str = "c", **fields: Any) -> dict[str, Any]:
    if "conversation" not in fields and "conversation_scenario" not in fields:
        fields["conversation"] = [inv()]
    return {"eval_id": eval_id, **fields}


def eval_set(*cases: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"eval_set_id": "s", "eval_cases": list(cases), **fields}


def write(tmp_path: Path, data: Any, name: str = "my_set.evalset.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def load_error(tmp_path: Path, data: Any, name: str = "my_set.evalset.json") -> str:
    """The message of the one DataError loading ``data`` gives (asserting it names the file)."""
    path = write(tmp_path, data, name)
    with pytest.raises(DataError) as info:
        read_eval_file(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    assert info.value.source == str(path)
    assert "Traceback" not in message and "pydantic" not in message.lower()
    return message


# -- the EvalSet object ----------------------------------------------------------------------


def test_minimal_valid_file(tmp_path):
    loaded = read_eval_file(write(tmp_path, eval_set(case())))
    assert loaded.format == "evalset"
    assert loaded.warnings == []
    assert loaded.eval_set.eval_cases[0].conversation[0].final_text() == ""


def test_hand_written_fixture(evalset_fixtures):
    loaded = read_eval_file(evalset_fixtures / "dice.evalset.json")
    dice = loaded.eval_set
    assert (dice.eval_set_id, dice.name) == ("dice_set", "Dice")
    roll, sim = dice.eval_cases
    assert roll.conversation[0].tool_calls()[0].args == {"sides": 6}
    assert roll.session_input.app_name == "dice_agent"
    assert roll.rubrics[0].type == "FINAL_RESPONSE_QUALITY"
    assert sim.conversation is None
    assert sim.conversation_scenario.user_persona == "NOVICE"
    assert loaded.warnings == []


def test_event_form_fixture_with_camel_case_keys(evalset_fixtures):
    loaded = read_eval_file(evalset_fixtures / "events.evalset.json")
    [weather] = loaded.eval_set.eval_cases
    first, second = weather.conversation
    assert isinstance(first.intermediate_data, InvocationEvents)
    assert [c.name for c in first.tool_calls()] == ["transfer_to_agent", "get_weather", "get_time"]
    assert first.tool_calls()[2].args is None
    assert [r.name for r in first.tool_responses()] == ["get_weather"]
    assert first.intermediate_texts() == [("weather_agent", "Let me summarise.")]
    assert first.final_text() == "晴れ ☀️ 28 °C"
    assert isinstance(second.intermediate_data, IntermediateData)  # {} is the legacy form
    assert second.final_response is None and second.invocation_id == ""
    assert loaded.warnings == []  # unknown InvocationEvent keys (invocationIndex) are dropped


@pytest.mark.parametrize(
    ("data", "fragments"),
    [
        (
            {"evalSetId": "s", "evalCases": []},
            ["camelCase", "'evalSetId' -> 'eval_set_id'", "'evalCases' -> 'eval_cases'", "Rename"],
        ),
        ({"eval_set_id": "s", "evalCases": []}, ["camelCase", "'evalCases' -> 'eval_cases'"]),
        (
            {"evalSetId": "s", "eval_cases": [], "creationTimestamp": 1.0},
            ["'evalSetId' -> 'eval_set_id'", "'creationTimestamp' -> 'creation_timestamp'"],
        ),
    ],
)
def test_top_level_camel_case_is_an_error_with_rename_hint(tmp_path, data, fragments):
    message = load_error(tmp_path, data)
    for fragment in fragments:
        assert fragment in message


def test_top_level_unknown_keys_are_kept_with_a_warning(tmp_path):
    path = write(tmp_path, eval_set(case(), version=2, _comment="x"))
    loaded = read_eval_file(path)
    assert loaded.eval_set.model_extra == {"version": 2, "_comment": "x"}
    assert len(loaded.warnings) == 2
    assert all(str(path) in w and "kept but not used" in w for w in loaded.warnings)
    assert any("'version'" in w for w in loaded.warnings)
    assert json.loads(loaded.eval_set.to_json())["version"] == 2  # round-trips


def test_case_unknown_keys_are_kept_with_a_warning(tmp_path):
    loaded = read_eval_file(write(tmp_path, eval_set(case(tags=["smoke"], owner="qa"))))
    [c] = loaded.eval_set.eval_cases
    assert c.model_extra == {"tags": ["smoke"], "owner": "qa"}
    assert sorted(loaded.warnings) == sorted(
        f"{tmp_path / 'my_set.evalset.json'}: eval_cases[0].{key}: unknown case key kept but not used"
        for key in ("tags", "owner")
    )
    assert json.loads(loaded.eval_set.to_json())["eval_cases"][0]["tags"] == ["smoke"]


def test_session_input_unknown_keys_are_kept_silently(tmp_path):
    session = {"app_name": "a", "user_id": "u", "appVersion": "2", "state": {"k": 1}}
    loaded = read_eval_file(write(tmp_path, eval_set(case(session_input=session))))
    assert loaded.eval_set.eval_cases[0].session_input.model_extra == {"appVersion": "2"}
    assert loaded.warnings == []


@pytest.mark.parametrize(
    ("bad_case", "path", "hint"),
    [
        (
            case(conversation=[inv(user_contnt=1)]),
            "eval_cases[0].conversation[0].user_contnt",
            "did you mean 'user_content'?",
        ),
        (
            case(conversation=[inv(finalResponse={"parts": []}, final_respons=None)]),
            "eval_cases[0].conversation[0].final_respons",
            "did you mean 'final_response'?",
        ),
        (
            case(conversation=[inv(final_response={"role": "model", "prts": []})]),
            "eval_cases[0].conversation[0].final_response.prts",
            "did you mean 'parts'?",
        ),
        (
            case(conversation=[inv(final_response={"parts": [{"txt": "x"}]})]),
            "eval_cases[0].conversation[0].final_response.parts[0].txt",
            "did you mean 'text'?",
        ),
        (
            case(conversation=[inv(intermediate_data={"tool_uses": [{"nme": "t"}]})]),
            "eval_cases[0].conversation[0].intermediate_data.tool_uses[0].nme",
            "did you mean 'name'?",
        ),
        (
            case(
                conversation=[
                    inv(
                        intermediate_data={
                            "invocation_events": [
                                {
                                    "author": "a",
                                    "content": {"parts": [{"functionCall": {"name": "t", "arg": {}}}]},
                                }
                            ]
                        }
                    )
                ]
            ),
            "eval_cases[0].conversation[0].intermediate_data.invocation_events[0].content.parts[0]"
            ".function_call.arg",
            "did you mean 'args'?",
        ),
        (
            case(conversation=[inv(rubrics=[{"rubric_id": "r", "rubric_content": {"text_propety": "x"}}])]),
            "eval_cases[0].conversation[0].rubrics[0].rubric_content.text_propety",
            "did you mean 'text_property'?",
        ),
        (
            case(conversation_scenario={"starting_prompt": "a", "conversation_plan": "b", "persona": "x"}),
            "eval_cases[0].conversation_scenario.persona",
            "valid keys here: conversation_plan, starting_prompt, user_persona",
        ),
        (
            case(conversation=[inv(final_response={"parts": [{"zzzz": "x"}]})]),
            "eval_cases[0].conversation[0].final_response.parts[0].zzzz",
            "valid keys here: ",
        ),
    ],
)
def test_unknown_keys_below_the_case_are_errors_with_suggestions(tmp_path, bad_case, path, hint):
    message = load_error(tmp_path, eval_set(bad_case))
    assert f"{path}: unknown key" in message
    assert hint in message


def test_invocation_event_unknown_keys_are_dropped(tmp_path):
    event = {"author": "a", "invocationIndex": 3, "toolUseIndex": 1, "content": None}
    loaded = read_eval_file(
        write(tmp_path, eval_set(case(conversation=[inv(intermediate_data={"invocation_events": [event]})])))
    )
    [parsed] = loaded.eval_set.eval_cases[0].conversation[0].intermediate_data.invocation_events
    assert parsed.model_extra in (None, {})
    assert loaded.warnings == []


@pytest.mark.parametrize(
    ("data", "path", "spellings"),
    [
        (
            eval_set({"evalId": "x", "eval_id": "y", "conversation": []}),
            "eval_cases[0]",
            ("eval_id", "evalId"),
        ),
        (
            eval_set(case(session_input={"app_name": "a", "appName": "b", "user_id": "u"})),
            "eval_cases[0].session_input",
            ("app_name", "appName"),
        ),
        (
            eval_set(case(conversation=[inv(userContent={"parts": []})])),
            "eval_cases[0].conversation[0]",
            ("user_content", "userContent"),
        ),
    ],
)
def test_a_key_given_in_both_spellings(tmp_path, data, path, spellings):
    # Found on the raw JSON (with line:column), whatever pydantic's JSON parser does with
    # it (2.13 silently keeps one of the two), and by validation for data given directly.
    snake, camel = spellings
    message = load_error(tmp_path, data)
    assert re.search(
        rf": \d+:\d+: {re.escape(path)}\.\w+: '\w+' is given twice, as '\w+' \(at \d+:\d+\)", message
    )
    assert repr(snake) in message and repr(camel) in message and "keep one spelling" in message
    assert "unknown key" not in message
    with pytest.raises(DataError) as info:
        eval_set_from_data(data)
    assert f"{path}" in str(info.value)
    assert f"'{snake}' is given twice, as '{snake}' and '{camel}'; keep one spelling" in str(info.value)


def test_the_same_spellings_in_free_form_objects_are_data(tmp_path):
    args = {"user_id": 1, "userId": 2, "app_name": "a", "appName": "b"}
    data = eval_set(case(conversation=[inv(intermediate_data={"tool_uses": [{"name": "t", "args": args}]})]))
    data["eval_cases"][0]["session_input"] = {"app_name": "a", "user_id": "u", "state": args}
    loaded = load_eval_set(write(tmp_path, data))
    assert loaded.eval_cases[0].conversation[0].tool_calls()[0].args == args
    assert loaded.eval_cases[0].session_input.state == args


def test_missing_key_names_the_strays(tmp_path):
    message = load_error(tmp_path, eval_set({"case_id": "x", "conversation": []}))
    assert "eval_cases[0].eval_id: required key is missing" in message
    assert "'case_id'" in message


def test_missing_user_content(tmp_path):
    message = load_error(tmp_path, eval_set(case(conversation=[{"final_response": None}])))
    assert "eval_cases[0].conversation[0].user_content: required key is missing" in message


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (
            eval_set(case(conversation=[{"user_content": "hello"}])),
            'eval_cases[0].conversation[0].user_content: expected an object, got "hello"',
        ),
        ({"eval_set_id": 5, "eval_cases": []}, "eval_set_id: expected a string, got 5"),
        ({"eval_set_id": "s", "eval_cases": {}}, "eval_cases: expected an array, got {}"),
        ({"eval_set_id": "s", "eval_cases": ["x"]}, 'eval_cases[0]: expected an object, got "x"'),
        (
            eval_set(case(conversation=[inv(intermediate_data={"tool_uses": [{"name": "t", "args": [1]}]})])),
            "eval_cases[0].conversation[0].intermediate_data.tool_uses[0].args: expected an object, got [1]",
        ),
        (
            eval_set(case(conversation=[inv(intermediate_data="x")])),
            'eval_cases[0].conversation[0].intermediate_data: expected an object, got "x"',
        ),
        (
            eval_set(case(conversation=[inv(intermediate_data={"intermediate_responses": [["a"]]})])),
            "eval_cases[0].conversation[0].intermediate_data.intermediate_responses[0][1]: required key",
        ),
        (
            eval_set(
                case(
                    conversation_scenario={
                        "starting_prompt": "a",
                        "conversation_plan": "b",
                        "user_persona": 5,
                    }
                )
            ),
            "eval_cases[0].conversation_scenario.user_persona: expected an object, got 5",
        ),
        (
            eval_set(case(session_input={"app_name": "a"})),
            "eval_cases[0].session_input.user_id: required key is missing",
        ),
    ],
)
def test_wrong_types_name_the_json_path(tmp_path, data, fragment):
    message = load_error(tmp_path, data)
    assert fragment in message
    assert ".legacy" not in message and ".events" not in message  # no pydantic union tags


def test_many_problems_are_capped(tmp_path):
    message = load_error(tmp_path, eval_set(*({"eval_id": i, "conversation": []} for i in range(9))))
    assert message.count("expected a string, got") == 5
    assert "... and 4 more problems" in message


@pytest.mark.parametrize(
    ("fields", "which"),
    [
        (
            {"conversation": [], "conversation_scenario": {"starting_prompt": "a", "conversation_plan": "b"}},
            "both",
        ),
        ({}, "neither"),
        ({"conversation": None}, "neither"),
    ],
)
def test_exactly_one_of_conversation_and_scenario(tmp_path, fields, which):
    message = load_error(tmp_path, eval_set({"eval_id": "c", **fields}))
    assert "eval_cases[0]:" in message
    assert "exactly one of 'conversation'" in message and "'conversation_scenario'" in message
    assert f"it has {which}" in message


def test_empty_conversation_counts_as_set(tmp_path):
    loaded = read_eval_file(write(tmp_path, eval_set(case(conversation=[]))))
    assert loaded.eval_set.eval_cases[0].conversation == []


def test_duplicate_eval_ids(tmp_path):
    message = load_error(tmp_path, eval_set(case("a"), case("b"), case("a")))
    assert "eval_cases[2].eval_id: duplicate id 'a' (also eval_cases[0])" in message
    assert "needs its own eval_id" in message


def test_duplicate_invocation_ids_are_fine(tmp_path):
    data = eval_set(
        case("a", conversation=[inv(invocation_id="inv-001")]),
        case("b", conversation=[inv(invocation_id="inv-001")]),
    )
    assert len(load_eval_set(write(tmp_path, data)).eval_cases) == 2


@pytest.mark.parametrize(
    "intermediate",
    [
        {"tool_uses": [], "invocation_events": []},
        {"toolUses": [{"name": "t"}], "invocationEvents": []},
        {"invocation_events": [], "intermediate_responses": []},
    ],
)
def test_mixing_legacy_and_event_keys_is_an_error(tmp_path, intermediate):
    message = load_error(tmp_path, eval_set(case(conversation=[inv(intermediate_data=intermediate)])))
    assert "eval_cases[0].conversation[0].intermediate_data." in message
    assert "either the legacy form" in message and "or the event form" in message
    assert "not both" in message


@pytest.mark.parametrize("intermediate", [{}, {"tool_uses": []}, {"toolResponses": []}])
def test_empty_or_legacy_intermediate_data_is_the_legacy_form(tmp_path, intermediate):
    data = eval_set(case(conversation=[inv(intermediate_data=intermediate)]))
    [invocation] = load_eval_set(write(tmp_path, data)).eval_cases[0].conversation
    assert isinstance(invocation.intermediate_data, IntermediateData)
    assert invocation.tool_calls() == []


def test_event_form_with_no_events(tmp_path):
    data = eval_set(case(conversation=[inv(intermediate_data={"invocation_events": []})]))
    [invocation] = load_eval_set(write(tmp_path, data)).eval_cases[0].conversation
    assert isinstance(invocation.intermediate_data, InvocationEvents)


def test_spelt_out_nulls_are_accepted(tmp_path):
    part = {
        key: None
        for key in (
            "video_metadata",
            "thought",
            "inline_data",
            "file_data",
            "thought_signature",
            "code_execution_result",
            "executable_code",
            "function_call",
            "function_response",
        )
    }
    data = eval_set(
        case(
            conversation=[
                inv(
                    final_response={"role": "model", "parts": [{**part, "text": None}]},
                    intermediate_data={"tool_uses": [], "tool_responses": [], "intermediate_responses": []},
                    rubrics=None,
                    app_details=None,
                )
            ],
            session_input=None,
            rubrics=None,
            final_session_state=None,
        )
    )
    loaded = load_eval_set(write(tmp_path, data))
    assert loaded.eval_cases[0].conversation[0].final_text() == ""


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (42, "the top level is a JSON number"),
        ("hello", "the top level is a JSON string"),
        (None, "the top level is a JSON null"),
        (True, "the top level is a JSON boolean"),
    ],
)
def test_scalars_at_the_top_level(tmp_path, data, fragment):
    message = load_error(tmp_path, data)
    assert fragment in message
    assert '{"eval_set_id": ..., "eval_cases": [...]}' in message


def test_object_without_any_eval_set_key(tmp_path):
    message = load_error(tmp_path, {"id": "x", "app_name": "a", "events": []})
    assert "eval_set_id: required key is missing" in message
    assert "eval_cases: required key is missing" in message
    assert "'app_name'" in message


# -- lists: legacy formats and non-ADK lists -------------------------------------------------


@pytest.mark.parametrize(
    ("data", "fragments"),
    [
        (
            [{"case_id": "a", "prompt": "p", "expected_response": "r", "tags": []}],
            ["[0] has keys 'case_id', 'prompt'", "does not look like an ADK eval file"],
        ),
        ([{}], ["[0] has no keys", "does not look like an ADK eval file"]),
        ([], ["the file is an empty list"]),
        ([1, 2], ["[0]: a legacy list holds objects, got a JSON number"]),
        ([{"query": "q"}, "x"], ["[1]: a legacy list holds objects, got a JSON string"]),
        (
            [{"query": "q"}, {"name": "c", "data": []}],
            ["mixes the two legacy formats", "[0] is a turn", "[1] is a case"],
        ),
        ([{"query": "q"}, {"reference": "r"}], ["[1]: 'query' is missing"]),
        ([{"name": "c", "data": []}, {"data": []}], ["[1]: 'name' is missing", "legacy multi-case"]),
        ([{"data": [{"query": "q"}]}], ["[0]: 'name' is missing"]),
        ([{"name": "c", "data": 5}], ["[0].data: expected a list of turns"]),
        (
            [{"name": "c", "data": [{"reference": "r"}]}],
            ["[0].data[0]: a legacy turn is an object with a 'query'"],
        ),
        ([{"name": "c", "data": [], "initial_session": 5}], ["[0].initial_session: expected an object"]),
        (
            [{"query": "q", "expected_tool_use": [{"tool": "t"}]}],
            ['[0].expected_tool_use[0]: expected {"tool_name": ..., "tool_input": {...}}'],
        ),
        (
            [{"query": "q", "expected_intermediate_agent_responses": ["x"]}],
            ['[0].expected_intermediate_agent_responses[0]: expected {"author": ..., "text": ...}'],
        ),
        (
            [{"query": "q", "expected_tool_use": True}],
            [
                '[0].expected_tool_use: expected a list of {"tool_name": ..., "tool_input": {...}}, '
                "got a JSON boolean"
            ],
        ),
        (
            [
                {
                    "name": "c",
                    "data": [{"query": "q", "expected_intermediate_agent_responses": {"author": "a"}}],
                }
            ],
            ["[0].data[0].expected_intermediate_agent_responses: expected a list of", "got a JSON object"],
        ),
        (
            [{"query": 5}],
            ["not a valid legacy eval file", "eval_cases[0].conversation[0].user_content.parts[0].text"],
        ),
    ],
)
def test_bad_lists(tmp_path, data, fragments):
    message = load_error(tmp_path, data)
    for fragment in fragments:
        assert fragment in message


def test_legacy_flat_conversion(evalset_fixtures):
    loaded = read_eval_file(evalset_fixtures / "legacy_flat.test.json")
    assert loaded.format == "legacy-flat"
    es = loaded.eval_set
    assert (es.eval_set_id, es.name) == ("legacy_flat", "legacy_flat")  # stem without .test.json
    [c] = es.eval_cases
    assert c.eval_id == "legacy_flat"
    assert [i.invocation_id for i in c.conversation] == ["legacy_flat-1", "legacy_flat-2"]
    first, second = c.conversation
    assert first.user_content.role == "user" and first.user_content.text() == "Roll a 10 sided die."
    assert first.final_response.role == "model" and first.final_text() == "You rolled a 7."
    assert [(t.name, t.args) for t in first.tool_calls()] == [("roll_die", {"sides": 10})]
    assert first.intermediate_texts() == [("dice_agent", "Rolling.")]
    assert second.final_response.parts[0].text is None  # "reference": null
    assert c.session_input is None
    assert loaded.warnings == []  # mock_tool_output is a known (dropped) key
    assert "mock_tool_output" not in loaded.eval_set.to_json()


def test_legacy_multi_case_conversion(evalset_fixtures):
    loaded = read_eval_file(evalset_fixtures / "legacy_multi.json")
    assert loaded.format == "legacy-multi"
    es = loaded.eval_set
    assert es.eval_set_id == "legacy_multi"
    first, second = es.eval_cases
    assert (first.eval_id, second.eval_id) == ("first", "second")
    assert [i.invocation_id for i in first.conversation] == ["first-1", "first-2"]
    assert first.session_input == SessionInput(app_name="dice_agent", user_id="u1", state={"lang": "en"})
    assert second.session_input is None  # an empty initial_session is no session
    assert second.conversation[0].tool_calls() == []


def test_legacy_ids_are_deterministic(evalset_fixtures):
    one = load_eval_set(evalset_fixtures / "legacy_flat.test.json")
    two = load_eval_set(evalset_fixtures / "legacy_flat.test.json")
    assert one == two
    assert one.creation_timestamp == 0.0


@pytest.mark.parametrize(
    ("name", "stem"),
    [
        ("dice.test.json", "dice"),
        ("dice.evalset.json", "dice"),
        ("dice.json", "dice"),
        ("Dice.TEST.JSON", "Dice"),
        ("a.b.test.json", "a.b"),
        ("simple_test2.test.json", "simple_test2"),
    ],
)
def test_legacy_eval_set_id_is_the_file_stem(tmp_path, name, stem):
    loaded = read_eval_file(write(tmp_path, [{"query": "q"}], name))
    assert loaded.eval_set.eval_set_id == stem
    assert loaded.eval_set.eval_cases[0].eval_id == stem
    assert loaded.eval_set.eval_cases[0].conversation[0].invocation_id == f"{stem}-1"


def test_legacy_data_without_a_file_uses_a_default_id():
    loaded = eval_set_from_data([{"query": "q"}])
    assert loaded.eval_set.eval_set_id == "eval_set"
    assert loaded.source is None


def test_legacy_unknown_keys_warn(tmp_path):
    data = [{"name": "c", "data": [{"query": "q", "expected_tool_uses": []}], "initial_state": {}}]
    loaded = read_eval_file(write(tmp_path, data))
    assert len(loaded.warnings) == 2
    assert any("[0].initial_state: not a key of the legacy multi-case format" in w for w in loaded.warnings)
    assert any("[0].data[0].expected_tool_uses: not a legacy turn key" in w for w in loaded.warnings)


def test_legacy_null_lists_are_empty(tmp_path):
    data = [{"query": "q", "expected_tool_use": None, "expected_intermediate_agent_responses": None}]
    [invocation] = load_eval_set(write(tmp_path, data)).eval_cases[0].conversation
    assert invocation.tool_calls() == [] and invocation.intermediate_texts() == []


def test_legacy_tool_input_missing_means_no_args(tmp_path):
    [invocation] = (
        load_eval_set(write(tmp_path, [{"query": "q", "expected_tool_use": [{"tool_name": "t"}]}]))
        .eval_cases[0]
        .conversation
    )
    assert invocation.tool_calls()[0].args is None


def test_multi_case_duplicate_names(tmp_path):
    data = [{"name": "c", "data": []}, {"name": "c", "data": []}]
    assert "eval_cases[1].eval_id: duplicate id 'c'" in load_error(tmp_path, data)


def test_multi_case_numeric_name_becomes_a_string(tmp_path):
    loaded = load_eval_set(write(tmp_path, [{"name": 7, "data": [{"query": "q"}]}]))
    assert loaded.eval_cases[0].eval_id == "7"


# -- initial session -------------------------------------------------------------------------


def test_initial_session_applies_to_a_flat_list(tmp_path):
    session = SessionInput(app_name="trip", user_id="u", state={"k": "v"})
    loaded = read_eval_file(write(tmp_path, [{"query": "q"}]), initial_session=session)
    assert loaded.eval_set.eval_cases[0].session_input == session


def test_initial_session_with_an_eval_set_is_an_error(tmp_path):
    path = write(tmp_path, eval_set(case()))
    with pytest.raises(DataError) as info:
        read_eval_file(path, initial_session=SessionInput(app_name="a", user_id="u"))
    assert "initial session file applies only to legacy list files" in str(info.value)
    assert str(path) in str(info.value)


def test_initial_session_with_a_multi_case_list_is_an_error(tmp_path):
    path = write(tmp_path, [{"name": "c", "data": []}])
    with pytest.raises(DataError) as info:
        read_eval_file(path, initial_session=SessionInput(app_name="a", user_id="u"))
    assert "not multi-case lists" in str(info.value)


# -- round trip ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["dice.evalset.json", "events.evalset.json", "legacy_flat.test.json", "legacy_multi.json"]
)
@pytest.mark.parametrize("compact", [True, False])
def test_round_trip_of_fixtures(evalset_fixtures, name, compact):
    original = load_eval_set(evalset_fixtures / name)
    again = eval_set_from_data(json.loads(original.to_json(compact=compact))).eval_set
    assert again == original


def test_compact_json_keeps_explicit_nulls_and_snake_case(evalset_fixtures):
    data = json.loads(load_eval_set(evalset_fixtures / "events.evalset.json").to_json())
    first = data["eval_cases"][0]["conversation"][0]
    assert "user_content" in first and "userContent" not in first
    assert first["final_response"]["parts"][1] == {"text": "", "thought_signature": "c2lnbmF0dXJl"}
    assert data["eval_cases"][0]["conversation"][1]["intermediate_data"] == {}
    full = json.loads(load_eval_set(evalset_fixtures / "events.evalset.json").to_json(compact=False))
    assert full["eval_cases"][0]["conversation"][1]["final_response"] is None


def test_to_json_writes_non_ascii_as_utf8_text(evalset_fixtures):
    text = load_eval_set(evalset_fixtures / "events.evalset.json").to_json()
    assert "台北" in text and "☀️" in text


def test_eval_set_case_lookup(evalset_fixtures):
    dice: EvalSet = load_eval_set(evalset_fixtures / "dice.evalset.json")
    assert dice.case("sim_case").eval_id == "sim_case"
    with pytest.raises(KeyError):
        dice.case("nope")


# -- property: any JSON gives an eval set or one DataError, never another exception ------------


@settings(max_examples=250, deadline=None)
@given(JSON | mutated())
def test_any_json_is_an_eval_set_or_one_data_error(data):
    try:
        loaded = eval_set_from_data(data)
    except DataError as error:
        assert str(error).startswith("<eval set>: ")
    else:
        again = eval_set_from_data(json.loads(loaded.eval_set.to_json())).eval_set
        assert again == loaded.eval_set


def test_camel_case_cases_beside_empty_snake_case_cases_are_an_error(tmp_path):
    data = eval_set(evalCases=[case()])
    message = load_error(tmp_path, data)
    assert "'evalCases' is given twice, as 'eval_cases'" in message
    with pytest.raises(DataError) as info:
        eval_set_from_data(data)
    assert "'evalCases' is given beside 'eval_cases'" in str(info.value)
    assert "ADK reads only the snake_case key" in str(info.value)
