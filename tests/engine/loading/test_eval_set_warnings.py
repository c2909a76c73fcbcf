"""``loading/_eval_set_warnings.py``: what a run warns about in an eval file it accepts —
an id ``adk web`` cannot run, turns of one case sharing an invocation id."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval._loading._eval_set_warnings import adk_web_name_warning
from agenteval.cli import main
from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[3]


def test_adk_web_warns_when_an_evalset_files_id_is_not_its_name(tmp_path):
    agent = tmp_path / "agent"
    agent.mkdir()
    assert adk_web_name_warning(agent / "weather.evalset.json", "other") is None  # not an ADK agent folder
    (agent / "__init__.py").write_text("from . import agent\n", encoding="utf-8")
    assert adk_web_name_warning(agent / "weather.evalset.json", "weather") is None
    assert adk_web_name_warning(agent / "weather.test.json", "other") is None  # adk web does not list it
    warning = adk_web_name_warning(agent / "weather.evalset.json", "adk_weather")
    assert "adk web lists this eval set as 'weather'" in warning and "'adk_weather.evalset.json'" in warning
    path = agent / "weather.evalset.json"
    path.write_bytes((REPO / "examples" / "travel" / "travel.evalset.json").read_bytes())
    result = CliRunner().invoke(main, ["run", str(path), "--actual", str(path), "--no-record", "-q"])
    assert result.exit_code == 0, result.output  # a warning, not an error
    assert "adk web lists this eval set as 'weather'" in result.stderr


def test_the_adk_example_runs_in_adk_web():
    from agenteval import load_eval_set

    path = REPO / "examples" / "adk_weather" / "weather.evalset.json"
    assert adk_web_name_warning(path, load_eval_set(path).eval_set_id) is None


def test_turns_of_one_case_sharing_an_invocation_id_are_a_warning_naming_the_case(tmp_path):
    data = json.loads((REPO / "examples" / "travel" / "travel.evalset.json").read_text(encoding="utf-8"))
    [case] = [c for c in data["eval_cases"] if len(c["conversation"]) > 1]
    for turn in case["conversation"]:
        turn["invocation_id"] = "same"
    path = tmp_path / "travel.test.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(path), "--actual", str(path), "--no-record", "-q"])
    assert result.exit_code == 0, result.output  # a warning, not an error
    index = data["eval_cases"].index(case)
    expected = (
        f"{path}: eval_cases[{index}] ({case['eval_id']!r}): invocation_id 'same' (conversation[0] and [1]) "
        "is used by more than one turn"
    )
    assert expected in " ".join(result.stderr.split())
