"""The viewer shows what a verdict rests on, readably: under each criterion, every eval set's
verdict with its rule, why and the error it controls (``guarantee``); in a case's drawer, a
verdict's basis and reason in words, e.g. ``identical-runs`` for two runs that gave the same
output (before, the reason was a tooltip and the set verdict's guarantee was not shown), and
``calibration`` for a judge criterion the calibration gate held back (``--calibration``), with
the gate's finding under the criterion; the judge's cost at the config's prices in the header.
The gate and the cost are checked in the single-file HTML report (``agenteval report``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

import agenteval_viewer_server_test_helpers as helpers
import agenteval_viewer_visibility as visibility
import pytest
from agenteval.runs import find_run
from agenteval_viewer._report import render_report

pytestmark = pytest.mark.browser

WAIT_MS = 15_000
JUDGED = "final_response_match_v2"


def _record(
    folder: Path, criteria: dict, *options: str, actual_runs: int = 1, statistics: Optional[dict] = None
) -> Path:
    """The travel example scored by ``agenteval run`` in a subprocess on its recording
    (``actual_runs`` times: identical runs) under ``criteria`` (and a ``statistics`` block);
    the runs folder."""
    config = folder / "config.json"
    config.write_text(
        json.dumps({"criteria": criteria, **({"statistics": statistics} if statistics else {})})
    )
    runs = folder / "runs"
    args = [
        "run",
        str(helpers.TRAVEL / "travel.evalset.json"),
        "--config",
        str(config),
        "--runs-dir",
        str(runs),
    ]
    args += ["--actual", str(helpers.TRAVEL / "travel.actual.json")] * actual_runs
    done = subprocess.run(
        [sys.executable, "-m", "agenteval", *args, *options],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "AGENTEVAL_JUDGE_BACKOFF_SECONDS": "0.01"},
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return runs


@pytest.fixture(scope="module")
def identical(tmp_path_factory) -> Path:
    return _record(tmp_path_factory.mktemp("identical"), {"response_match_score": 0.3}, actual_runs=2)


def _screenshot(page, name: str) -> None:
    folder = Path(os.environ.get("AGENTEVAL_SCREENSHOTS") or Path(__file__).with_name("_screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"view_{name}.png"), full_page=True)


def test_the_set_verdicts_guarantee_and_a_cases_identical_runs_basis_are_shown(identical, browser_page):
    from playwright.sync_api import expect

    run = find_run(identical)
    summary = run.summary()
    assert summary is not None
    (stated,) = summary.summary.eval_sets[0].criteria
    assert stated.guarantee and stated.verdict_reason
    with helpers.serving(identical) as server:
        page = browser_page
        page.goto(f"{server.url}#/run/{run.run_id}")
        card = page.get_by_test_id("criterion-response_match_score")
        line = card.get_by_test_id("set-verdict")
        expect(line).to_be_visible(timeout=WAIT_MS)
        expect(line).to_contain_text(f"eval set {summary.summary.eval_sets[0].eval_set_id}")
        expect(line.get_by_test_id("set-verdict-word")).to_have_text(stated.verdict or "")
        expect(line).to_contain_text(f"({stated.verdict_rule})")
        expect(line).to_contain_text(stated.verdict_reason or "")
        expect(line.get_by_test_id("set-guarantee")).to_have_text(stated.guarantee or "")
        assert visibility.problems(page, "[data-testid=criterion-response_match_score]") == []
        _screenshot(page, "set_verdict")
        page.get_by_test_id("grid-row").first.click()
        drawer = page.get_by_test_id("drawer")
        expect(drawer).to_be_visible(timeout=WAIT_MS)
        basis = drawer.get_by_test_id("verdict-basis").first
        expect(basis).to_be_visible(timeout=WAIT_MS)
        expect(basis).to_contain_text("identical-runs")
        shown = drawer.get_by_test_id("drawer-title").inner_text()
        verdict = next(c for c in run.result().cases() if c.eval_id == shown).criteria[0].verdict
        assert verdict is not None and verdict.basis == "identical-runs"
        expect(basis).to_contain_text(verdict.reason)
        assert visibility.problems(page, "[data-testid=drawer]") == []
        _screenshot(page, "verdict_basis")


def test_the_judge_token_budget_and_its_refusals_show_in_the_header(
    tmp_path, gemini_env, schema_answers, browser_page
):
    """A run whose --max-judge-tokens ran out: the header says the tokens used of the budget
    and how many calls were refused, beside the judge's tokens."""
    from playwright.sync_api import expect

    gemini_env.responder = lambda request: schema_answers.answer_for(request.body)
    options = ("--no-cache", "--judge-concurrency", "1", "--max-judge-tokens", "40")
    runs = _record(tmp_path, {"final_response_match_v2": 0.5}, *options)
    run = find_run(runs)
    budget = run.summary().summary.budget
    assert budget is not None and budget.judge_tokens_refused > 0
    with helpers.serving(runs) as server:
        page = browser_page
        page.goto(f"{server.url}#/run/{run.run_id}")
        shown = page.get_by_test_id("judge-budget")
        expect(shown).to_be_visible(timeout=WAIT_MS)
        expect(shown).to_have_text(
            f"judge token budget{budget.judge_tokens_used} of 40 used, "
            f"{budget.judge_tokens_refused} call(s) refused"
        )
        unjudged = page.get_by_test_id("judge-budget-unjudged")
        assert budget.inconclusive > 0
        expect(unjudged).to_have_text(
            f"not judged{budget.inconclusive} criterion result(s), INCONCLUSIVE (judge_budget)"
        )
        expect(page.get_by_test_id("judge-tokens")).to_have_text("30 in / 15 out")
        assert visibility.problems(page, "header") == []
        _screenshot(page, "judge_budget")


def test_a_criterions_calibration_card_shows_in_its_panel(tmp_path, gemini_env, schema_answers, browser_page):
    """After ``agenteval calibrate``, the judge criterion's panel says how it agrees with people."""
    from agenteval.cli import main
    from click.testing import CliRunner
    from playwright.sync_api import expect

    gemini_env.responder = lambda request: schema_answers.answer_for(request.body)
    runs = _record(tmp_path, {"final_response_match_v2": 0.5}, "--no-cache")
    assert find_run(runs).summary().summary.status.value == "PASSED"
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "".join(
            json.dumps({"eval_id": case, "criterion": "final_response_match_v2", "label": label}) + "\n"
            for case, label in (
                ("weather_paris", "pass"),
                ("flight_then_currency", "pass"),
                ("hotel_tokyo_ja", "fail"),
            )
        )
    )
    calibrated = CliRunner().invoke(
        main, ["calibrate", "latest", "--labels", str(labels), "--runs-dir", str(runs)]
    )
    assert calibrated.exit_code == 0, calibrated.output
    run = find_run(runs)
    with helpers.serving(runs) as server:
        page = browser_page
        page.goto(f"{server.url}#/run/{run.run_id}")
        line = page.get_by_test_id("criterion-final_response_match_v2").get_by_test_id("calibration")
        expect(line).to_be_visible(timeout=WAIT_MS)
        expect(line).to_contain_text("calibrated against 3 human label(s): Cohen's κ 0 [")
        expect(line).to_contain_text("people passed 66.7%, judge 100.0%, accuracy 66.7% [")
        expect(line).to_contain_text("judge gemini-2.5-flash")
        assert visibility.problems(page, "[data-testid=criterion-final_response_match_v2]") == []
        _screenshot(page, "calibration")


def test_the_report_shows_the_gate_and_the_gated_verdicts_reason(
    tmp_path, gemini_env, schema_answers, browser_page
):
    from playwright.sync_api import expect

    gemini_env.responder = lambda request: schema_answers.answer_for(request.body)
    cards = tmp_path / "cards.json"
    cards.write_text(json.dumps({"cards": []}))
    run = find_run(_record(tmp_path, {JUDGED: 0.5}, "--no-cache", "--calibration", str(cards)))
    gate = run.manifest.eval_sets[0].criteria[0].calibration
    assert gate is not None and gate.problem
    report = render_report(run, tmp_path / "report.html", details="all").path
    page = browser_page
    page.goto(report.as_uri())
    line = page.get_by_test_id(f"criterion-{JUDGED}").get_by_test_id("calibration-gate")
    expect(line).to_be_visible(timeout=WAIT_MS)
    expect(line).to_contain_text("calibration gate: verdicts INCONCLUSIVE calibration_missing")
    expect(line).to_contain_text(f"no calibration card for {JUDGED} in {cards}")
    assert visibility.problems(page, f"[data-testid=criterion-{JUDGED}]") == []
    _screenshot(page, "report_calibration_gate")
    page.get_by_test_id("grid-row").first.click()
    drawer = page.get_by_test_id("drawer")
    expect(drawer).to_be_visible(timeout=WAIT_MS)
    basis = drawer.get_by_test_id("verdict-basis").first
    expect(basis).to_be_visible(timeout=WAIT_MS)
    expect(basis).to_contain_text("calibration the judge is not calibrated: no calibration card")
    expect(basis).to_contain_text("(without the gate: PASS)")
    assert visibility.problems(page, "[data-testid=drawer]") == []
    _screenshot(page, "report_calibration_gate_drawer")


def test_a_current_card_is_named_in_the_report(tmp_path, gemini_env, schema_answers, browser_page):
    from agenteval.cli import main
    from click.testing import CliRunner
    from playwright.sync_api import expect

    gemini_env.responder = lambda request: schema_answers.answer_for(request.body)
    first = tmp_path / "first"
    first.mkdir()
    runs = _record(first, {JUDGED: 0.5}, "--no-cache")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"eval_id": "weather_paris", "criterion": JUDGED, "label": "pass"}) + "\n")
    done = CliRunner().invoke(main, ["calibrate", "latest", "--labels", str(labels), "--runs-dir", str(runs)])
    assert done.exit_code == 0, done.output
    card_run = find_run(runs)
    second = tmp_path / "second"
    second.mkdir()
    run = find_run(_record(second, {JUDGED: 0.5}, "--no-cache", "--calibration", str(card_run.folder)))
    report = render_report(run, tmp_path / "report.html", details="all").path
    page = browser_page
    page.goto(report.as_uri())
    line = page.get_by_test_id(f"criterion-{JUDGED}").get_by_test_id("calibration-gate")
    expect(line).to_be_visible(timeout=WAIT_MS)
    expect(line).to_contain_text(
        f"calibration gate: a current card (run {card_run.run_id}, κ undefined over 1 label(s))"
    )
    assert visibility.problems(page, f"[data-testid=criterion-{JUDGED}]") == []


def test_the_judge_cost_shows_in_the_reports_header(tmp_path, gemini_env, schema_answers, browser_page):
    from playwright.sync_api import expect

    gemini_env.responder = lambda request: schema_answers.answer_for(request.body)
    prices = {"gemini-2.5-flash": {"input_per_mtok": 1000, "output_per_mtok": 4000}}
    run = find_run(_record(tmp_path, {JUDGED: 0.5}, "--no-cache", statistics={"judge_prices": prices}))
    cost = run.summary().summary.judge_cost
    assert cost is not None and cost.total > 0 and not cost.unpriced
    report = render_report(run, tmp_path / "report.html", details="all").path
    page = browser_page
    page.goto(report.as_uri())
    shown = page.get_by_test_id("judge-cost")
    expect(shown).to_be_visible(timeout=WAIT_MS)
    expect(shown).to_have_text(f"{cost.total:.4f}")  # as the terminal prints it
    assert visibility.problems(page, "header") == []
    _screenshot(page, "report_judge_cost")
