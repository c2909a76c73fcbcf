"""``agenteval run --agent`` with ADK agents, end to end through the CLI (offline)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from agenteval.cli import main
from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "adk_weather"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def team(team_copy: Path) -> Path:
    """The team's folder for a run: a copy (a run writes ADK's eval history into it)."""
    return team_copy


def _scores(result) -> dict:
    doc = json.loads(result.stdout)
    return {
        (case["eval_id"], c["criterion"]): (c["score"], c["status"])
        for eval_set in doc["eval_sets"]
        for case in eval_set["cases"]
        for c in case["criteria"]
    }


def test_an_agent_folder_runs_and_passes(runner, team):
    args = ["run", str(team / "weather_team.evalset.json"), "--agent", str(team), "--show", "all"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "3 cases: 3 passed" in result.stdout
    for eval_id in ("paris_weather", "cairo_in_fahrenheit", "trip_then_thanks"):
        assert eval_id in result.stdout


@pytest.mark.parametrize("type_flag", [[], ["--agent-type", "adk"]])
def test_saved_turns_rescore_identically(runner, team, tmp_path, type_flag):
    saved = tmp_path / "actual.evalset.json"
    args = ["run", str(team), "--agent", str(team), *type_flag, "--format", "json"]
    first = runner.invoke(main, [*args, "--save-actual", str(saved)])
    assert first.exit_code == 0, first.output
    assert "wrote the actual invocations of 3 case(s)" in first.stderr
    again = runner.invoke(main, ["run", str(team), "--actual", str(saved), "--format", "json"])
    assert again.exit_code == 0, again.output
    assert _scores(again) == _scores(first)
    recorded = json.loads(saved.read_text())
    [cairo] = [c for c in recorded["eval_cases"] if c["eval_id"] == "cairo_in_fahrenheit"]
    assert cairo["session_input"]["state"] == {"unit": "F"}
    assert "invocation_events" in cairo["conversation"][0]["intermediate_data"]


def test_a_dotted_module_from_the_current_directory(runner, team, monkeypatch):
    monkeypatch.chdir(team.parent)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(team.parent))])
    for name in [m for m in sys.modules if m == "weather_team" or m.startswith("weather_team.")]:
        monkeypatch.delitem(sys.modules, name)  # imported afresh, found through the cwd
    result = runner.invoke(
        main, ["run", str(team / "weather_team.evalset.json"), "--agent", "weather_team.agent"]
    )
    assert result.exit_code == 0, result.output


def test_a_broken_agent_stops_the_run_before_any_work(runner, team, tmp_path):
    folder = tmp_path / "broken_agent"
    folder.mkdir()
    (folder / "agent.py").write_text("import not_installed_dependency_xyz\nroot_agent = None\n")
    result = runner.invoke(main, ["run", str(team / "weather_team.evalset.json"), "--agent", str(folder)])
    assert result.exit_code == 2
    assert "No module named 'not_installed_dependency_xyz'" in result.output
    assert "Traceback" not in result.output


def test_the_offline_example_passes(runner, monkeypatch):
    monkeypatch.delenv("ADK_EXAMPLE_MODEL", raising=False)
    result = runner.invoke(
        main, ["run", str(EXAMPLE), "--agent", str(EXAMPLE), "--format", "json", "--no-adk-history"]
    )
    assert result.exit_code == 0, result.output
    scores = _scores(result)
    assert len(scores) == 6 and all(status == "PASSED" for _, status in scores.values())
    assert scores[("tokyo_trip", "tool_trajectory_avg_score")] == (1.0, "PASSED")


def test_a_run_of_an_agent_folder_is_also_adk_eval_history_that_google_adk_loads(runner, team, tmp_path):
    from google.adk.evaluation.eval_result import EvalSetResult

    history = tmp_path / "history"
    result = runner.invoke(
        main,
        ["run", str(team / "weather_team.evalset.json"), "--agent", str(team), "--adk-history", str(history)],
    )
    assert result.exit_code == 0, result.output
    [path] = history.glob("*.evalset_result.json")
    assert path.name.startswith(f"{team.resolve().name}_")
    loaded = EvalSetResult.model_validate_json(path.read_text(encoding="utf-8"))
    assert [c.eval_id for c in loaded.eval_case_results] == [
        "paris_weather",
        "cairo_in_fahrenheit",
        "trip_then_thanks",
    ]
    first = loaded.eval_case_results[0]
    assert first.final_eval_status.value == 1  # PASSED
    assert {m.metric_name for m in first.overall_eval_metric_results} >= {"tool_trajectory_avg_score"}
    assert first.eval_metric_result_per_invocation[0].actual_invocation.user_content.parts[0].text
    assert f"ADK eval history written to {path}" in result.stderr


def test_adk_history_defaults_to_the_agent_folder_and_can_be_skipped(runner, team, tmp_path):
    import shutil

    team = Path(
        shutil.copytree(team, tmp_path / team.name, ignore=shutil.ignore_patterns(".adk", "__pycache__"))
    )
    folder = team / ".adk" / "eval_history"
    skipped = runner.invoke(
        main, ["run", str(team / "weather_team.evalset.json"), "--agent", str(team), "--no-adk-history"]
    )
    assert skipped.exit_code == 0 and not folder.exists()
    written = runner.invoke(main, ["run", str(team / "weather_team.evalset.json"), "--agent", str(team)])
    assert written.exit_code == 0 and len(list(folder.glob("*.evalset_result.json"))) == 1


def test_errored_cases_are_not_evaluated_in_adk_history(tmp_path):
    from agenteval import CriterionResult, PluginInfo, Status
    from agenteval.runs import CaseRecord, CriterionEntry, EvalSetEntry
    from agenteval.runs._adk_history import adk_history_documents
    from google.adk.evaluation.eval_result import EvalSetResult

    plugin = PluginInfo(distribution="d", version="1", entry_point="m:C")
    errored = CriterionResult(
        criterion="x",
        threshold=0.5,
        score=None,
        status=Status.ERRORED,
        reason_code="agent_error",
        plugin=plugin,
    )
    entry = EvalSetEntry(
        index=0,
        eval_set_id="s",
        case_ids=["c"],
        criteria=[CriterionEntry(name="x", distribution="d", version="1", entry_point="m:C", threshold=0.5)],
    )
    record = CaseRecord(run_id="r", eval_set_index=0, eval_set_id="s", case_id="c", status=Status.ERRORED)
    [document] = adk_history_documents(
        "app", [(entry, record, [errored], Status.ERRORED)], created=1.5
    ).values()
    loaded = EvalSetResult.model_validate(document)
    assert loaded.eval_case_results[0].final_eval_status.value == 3  # NOT_EVALUATED: ADK has no ERRORED
    assert loaded.eval_case_results[0].overall_eval_metric_results[0].eval_status.value == 3
