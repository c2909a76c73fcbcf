"""``agenteval migrate``: legacy list files to the eval-set format."""

from __future__ import annotations

import json

from agenteval.cli import main
from agenteval.loading import load_eval_set

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
