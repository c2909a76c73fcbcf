"""``agenteval run``: exit codes, JSON document, selection, overrides, error rendering."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from agenteval.cli import main

EVALSET = "examples/travel/travel.evalset.json"


def _run(runner, example: Path, *args: str):
    return runner.invoke(
        main,
        ["run", str(example / "travel.evalset.json"), "--actual", str(example / "travel.actual.json"), *args],
    )


def test_example_fails_one_case_and_exits_1(runner, example):
    result = _run(runner, example)
    assert result.exit_code == 1, result.output
    assert "flight_then_currency" in result.output
    assert "3 cases: 2 passed · 1 failed" in result.output
    # The reason of a failure is shown, not just the status.
    assert "amount: expected 780 (int), got '780' (str)" in " ".join(result.output.split())


def test_json_document_shape(runner, example):
    result = _run(runner, example, "--format", "json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["format_version"] == 1
    assert doc["summary"]["status"] == "FAILED"
    assert doc["summary"]["cases"] == {
        "PASSED": 2,
        "FAILED": 1,
        "NOT_EVALUATED": 0,
        "ERRORED": 0,
        "INFORMATIONAL": 0,
    }
    cases = {c["eval_id"]: c for c in doc["eval_sets"][0]["cases"]}
    trajectory = next(
        r for r in cases["flight_then_currency"]["criteria"] if r["criterion"] == "tool_trajectory_avg_score"
    )
    assert trajectory["threshold"] == 1.0
    assert trajectory["score"] == 0.5
    assert trajectory["status"] == "FAILED"
    assert [(p["score"], p["status"]) for p in trajectory["per_invocation"]] == [
        (1.0, "PASSED"),
        (0.0, "FAILED"),
    ]
    assert trajectory["plugin"]["distribution"] == "agenteval-builtin"
    assert trajectory["plugin"]["id"].startswith("agenteval-builtin@")
    count = next(r for r in cases["hotel_tokyo_ja"]["criteria"] if r["criterion"] == "tool_call_count_v1")
    assert count["status"] == "INFORMATIONAL" and count["threshold"] is None and count["score"] == 2.0


def test_case_selection_and_exit_0(runner, example):
    result = runner.invoke(
        main,
        [
            "run",
            f"{example / 'travel.evalset.json'}:weather_paris,hotel_tokyo_ja",
            "--actual",
            str(example / "travel.actual.json"),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [c["eval_id"] for c in doc["eval_sets"][0]["cases"]] == ["weather_paris", "hotel_tokyo_ja"]


def test_unknown_case_id_is_an_error(runner, example):
    result = runner.invoke(
        main,
        ["run", f"{example / 'travel.evalset.json'}:nope", "--actual", str(example / "travel.actual.json")],
    )
    assert result.exit_code == 2
    assert "no case with eval_id 'nope'" in result.output
    assert "weather_paris" in result.output
    assert "Traceback" not in result.output


def test_criteria_override_keeps_configured_threshold(runner, example):
    result = _run(runner, example, "--criteria", "response_match_score", "--format", "json")
    doc = json.loads(result.stdout)
    results = [r for c in doc["eval_sets"][0]["cases"] for r in c["criteria"]]
    assert {r["criterion"] for r in results} == {"response_match_score"}
    assert {r["threshold"] for r in results} == {0.6}  # from examples/travel/test_config.json


def test_criteria_not_in_config_gets_default_threshold(runner, example, tmp_path):
    result = _run(runner, example, "--criteria", "trajectory_precision", "--format", "json")
    doc = json.loads(result.stdout)
    thresholds = {r["threshold"] for c in doc["eval_sets"][0]["cases"] for r in c["criteria"]}
    assert len(thresholds) == 1 and None not in thresholds


def test_explicit_config_and_output_file(runner, example, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps({"criteria": {"tool_trajectory_avg_score": {"threshold": 0.5, "match_type": "ANY_ORDER"}}})
    )
    out = tmp_path / "out.json"
    result = _run(runner, example, "--config", str(config), "--format", "json", "--output", str(out))
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["summary"]["status"] == "PASSED"
    assert "agenteval: 3 passed" in result.stderr


def test_missing_actual_says_so(runner, example):
    result = runner.invoke(main, ["run", str(example / "travel.evalset.json")])
    assert result.exit_code == 2
    assert "--agent TARGET runs it" in result.output
    assert "--actual FILE gives recorded invocations" in result.output


@pytest.mark.parametrize("blank", ["", " "])
def test_an_empty_path_is_refused_not_read_as_the_current_folder(
    runner, example, tmp_path, monkeypatch, blank
):
    """``agenteval run "$EVALS"`` with the variable unset: ``Path("")`` is ``.``, which would
    score every eval file under the current folder (here, one that exists there)."""
    monkeypatch.chdir(example)
    actual = str(example / "travel.actual.json")
    result = runner.invoke(main, ["run", blank, "--actual", actual, "--runs-dir", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert (
        f"{blank!r} names no file: give an eval file or folder (is a shell variable unset?)" in result.output
    )
    result = runner.invoke(main, ["run", f"{blank}:weather_paris", "--actual", actual])
    assert result.exit_code == 2 and "names no file" in result.output
    result = runner.invoke(main, ["run", blank, "--runs-dir", str(tmp_path)])  # no --actual, no --agent
    assert result.exit_code == 2 and "names no file" in result.output
    result = runner.invoke(main, ["run", str(example / "travel.evalset.json"), "--actual", blank])
    assert result.exit_code == 2
    assert f"--actual {blank!r} names no file: give a file or a run folder" in result.output
    assert not any(tmp_path.iterdir())  # nothing recorded


def test_unknown_criterion_exit_2_lists_installed(runner, example):
    result = _run(runner, example, "--criteria", "respnse_match_score")
    assert result.exit_code == 2
    assert "did you mean 'response_match_score'" in result.output
    assert "tool_trajectory_avg_score" in result.output
    assert "Traceback" not in result.output


def test_adk_vertex_criterion_without_a_project_stops_before_any_call(runner, example, monkeypatch):
    # Every ADK 2.13 criterion is installed in the dev venv; a Vertex one without a Google
    # Cloud project stops in preflight with the setup to do. Without agenteval-vertex-safety
    # (the floors' core install) it stops naming the distribution to install.
    for name in ("GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "AGENTEVAL_VERTEX_EVAL_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    result = _run(runner, example, "--criteria", "multi_turn_task_success_v1")
    assert result.exit_code == 2, result.output
    if importlib.util.find_spec("agenteval_vertex_safety") is not None:
        assert "GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION are not set" in result.output
    else:
        assert "'multi_turn_task_success_v1' is not installed" in result.output
        assert "agenteval-vertex-safety" in result.output
    assert "Traceback" not in result.output


def test_param_typo_is_an_error_with_suggestion(runner, example, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps({"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_typ": "IN_ORDER"}}})
    )
    result = _run(runner, example, "--config", str(config))
    assert result.exit_code == 2
    assert str(config) in result.output
    assert "criteria.tool_trajectory_avg_score.match_typ" in result.output
    assert "did you mean 'match_type'" in result.output


def test_unrelated_unknown_param_is_a_warning(runner, example, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {"criteria": {"response_match_score": {"threshold": 0.1, "description": "x"}}, "_comment": "hi"}
        )
    )
    result = _run(runner, example, "--config", str(config), "--format", "json")
    assert result.exit_code == 0, result.output
    assert "warning:" in result.stderr and "'description'" in result.stderr and "'_comment'" in result.stderr
    assert any("'description'" in w for w in json.loads(result.stdout)["warnings"])


def test_malformed_eval_file_reports_line_and_column(runner, tmp_path, example):
    bad = tmp_path / "bad.evalset.json"
    bad.write_text('{"eval_set_id": "x",\n "eval_cases": [}\n')
    result = runner.invoke(main, ["run", str(bad), "--actual", str(example / "travel.actual.json")])
    assert result.exit_code == 2
    assert f"{bad}: 2:17: invalid JSON" in result.output
    assert "Traceback" not in result.output


def test_missing_actual_case_is_an_error(runner, tmp_path, example):
    actual = json.loads((example / "travel.actual.json").read_text())
    actual["eval_cases"] = actual["eval_cases"][:1]
    path = tmp_path / "actual.json"
    path.write_text(json.dumps(actual))
    result = runner.invoke(main, ["run", str(example / "travel.evalset.json"), "--actual", str(path)])
    assert result.exit_code == 2
    assert "'flight_then_currency' has no actual invocations" in result.output


def test_detailed_results_show_invocations(runner, example):
    result = _run(runner, example, "--print-detailed-results")
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "invocation 2" in text
    assert "expected tools: convert_currency(amount=780" in text
    assert 'actual tools: convert_currency(amount="780"' in text


def test_empty_eval_set_exits_1(runner, tmp_path):
    empty = tmp_path / "empty.evalset.json"
    empty.write_text(json.dumps({"eval_set_id": "e", "eval_cases": []}))
    result = runner.invoke(main, ["run", str(empty), "--actual", str(empty)])
    assert result.exit_code == 1
    assert "no case ran" in result.output


def test_scenario_case_reference_criteria_not_evaluated(runner, tmp_path):
    data = {
        "eval_set_id": "s",
        "eval_cases": [
            {"eval_id": "sim", "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "ask"}}
        ],
    }
    evalset = tmp_path / "s.evalset.json"
    evalset.write_text(json.dumps(data))
    actual = tmp_path / "actual.json"
    actual.write_text(
        json.dumps(
            {
                "eval_set_id": "s",
                "eval_cases": [
                    {
                        "eval_id": "sim",
                        "conversation": [
                            {
                                "user_content": {"parts": [{"text": "hi"}]},
                                "final_response": {"parts": [{"text": "hello"}]},
                            }
                        ],
                    }
                ],
            }
        )
    )
    result = runner.invoke(main, ["run", str(evalset), "--actual", str(actual), "--format", "json"])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    statuses = {
        r["criterion"]: (r["status"], r["reason_code"]) for r in doc["eval_sets"][0]["cases"][0]["criteria"]
    }
    assert statuses == {
        "tool_trajectory_avg_score": ("NOT_EVALUATED", "no_expected_invocations"),
        "response_match_score": ("NOT_EVALUATED", "no_expected_invocations"),
    }
    assert doc["summary"]["cases"]["NOT_EVALUATED"] == 1


def test_dry_run_counts_calls_and_calls_nothing(runner, example, tmp_path):
    result = _run(runner, example, "--dry-run", "--cache-dir", str(tmp_path / "cache"))
    assert result.exit_code == 0, result.output
    assert "dry run: 3 case(s), 4 criteria; nothing was called" in result.output
    assert "tool_trajectory_avg_score: no judge calls" in result.output
    assert "at most 0 judge call(s)" in result.output
    assert not (tmp_path / "cache").exists()


def test_deterministic_run_creates_no_cache_and_reports_no_judge(runner, example, tmp_path):
    result = _run(runner, example, "--format", "json", "--cache-dir", str(tmp_path / "cache"))
    doc = json.loads(result.stdout)
    assert doc["summary"]["judge"] is None
    assert doc["summary"]["not_evaluated_reasons"] == {}
    assert not (tmp_path / "cache").exists()


def test_the_report_is_written_while_the_run_s_data_is_set_aside_from_the_collector(
    runner, example, tmp_path, monkeypatch
):
    """Once the run ends, a full collection would walk every object it loaded (seconds at
    100k cases, after a Ctrl-C too): the data stays frozen (``gc.freeze``) until the report
    is out, and is handed back to the collector when the command leaves."""
    import gc

    import agenteval.cli._run as run_command

    frozen_while_reporting: list[int] = []
    finish = run_command.finish_run

    def watched(*args, **kwargs):
        frozen_while_reporting.append(gc.get_freeze_count())
        return finish(*args, **kwargs)

    monkeypatch.setattr(run_command, "finish_run", watched)
    result = _run(runner, example, "--runs-dir", str(tmp_path / "runs"), "--quiet")
    assert result.exit_code in (0, 1), result.output
    assert frozen_while_reporting and frozen_while_reporting[0] > 0
    assert gc.get_freeze_count() == 0
