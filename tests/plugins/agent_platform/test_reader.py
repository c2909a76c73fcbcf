"""Agent Platform datasets read as eval sets: each field mapped, or named in an error or a
warning (never dropped unsaid); the three file forms recognised by content."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agenteval._loading import read_eval_file
from agenteval.errors import DataError
from agenteval.models import IntermediateData, InvocationEvents
from agenteval_agent_platform import AgentPlatformReader

DATASETS = Path(__file__).parent / "fixtures" / "shop_agent" / "tests" / "eval" / "datasets"


def _write(tmp_path: Path, cases: list, name: str = "x-dataset.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"eval_cases": cases}), encoding="utf-8")
    return path


def _prompt(text: str) -> dict:
    return {"role": "user", "parts": [{"text": text}]}


def _user_event(text: str) -> dict:
    return {"author": "user", "content": _prompt(text)}


def _answer(text: str) -> dict:
    return {"response": {"role": "model", "parts": [{"text": text}]}}


@pytest.mark.parametrize(
    ("head", "claimed"),
    [
        (b'{"eval_cases": [{"eval_case_id": "a", "prompt": {}}]}', True),
        (b'{\n  "eval_cases": [\n    {\n      "prompt": {"role": "user"', True),
        (b'{"eval_cases": [{"agent_data": {"turns": []}}]}', True),
        (b'{"eval_set_id": "s", "eval_cases": [{"eval_case_id": "a"}]}', False),
        (b'{"eval_cases": [{"eval_id": "a", "conversation": []}]}', False),
        (b'{"prompt": "hi", "response": "hello"}\n{"prompt": "x"}', True),
        (b'{"resourceSpans": []}', False),
        (b"prompt,response,reference\nhi,hello,hello\n", True),
        (b"name,age\nx,1\n", False),
        (b'[{"query": "hi"}]', False),
    ],
)
def test_the_format_is_recognised_by_content(head, claimed):
    assert AgentPlatformReader.claims(head) is claimed


def test_shape_a_cases_map_field_by_field():
    loaded = read_eval_file(DATASETS / "orders-dataset.json")
    assert loaded.format == "agent-platform"
    assert loaded.eval_set.eval_set_id == "orders"
    hours, status, follow_up = loaded.eval_set.eval_cases
    (turn,) = hours.conversation
    assert turn.user_content.text() == "When does the Lyon shop open on Sunday?"
    assert turn.final_text() == "The Lyon shop opens at 10:00 on Sunday."
    (turn,) = status.conversation
    assert isinstance(turn.intermediate_data, IntermediateData)
    assert [(c.name, c.args) for c in turn.tool_calls()] == [("find_order", {"order_id": "7781"})]
    assert status.session_input.app_name == "shop_agent" and status.session_input.state == {"tier": "gold"}
    earlier, last = follow_up.conversation
    assert (hours.context_turns, follow_up.context_turns) == (0, 1)  # the history is context
    assert (earlier.invocation_id, earlier.user_content.text(), earlier.final_text()) == (
        "t1",
        "I want to return a jacket.",
        "Sure. What is the order number?",
    )
    assert last.user_content.text() == "It is 5521."
    (rubric,) = follow_up.rubrics
    assert (rubric.rubric_id, rubric.type) == ("mentions_label", "FINAL_RESPONSE_QUALITY")
    assert rubric.rubric_content.text_property == "The reply says a return label was sent."
    assert loaded.warnings == []


def test_recorded_responses_are_the_actual_turns():
    actual = AgentPlatformReader().read_actual(DATASETS / "orders-dataset.json", [])
    by_id = {case.eval_id: case.conversation for case in actual.eval_cases}
    assert by_id["opening_hours"][0].final_text() == "The Lyon shop opens at 10:00 on Sunday."
    (turn,) = by_id["order_status"]
    assert isinstance(turn.intermediate_data, InvocationEvents)
    assert [c.name for c in turn.tool_calls()] == ["find_order"]
    assert [r.response for r in turn.tool_responses()] == [{"status": "shipped", "eta": "Thursday"}]
    assert [t.final_text() for t in by_id["return_follow_up"]] == [
        "Sure. What is the order number?",
        "I sent the return label for 5521 to your email.",
    ]


def test_agent_data_is_split_at_each_user_event_and_its_replies_are_the_actual_turns():
    reader = AgentPlatformReader()
    expected = reader.read_eval_set(DATASETS / "chat-dataset.json").case("size_advice").conversation
    assert [t.user_content.text() for t in expected] == [
        "Do the boots run small?",
        "Then I take a 43 instead of 42.5?",
    ]
    assert expected[0].final_text() == "They run half a size small."
    assert expected[1].final_text() == "Yes, take a 43."  # the reference, not the recorded reply
    assert reader.read_eval_set(DATASETS / "chat-dataset.json").case("size_advice").context_turns == 1
    actual = reader.read_actual(DATASETS / "chat-dataset.json", []).case("size_advice").conversation
    assert actual[1].final_text() == "Yes, a 43 fits a 42.5 foot."
    assert actual[1].app_details.agent_details["shop_agent"].instructions == "Help shoppers."


def test_a_scenario_becomes_a_conversation_scenario_with_a_warning_about_the_persona():
    loaded = read_eval_file(DATASETS / "chat-dataset.json")
    scenario = loaded.eval_set.case("simulated_return").conversation_scenario
    assert scenario.starting_prompt == "I need to return shoes."
    assert scenario.user_persona is None
    assert any("eval_cases[1].user_scenario: no user persona" in w for w in loaded.warnings)


def test_jsonl_and_csv_rows_in_the_table_columns():
    lines = read_eval_file(DATASETS / "lines-dataset.jsonl").eval_set
    assert [c.eval_id for c in lines.eval_cases] == ["eval_case_0", "eval_case_1"]
    history, last = lines.eval_cases[1].conversation
    assert (history.user_content.text(), history.final_text()) == ("Hello", "Hi, how can I help?")
    assert last.final_text() == "Yes, delivery takes five days."
    table = read_eval_file(DATASETS / "table-dataset.csv")
    assert (
        table.eval_set.eval_cases[1].conversation[0].user_content.text() == "Is there a sale, and until when?"
    )
    assert table.warnings == [
        f"{DATASETS / 'table-dataset.csv'}: row 2: system_instruction: ADK eval sets have no system "
        "instruction (the agent's own applies); dropped"
    ]
    actual = AgentPlatformReader().read_actual(DATASETS / "table-dataset.csv", [])
    assert actual.eval_cases[0].conversation[0].final_text() == "It costs 25 euros."


def test_what_has_no_place_in_adk_is_a_warning_naming_it(tmp_path):
    case = {
        "eval_case_id": "c",
        "prompt": _prompt("hi"),
        "responses": [_answer("a"), _answer("b")],
        "rubric_groups": {"tone": {"rubrics": [{"rubric_id": "r", "importance": "HIGH", "content": {}}]}},
        "agent_info": {"name": "x"},
        "expected_tool_use": [{"tool_name": "t"}],
    }
    warnings = read_eval_file(_write(tmp_path, [case])).warnings
    said = "\n".join(warnings)
    assert "eval_cases[0].responses: 2 candidates; the first is scored, the other 1 are not read" in said
    assert "eval_cases[0].rubric_groups.tone.rubrics[0]: the group 'tone'" in said
    assert "eval_cases[0].rubric_groups.tone.rubrics[0].importance: ADK rubrics have no importance" in said
    assert "eval_cases[0].agent_info: ADK eval sets carry no agent description; dropped" in said
    assert "eval_cases[0].expected_tool_use: not an Agent Platform field; kept on the case, not used" in said


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ({"eval_case_id": "c"}, "eval_cases[0]: has none of 'prompt', 'agent_data' and 'user_scenario'"),
        (
            {
                "prompt": _prompt("hi"),
                "agent_data": {"turns": [{"events": [_user_event("a"), _user_event("b")]}]},
            },
            "eval_cases[0].agent_data: 2 user turn(s), but the case expects 1",
        ),
        ({"prompt": {"role": "assistant!", "parts": []}}, "eval_cases[0].prompt.role: unknown role"),
        (
            {"prompt": _prompt("x"), "reference_trajectory": [{"parts": [{"text": "no call"}]}]},
            "eval_cases[0].reference_trajectory[0]: a reference trajectory holds tool calls",
        ),
        (
            {"prompt": _prompt("x"), "conversation_history": [{"content": {"role": "model", "parts": []}}]},
            "eval_cases[0].conversation_history[0]: the history starts with a model message",
        ),
        (
            {"prompt": _prompt("x"), "session_inputs": {"user_id": "u"}},
            "eval_cases[0].session_inputs: app_name missing",
        ),
        (
            {"agent_data": {"turns": [{"events": [{"author": "bot", "content": {"parts": []}}]}]}},
            "eval_cases[0].agent_data.turns[0].events[0]: agent_data starts with an event by 'bot'",
        ),
    ],
)
def test_what_cannot_be_mapped_is_an_error_naming_the_field(tmp_path, case, message):
    path = _write(tmp_path, [case])
    with pytest.raises(DataError) as error:
        read_eval_file(path)
    assert error.value.source == str(path)
    assert message in error.value.message


def test_a_table_row_problem_names_its_line(tmp_path):
    path = tmp_path / "t-dataset.jsonl"
    path.write_text('{"prompt": "a", "response": "b"}\n{"prompt": "c", "history": "[not json"}\n')
    with pytest.raises(DataError, match="line 2: column 'history': not JSON"):
        read_eval_file(path)


def test_a_prompt_case_with_agent_data_takes_its_recorded_run_from_agent_data(tmp_path):
    """What agents-cli's `eval generate` writes: the prompt shape plus the run as agent_data."""
    events = [
        _user_event("Where is order 12?"),
        {
            "author": "shop_agent",
            "content": {"role": "model", "parts": [{"function_call": {"name": "find_order"}}]},
        },
        {"author": "shop_agent", "content": {"role": "model", "parts": [{"text": "It ships today."}]}},
    ]
    case = {
        "eval_case_id": "c",
        "prompt": _prompt("Where is order 12?"),
        "responses": [_answer("It ships today.")],
        "agent_data": {"agents": {"shop_agent": {"agent_id": "shop_agent"}}, "turns": [{"events": events}]},
    }
    path = _write(tmp_path, [case])
    (expected,) = read_eval_file(path).eval_set.case("c").conversation
    assert expected.final_response is None and expected.intermediate_data is None
    (turn,) = AgentPlatformReader().read_actual(path, []).case("c").conversation
    assert [c.name for c in turn.tool_calls()] == ["find_order"]
    assert turn.final_text() == "It ships today."
