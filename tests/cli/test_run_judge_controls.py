"""``--judge-budget``, ``--max-judge-tokens`` and ``--judge-sampling`` on the command line,
against the fake Gemini server: past a budget what is left unjudged is INCONCLUSIVE
``judge_budget`` (point status NOT_EVALUATED, never FAILED), counted in the summary's budget
block and shown; ``--dry-run`` says whether the planned calls fit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from agenteval.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "travel"


def _args(tmp_path: Path, statistics: Optional[dict] = None) -> list[str]:
    config = tmp_path / "config.json"
    criteria = {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"num_samples": 5}}}
    block = {} if statistics is None else {"statistics": statistics}
    config.write_text(json.dumps({"criteria": criteria, **block}))
    args = ["run", str(EXAMPLE / "travel.evalset.json"), "--actual", str(EXAMPLE / "travel.actual.json")]
    return [*args, "--config", str(config), "--no-cache", "--no-record"]


def _run(runner, tmp_path: Path, *extra: str, statistics: Optional[dict] = None):
    result = runner.invoke(main, [*_args(tmp_path, statistics), "--format", "json", *extra])
    return result, (json.loads(result.stdout) if result.stdout.strip().startswith("{") else None)


def _judged(doc):
    return [r for c in doc["eval_sets"][0]["cases"] for r in c["criteria"]]


def _unjudged(doc) -> list[dict]:
    """The criterion results the budget left unjudged, checked to be exactly those with the
    ``judge_budget`` code: INCONCLUSIVE, point status NOT_EVALUATED."""
    results = _judged(doc)
    unjudged = [r for r in results if r["reason_code"] == "judge_budget"]
    assert [r for r in results if r["status"] == "NOT_EVALUATED"] == unjudged
    for r in unjudged:
        assert r["verdict"]["verdict"] == "INCONCLUSIVE" and r["verdict"]["basis"] == "judge_budget"
        assert "larger judge budget" in r["verdict"]["reason"]
    assert all(r["verdict"]["verdict"] in ("PASS", "FAIL") for r in results if r not in unjudged)
    return unjudged


def test_a_spent_budget_leaves_what_is_unjudged_inconclusive_never_failed(runner, judge_server, tmp_path):
    result, doc = _run(runner, tmp_path, "--judge-budget", "4")
    assert result.exit_code == 1  # nothing passes the gate unjudged
    assert len(judge_server.requests) <= 4
    assert "FAILED" not in [r["status"] for r in _judged(doc)]
    refused = _unjudged(doc)
    summary = doc["summary"]
    assert summary["not_evaluated_reasons"]["judge_budget"] == len(refused) > 0
    assert summary["budget"]["judge_calls_limit"] == 4
    assert summary["budget"]["judge_calls_used"] == len(judge_server.requests)
    assert summary["budget"]["judge_calls_refused"] > 0
    assert summary["budget"]["inconclusive"] == len(refused)
    # the set is INCONCLUSIVE, not FAILed by the cases the budget left unjudged
    (criterion,) = summary["eval_sets"][0]["criteria"]
    assert criterion["verdict"] == "INCONCLUSIVE"
    assert criterion["verdict_counts"]["INCONCLUSIVE"] == len(refused)


def test_a_spent_token_budget_is_inconclusive_counted_and_shown(runner, judge_server, tmp_path):
    # The fake judge reports 10 input + 5 output tokens a call; one call at a time, the
    # budget of 40 lets three calls start (45 tokens), then none.
    args = ("--max-judge-tokens", "40", "--judge-concurrency", "1")
    result, doc = _run(runner, tmp_path, *args)
    assert result.exit_code == 1 and len(judge_server.requests) == 3
    refused = _unjudged(doc)
    assert refused and "FAILED" not in [r["status"] for r in _judged(doc)]
    summary = doc["summary"]
    assert summary["not_evaluated_reasons"]["judge_budget"] == len(refused)
    assert summary["judge"]["input_tokens"] == 30 and summary["judge"]["output_tokens"] == 15
    budget = summary["budget"]
    assert (budget["judge_tokens_limit"], budget["judge_tokens_used"]) == (40, 45)
    assert budget["judge_tokens_refused"] > 0 and budget["judge_calls_limit"] is None
    assert budget["inconclusive"] == len(refused)
    # Per criterion and per case: each judged result carries its own calls' tokens.
    assert sum(r["judge"]["input_tokens"] for r in _judged(doc) if r["judge"]) == 30
    cases = doc["eval_sets"][0]["cases"]
    assert sum(c["judge"]["input_tokens"] for c in cases if c["judge"]) == 30
    table = runner.invoke(main, [*_args(tmp_path), "--format", "table", *args])
    shown = " ".join(table.output.split())  # the terminal wraps at 80 columns
    assert "judge token budget: 45 of 40 token(s) used;" in shown
    assert "call(s) refused once it was spent" in shown
    assert (
        f"judge budget spent: {len(refused)} criterion result(s) not judged, each INCONCLUSIVE (judge_budget)"
        in shown
    )
    assert "NOT_EVALUATED INCONCLUSIVE [judge_budget]: not judged:" in shown
    assert "a judge budget spent before the result was judged" in shown


def test_a_token_budget_from_the_config_applies_and_a_flag_overrides_it(runner, judge_server, tmp_path):
    _, doc = _run(runner, tmp_path, statistics={"max_judge_tokens": 0})
    assert doc["summary"]["budget"]["judge_tokens_limit"] == 0 and judge_server.requests == []
    _, doc = _run(runner, tmp_path, "--max-judge-tokens", "100000", statistics={"max_judge_tokens": 0})
    assert doc["summary"]["budget"]["judge_tokens_refused"] == 0 and judge_server.requests
    result, _ = _run(runner, tmp_path, statistics={"max_judge_tokens": "lots"})
    assert result.exit_code == 2 and "statistics.max_judge_tokens: expected a whole number" in result.output


def test_dry_run_states_the_token_budget(runner, judge_server, tmp_path):
    result, _ = _run(runner, tmp_path, "--dry-run", "--max-judge-tokens", "5000")
    assert result.exit_code == 0 and "judge tokens are capped at 5,000 (--max-judge-tokens)" in result.output


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
    # each criterion's and each case's judge tokens are carried as the run counted them
    assert again["summary"]["criteria"] == first["summary"]["criteria"]
    assert first["summary"]["criteria"][0]["judge"]["input_tokens"] > 0
    assert [c["judge"] for c in again["eval_sets"][0]["cases"]] == [
        c["judge"] for c in first["eval_sets"][0]["cases"]
    ]
