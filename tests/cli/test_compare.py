"""``agenteval compare A B``: paired run-vs-run comparison of run folders and ADK history."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import agenteval
import pytest
from agenteval.cli import main
from agenteval.models import EvalSet
from agenteval.testing import make_case, make_invocation


def _sets(n: int, wrong: set[int]) -> tuple[EvalSet, EvalSet]:
    expected = EvalSet(
        eval_set_id="shop",
        eval_cases=[
            make_case([make_invocation(f"q{i}", "ok", [("find", {"i": i})])], eval_id=f"c{i:02d}")
            for i in range(n)
        ],
    )
    actual = EvalSet(
        eval_set_id="shop",
        eval_cases=[
            make_case(
                [make_invocation(f"q{i}", "ok", [("find", {"i": -1 if i in wrong else i})], form="events")],
                eval_id=f"c{i:02d}",
            )
            for i in range(n)
        ],
    )
    return expected, actual


def _run(runs: Path, wrong: set[int], n: int = 30, threshold: float = 1.0) -> str:
    expected, actual = _sets(n, wrong)
    result = agenteval.evaluate(expected, actual, {"tool_trajectory_avg_score": threshold}, runs_dir=runs)
    return result.run_id


@pytest.fixture
def runs(tmp_path) -> Path:
    return tmp_path / "runs"


def _compare(runner, runs, *args):
    return runner.invoke(main, ["compare", *args, "--runs-dir", str(runs)])


def test_a_run_against_itself_shows_no_change(runner, runs):
    a = _run(runs, set())
    result = _compare(runner, runs, a, a, "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    [criterion] = doc["criteria"]
    assert criterion["delta"] == 0 and criterion["status"] == "NO DETECTABLE CHANGE"
    assert doc["flips"] == [] and doc["paired_cases"] == 30


def test_a_real_regression_exits_1_and_lists_the_flipped_cases_first(runner, runs):
    baseline = _run(runs, set())
    candidate = _run(runs, set(range(12)))
    result = _compare(runner, runs, baseline, candidate, "--format", "json")
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    [criterion] = doc["criteria"]
    assert criterion["status"] == "REGRESSED" and criterion["delta"] == pytest.approx(-0.4)
    assert criterion["discordant"] == [0, 12]
    assert [f["case_id"] for f in doc["flips"]][:2] == ["c00", "c01"]
    assert all(f["baseline"] == "PASSED" and f["candidate"] == "FAILED" for f in doc["flips"])
    table = _compare(runner, runs, baseline, candidate)
    assert "REGRESSED: tool_trajectory_avg_score" in table.stdout and "▼ shop/c00" in table.stdout
    markdown = _compare(runner, runs, baseline, candidate, "--format", "markdown")
    assert "| `tool_trajectory_avg_score` |" in markdown.stdout and "**REGRESSED**" in markdown.stdout


def test_swapping_the_runs_negates_the_change(runner, runs):
    a, b = _run(runs, {1, 2, 3}), _run(runs, {2, 3, 4, 5, 6})
    forward = json.loads(_compare(runner, runs, a, b, "--format", "json").stdout)["criteria"][0]
    backward = json.loads(_compare(runner, runs, b, a, "--format", "json").stdout)["criteria"][0]
    assert forward["delta"] == pytest.approx(-backward["delta"])
    assert forward["p_worse"] == pytest.approx(backward["p_better"])


def test_a_changed_threshold_is_refused_unless_allowed(runner, runs):
    a, b = _run(runs, set()), _run(runs, set(), threshold=0.5)
    refused = _compare(runner, runs, a, b)
    assert refused.exit_code == 2 and "threshold 1.0 -> 0.5" in refused.stderr
    allowed = _compare(runner, runs, a, b, "--allow-config-change")
    assert allowed.exit_code == 0 and "configuration changed (allowed)" in allowed.stdout


def test_runs_of_other_eval_sets_do_not_pair(runner, runs, tmp_path):
    a = _run(runs, set())
    other = EvalSet(eval_set_id="elsewhere", eval_cases=[make_case([make_invocation("q", "a")], eval_id="x")])
    b = agenteval.evaluate(other, other, {"tool_trajectory_avg_score": 1.0}, runs_dir=runs).run_id
    result = _compare(runner, runs, a, b)
    assert result.exit_code == 2 and "no case of run" in result.stderr


def test_non_inferiority_not_shown_exits_3(runner, runs):
    a, b = _run(runs, set(), n=8), _run(runs, {0}, n=8)
    result = _compare(runner, runs, a, b, "--margin", "0.01", "--format", "json")
    assert result.exit_code == 3, result.output
    assert json.loads(result.stdout)["criteria"][0]["non_inferior"] is False


def test_adk_eval_history_files_compare_too(runner, runs, tmp_path):
    def history(folder: Path, failing: set[int]) -> Path:
        folder.mkdir()
        cases = [
            {
                "eval_set_id": "shop",
                "eval_id": f"c{i:02d}",
                "final_eval_status": 2 if i in failing else 1,
                "overall_eval_metric_results": [
                    {
                        "metric_name": "tool_trajectory_avg_score",
                        "threshold": 1.0,
                        "score": 0.0 if i in failing else 1.0,
                        "eval_status": 2 if i in failing else 1,
                    }
                ],
                "eval_metric_result_per_invocation": [],
                "session_id": "s",
            }
            for i in range(20)
        ]
        document = {"eval_set_result_id": "r", "eval_set_id": "shop", "eval_case_results": cases}
        path = folder / "app_shop_1.evalset_result.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        return folder

    a = history(tmp_path / "before", set())
    b = history(tmp_path / "after", set(range(10)))
    result = _compare(runner, runs, str(a), str(b), "--format", "json")
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["criteria"][0]["status"] == "REGRESSED"
    # and an agenteval run of the same cases pairs with ADK's history
    ours = _run(runs, set(), n=20)
    mixed = _compare(runner, runs, ours, str(b), "--format", "json")
    assert json.loads(mixed.stdout)["paired_cases"] == 20


def _adk_result(folder: Path, results: Any) -> str:
    folder.mkdir()
    path = folder / "app_shop_1.evalset_result.json"
    document = {"eval_set_result_id": "r", "eval_set_id": "shop", "eval_case_results": results}
    path.write_text(json.dumps(document, allow_nan=True), encoding="utf-8")
    return str(path)


def _adk_case(score: Any = 1.0, **changes: Any) -> dict:
    metric = {"metric_name": "tool_trajectory_avg_score", "threshold": 1.0, "score": score, "eval_status": 1}
    return {"eval_id": "c", "overall_eval_metric_results": [metric], **changes}


@pytest.mark.parametrize(
    ("results", "message"),
    [
        (True, "eval_case_results: expected a list of case results"),
        (["x"], "eval_case_results[0]: expected an object"),
        (
            [_adk_case(overall_eval_metric_results="x")],
            "eval_case_results[0]: expected its overall_eval_metric",
        ),
        ([_adk_case(overall_eval_metric_results=[7])], "overall_eval_metric_results[0]: expected an object"),
        ([_adk_case(score=[1])], "overall_eval_metric_results[0].score: expected a number or null, got [1]"),
    ],
)
def test_an_adk_result_of_the_wrong_shape_exits_2_naming_the_place(runner, runs, tmp_path, results, message):
    good = _adk_result(tmp_path / "good", [_adk_case()])
    bad = _adk_result(tmp_path / "bad", results)
    result = _compare(runner, runs, good, bad)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, result.output
    assert f"{bad}: " in result.output and message in result.output, result.output


def test_an_adk_score_outside_its_range_leaves_the_criterion_uncompared_with_the_reason(
    runner, runs, tmp_path
):
    good = _adk_result(tmp_path / "good", [_adk_case()])
    for name, score in (("nan", math.nan), ("two", 2.0)):
        result = _compare(
            runner, runs, good, _adk_result(tmp_path / name, [_adk_case(score)]), "--format", "json"
        )
        assert result.exit_code in (0, 1), result.output
        skipped = json.loads(result.stdout)["not_compared"]
        assert "is outside its range [0.0, 1.0]" in skipped["tool_trajectory_avg_score"], skipped


def test_hostile_case_ids_never_reach_the_terminal_raw(runner, runs):
    hostile = "c\u202eknil<b>"  # an id cannot hold a control character (refused at load), but bidi
    expected = EvalSet(
        eval_set_id="shop", eval_cases=[make_case([make_invocation("q", "ok", [("f", {})])], eval_id=hostile)]
    )
    actual = EvalSet(
        eval_set_id="shop",
        eval_cases=[make_case([make_invocation("q", "ok", [("g", {})], form="events")], eval_id=hostile)],
    )
    a = agenteval.evaluate(expected, expected, {"tool_trajectory_avg_score": 1.0}, runs_dir=runs).run_id
    b = agenteval.evaluate(expected, actual, {"tool_trajectory_avg_score": 1.0}, runs_dir=runs).run_id
    result = _compare(runner, runs, a, b)
    listed = runner.invoke(main, ["runs", "list", "--runs-dir", str(runs)])
    for output in (result.stdout, listed.stdout):
        assert "\u202e" not in output
    assert "▼ shop/c\\u202eknil<b>" in result.stdout


def test_one_case_flipped_to_failed_exits_0_by_default_and_1_with_fail_on_flip(runner, runs):
    baseline, candidate = _run(runs, set()), _run(runs, {7})
    lenient = _compare(runner, runs, baseline, candidate)
    assert lenient.exit_code == 0, lenient.output  # one flip in 30 cases: no detectable regression
    assert "--fail-on-flip makes this exit 1" in " ".join(lenient.stdout.split())
    strict = _compare(runner, runs, baseline, candidate, "--fail-on-flip", "--format", "json")
    assert strict.exit_code == 1, strict.output
    doc = json.loads(strict.stdout)
    assert doc["exit_code"] == 1 and [f["case_id"] for f in doc["flips"]] == ["c07"]
    assert "--fail-on-flip: 1 case verdict(s) went from PASSED to worse: exit 1" in strict.stderr
    improved = _compare(runner, runs, candidate, baseline, "--fail-on-flip")
    assert improved.exit_code == 0, improved.output  # FAILED -> PASSED is no reason to fail
