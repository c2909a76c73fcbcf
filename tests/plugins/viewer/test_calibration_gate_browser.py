"""The calibration gate in the single-file HTML report (``agenteval report``), in headless
chromium: under the judge criterion, whether its verdicts were gated and why; in a case's
drawer, the verdict's basis ``calibration`` and its reason in words. And the judge's cost at
the config's prices in the report's header."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import agenteval_viewer_server_test_helpers as helpers
import agenteval_viewer_visibility as visibility
import pytest
from agenteval.runs import find_run
from agenteval_viewer._report import render_report

pytestmark = pytest.mark.browser

WAIT_MS = 15_000
JUDGED = "final_response_match_v2"


def _record(folder: Path, *options: str, statistics: dict | None = None) -> Path:
    """The travel example's recording scored by a judge criterion under ``options``; the runs folder."""
    config = folder / "config.json"
    config.write_text(
        json.dumps({"criteria": {JUDGED: 0.5}, **({"statistics": statistics} if statistics else {})})
    )
    runs = folder / "runs"
    args = ["run", str(helpers.TRAVEL / "travel.evalset.json"), "--config", str(config)]
    args += ["--actual", str(helpers.TRAVEL / "travel.actual.json"), "--runs-dir", str(runs), "--no-cache"]
    done = subprocess.run(
        [sys.executable, "-m", "agenteval", *args, *options],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "AGENTEVAL_JUDGE_BACKOFF_SECONDS": "0.01"},
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return runs


def _screenshot(page, name: str) -> None:
    folder = Path(os.environ.get("AGENTEVAL_SCREENSHOTS") or Path(__file__).with_name("_screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"report_{name}.png"), full_page=True)


def test_the_report_shows_the_gate_and_the_gated_verdicts_reason(
    tmp_path, gemini_env, schema_answers, browser_page
):
    from playwright.sync_api import expect

    gemini_env.responder = lambda request: schema_answers.answer_for(request.body)
    cards = tmp_path / "cards.json"
    cards.write_text(json.dumps({"cards": []}))
    run = find_run(_record(tmp_path, "--calibration", str(cards)))
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
    _screenshot(page, "calibration_gate")
    page.get_by_test_id("grid-row").first.click()
    drawer = page.get_by_test_id("drawer")
    expect(drawer).to_be_visible(timeout=WAIT_MS)
    basis = drawer.get_by_test_id("verdict-basis").first
    expect(basis).to_be_visible(timeout=WAIT_MS)
    expect(basis).to_contain_text("calibration the judge is not calibrated: no calibration card")
    expect(basis).to_contain_text("(without the gate: PASS)")
    assert visibility.problems(page, "[data-testid=drawer]") == []
    _screenshot(page, "calibration_gate_drawer")


def test_a_current_card_is_named_in_the_report(tmp_path, gemini_env, schema_answers, browser_page):
    from agenteval.cli import main
    from click.testing import CliRunner
    from playwright.sync_api import expect

    gemini_env.responder = lambda request: schema_answers.answer_for(request.body)
    first = tmp_path / "first"
    first.mkdir()
    runs = _record(first)
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"eval_id": "weather_paris", "criterion": JUDGED, "label": "pass"}) + "\n")
    done = CliRunner().invoke(main, ["calibrate", "latest", "--labels", str(labels), "--runs-dir", str(runs)])
    assert done.exit_code == 0, done.output
    card_run = find_run(runs)
    second = tmp_path / "second"
    second.mkdir()
    run = find_run(_record(second, "--calibration", str(card_run.folder)))
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
    run = find_run(_record(tmp_path, statistics={"judge_prices": prices}))
    cost = run.summary().summary.judge_cost
    assert cost is not None and cost.total > 0 and not cost.unpriced
    report = render_report(run, tmp_path / "report.html", details="all").path
    page = browser_page
    page.goto(report.as_uri())
    shown = page.get_by_test_id("judge-cost")
    expect(shown).to_be_visible(timeout=WAIT_MS)
    expect(shown).to_have_text(f"{cost.total:.4f}")  # as the terminal prints it
    assert visibility.problems(page, "header") == []
    _screenshot(page, "judge_cost")
