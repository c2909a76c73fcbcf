"""``--judge-budget`` and ``--judge-sampling`` on the command line, against the fake Gemini
server: past the budget judge results are NOT_EVALUATED ``judge_budget_exhausted`` (never
FAILED), counted in the summary; ``--dry-run`` says whether the planned calls fit."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "travel"


def _run(runner, tmp_path: Path, *extra: str):
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "criteria": {
                    "final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"num_samples": 5}}
                }
            }
        )
    )
    args = ["run", str(EXAMPLE / "travel.evalset.json"), "--actual", str(EXAMPLE / "travel.actual.json")]
    args += ["--config", str(config), "--no-cache", "--no-record", "--format", "json", *extra]
    result = runner.invoke(main, args)
    return result, (json.loads(result.stdout) if result.stdout.strip().startswith("{") else None)


def _judged(doc):
    return [r for c in doc["eval_sets"][0]["cases"] for r in c["criteria"]]


def test_a_spent_budget_gives_not_evaluated_never_failed(runner, judge_server, tmp_path):
    result, doc = _run(runner, tmp_path, "--judge-budget", "4")
    assert result.exit_code == 1
    assert len(judge_server.requests) <= 4
    statuses = [r["status"] for r in _judged(doc)]
    assert "FAILED" not in statuses and "NOT_EVALUATED" in statuses
    refused = [r for r in _judged(doc) if r["status"] == "NOT_EVALUATED"]
    assert all(r["reason_code"] == "judge_budget_exhausted" for r in refused)
    summary = doc["summary"]
    assert summary["not_evaluated_reasons"]["judge_budget_exhausted"] == len(refused)
    assert summary["budget"]["judge_calls_limit"] == 4
    assert summary["budget"]["judge_calls_used"] == len(judge_server.requests)
    assert summary["budget"]["judge_calls_refused"] > 0


def test_a_budget_large_enough_changes_nothing(runner, judge_server, tmp_path):
    result, doc = _run(runner, tmp_path, "--judge-budget", "1000")
    assert result.exit_code == 0
    assert doc["summary"]["budget"]["judge_calls_refused"] == 0
    _, plain = _run(runner, tmp_path)
    assert plain["summary"]["budget"] is None
    assert [r["status"] for r in _judged(plain)] == [r["status"] for r in _judged(doc)]


def test_judge_sampling_overrides_every_judge_criterion(runner, judge_server, tmp_path):
    result, doc = _run(runner, tmp_path, "--judge-sampling", "majority")
    assert result.exit_code == 0
    invocations = [i for r in _judged(doc) for i in r["per_invocation"]]
    assert invocations and all(i["details"]["sampling"] == "full" for i in invocations)
    assert all(i["details"]["calls_used"] == 5 for i in invocations)
    _, curtailed = _run(runner, tmp_path)  # the default: a unanimous judge takes 3 calls of 5
    assert all(i["details"]["calls_used"] == 3 for r in _judged(curtailed) for i in r["per_invocation"])
    _, sequential = _run(runner, tmp_path, "--judge-sampling", "sequential")
    assert all(
        i["details"]["sampling"] == "sequential" for r in _judged(sequential) for i in r["per_invocation"]
    )


def test_dry_run_says_whether_the_planned_calls_fit_the_budget(runner, judge_server, tmp_path):
    result, _ = _run(runner, tmp_path, "--dry-run", "--judge-budget", "2")
    assert result.exit_code == 0
    assert "exceed the budget of 2 (--judge-budget)" in result.output
    result, _ = _run(runner, tmp_path, "--dry-run", "--judge-budget", "1000")
    assert "fit within the budget of 1000" in result.output
    assert judge_server.requests == []


def test_the_summary_reports_how_the_judge_samples_agreed(runner, judge_server, tmp_path):
    _, doc = _run(runner, tmp_path)
    (summary,) = [c for c in doc["summary"]["criteria"] if c["criterion"] == "final_response_match_v2"]
    agreement = summary["agreement"]
    judged = [i for r in _judged(doc) for i in r["per_invocation"] if "calls_used" in i["details"]]
    assert agreement["invocations"] == len(judged) > 0
    # The fake judge always answers alike: unanimous, 3 calls of 5, 2 saved by curtailment.
    assert agreement["unanimity"] == 1.0 and agreement["fragile"] == 0
    assert agreement["calls_used"] == 3 * len(judged) and agreement["calls_saved"] == 2 * len(judged)
    assert agreement["krippendorff_alpha"] is None  # undefined when every vote is alike


def test_runs_show_keeps_the_budget(runner, judge_server, tmp_path):
    runs = tmp_path / "runs"
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"criteria": {"final_response_match_v2": {"threshold": 0.5}}}))
    args = ["run", str(EXAMPLE / "travel.evalset.json"), "--actual", str(EXAMPLE / "travel.actual.json")]
    args += ["--config", str(config), "--no-cache", "--runs-dir", str(runs), "--format", "json"]
    first = json.loads(runner.invoke(main, [*args, "--judge-budget", "2"]).stdout)
    shown = runner.invoke(main, ["runs", "show", "--runs-dir", str(runs), "--format", "json"])
    again = json.loads(shown.stdout)
    assert again["summary"]["budget"] == first["summary"]["budget"] and first["summary"]["budget"]
    assert again["summary"]["eval_sets"] == first["summary"]["eval_sets"]
