"""Outputs can never be lost to an odd value: lone surrogates and deep nesting from an agent
still give a valid JSON document, run record and saved-turns file."""

from __future__ import annotations

import json

from agenteval import Status
from agenteval._jsonsafe import MAX_DEPTH, TRUNCATED, dump_model, writable
from agenteval.models import FunctionCall
from hypothesis import given
from hypothesis import strategies as st


def _nested(levels: int) -> dict:
    root: dict = {}
    node = root
    for _ in range(levels):
        node["k"] = {}
        node = node["k"]
    return root


def test_a_structure_deeper_than_pydantic_allows_is_cut_with_a_marker():
    call = FunctionCall(name="find", args=_nested(400))
    data = json.loads(dump_model(call))
    depth, node = 0, data["args"]
    while isinstance(node, dict):
        node, depth = node["k"], depth + 1
    assert node == TRUNCATED and depth == MAX_DEPTH - 1


def test_a_lone_surrogate_is_written_as_visible_text():
    call = FunctionCall(name="find\ud800", args={"q": "a\udfffb"})
    data = json.loads(dump_model(call))
    assert data["name"] == "find\\ud800" and data["args"]["q"] == "a\\udfffb"


def test_enum_keys_and_non_finite_numbers_stay_json():
    assert writable({Status.PASSED: float("nan")}) == {"PASSED": None}


@given(
    st.recursive(
        st.text() | st.integers() | st.floats(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
        max_leaves=30,
    )
)
def test_whatever_the_value_the_result_encodes_as_utf8_json(value):
    text = json.dumps(writable(value), ensure_ascii=False)
    text.encode("utf-8")  # never a lone surrogate
    json.loads(text)


def test_the_cli_keeps_its_report_and_saved_turns_when_the_agent_returns_odd_values(tmp_path):
    from pathlib import Path

    from agenteval.cli import main
    from click.testing import CliRunner

    example = Path(__file__).resolve().parents[2] / "examples" / "travel"
    agent = tmp_path / "agent.py"
    agent.write_text(
        "def respond(message, history):\n"
        "    args = node = {}\n"
        "    for _ in range(400):\n"
        "        node['k'] = {}\n"
        "        node = node['k']\n"
        "    return {'text': 'ok \\ud800 done', 'tool_calls': [{'name': 'find', 'args': args}]}\n",
        encoding="utf-8",
    )
    saved = tmp_path / "saved.json"
    runner = CliRunner()
    args = [
        "run",
        str(example),
        "--agent",
        f"{agent}:respond",
        "--format",
        "json",
        "--save-actual",
        str(saved),
    ]
    result = runner.invoke(main, [*args, "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["summary"]["cases"]["FAILED"] == 3
    again = runner.invoke(main, ["run", str(example), "--actual", str(saved), "--no-record"])
    assert again.exit_code == 1, again.output  # every case re-scores
