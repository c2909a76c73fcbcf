"""Labelling in the case drawer, in a real browser: a person marks a judge criterion's result
pass or fail on two cases; the labels file then holds exactly those two lines, the command the
drawer prints (``agenteval calibrate RUN --labels FILE``) reads it, and after a reload the
labels are still shown, with the calibration card's κ beside them. The drawer also shows
what each criterion's judge calls used."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import agenteval_viewer_server_test_helpers as helpers
import agenteval_viewer_visibility as visibility
import pytest
from agenteval.runs import find_run
from agenteval_viewer._labels_api import Labelling

pytestmark = pytest.mark.browser

WAIT_MS = 15_000
JUDGED = "final_response_match_v2"


def _judged_run(folder: Path) -> Path:
    """The travel example's recording scored by ``agenteval run`` with a judge criterion (the
    fake Gemini answers); the runs folder."""
    config = folder / "config.json"
    config.write_text(json.dumps({"criteria": {JUDGED: 0.5}}))
    runs = folder / "runs"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agenteval",
            "run",
            str(helpers.TRAVEL / "travel.evalset.json"),
            "--actual",
            str(helpers.TRAVEL / "travel.actual.json"),
            "--config",
            str(config),
            "--runs-dir",
            str(runs),
            "--no-cache",
        ],
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
    page.screenshot(path=str(folder / f"view_{name}.png"), full_page=True)


def _open_case(page, row: int):
    from playwright.sync_api import expect

    if page.get_by_test_id("drawer").count():
        page.get_by_test_id("close").click()  # the drawer covers the grid's right side
    page.get_by_test_id("grid-row").nth(row).click()
    drawer = page.get_by_test_id("drawer")
    expect(drawer.get_by_test_id("label-row").first).to_be_visible(timeout=WAIT_MS)
    return drawer, drawer.get_by_test_id("drawer-title").inner_text()


def test_a_person_labels_two_cases_and_calibrate_reads_the_file(
    tmp_path, gemini_env, schema_answers, browser_page
):
    from playwright.sync_api import expect

    gemini_env.responder = lambda request: schema_answers.answer_for(request.body)
    runs = _judged_run(tmp_path)
    run = find_run(runs)
    labels_file = run.folder / "labels.jsonl"
    with helpers.serving(runs, labelling=Labelling()) as server:
        page = browser_page
        page.set_viewport_size({"width": 1400, "height": 900})
        page.goto(f"{server.url}#/run/{run.run_id}")

        drawer, first = _open_case(page, 0)
        row = drawer.locator(f"[data-testid=label-row][data-criterion={JUDGED}]")
        expect(row.get_by_test_id("label-current")).to_have_text("not labelled")
        expect(row.get_by_test_id("label-kappa")).to_have_text("no card")
        row.get_by_test_id("label-note").fill("the reply names the wrong city")
        row.get_by_test_id("label-fail").click()
        expect(row.get_by_test_id("label-current")).to_have_text("labelled fail", timeout=WAIT_MS)
        expect(drawer.get_by_test_id("labels-file")).to_have_text(str(labels_file))
        use = drawer.locator(f"[data-testid=judge-use-row][data-criterion={JUDGED}]")
        expect(use).to_be_visible()
        case = next(c for c in run.result().cases() if c.eval_id == first)
        activity = next(c for c in case.criteria if c.criterion == JUDGED).judge
        assert activity is not None and activity.calls > 0
        expect(use.locator("td").nth(1)).to_have_text(str(activity.calls))
        expect(use.locator("td").nth(4)).to_have_text(f"{activity.input_tokens:,}")
        assert visibility.problems(page, "[data-testid=drawer]") == []
        _screenshot(page, "labels_first")

        drawer, second = _open_case(page, 1)
        assert second != first
        row = drawer.locator(f"[data-testid=label-row][data-criterion={JUDGED}]")
        row.get_by_test_id("label-pass").click()
        expect(row.get_by_test_id("label-current")).to_have_text("labelled pass", timeout=WAIT_MS)
        command = drawer.get_by_test_id("calibrate-command").inner_text()

        lines = labels_file.read_text(encoding="utf-8").splitlines()
        assert [json.loads(line) for line in lines] == [
            {
                "eval_id": first,
                "criterion": JUDGED,
                "label": "fail",
                "note": "the reply names the wrong city",
            },
            {"eval_id": second, "criterion": JUDGED, "label": "pass"},
        ]

        # The command the drawer prints, as a user would paste it.
        words = shlex.split(command)
        assert words[:2] == ["agenteval", "calibrate"]
        done = subprocess.run(
            [sys.executable, "-m", "agenteval", *words[1:]], capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert JUDGED in done.stdout

        page.goto(f"{server.url}#/run/{run.run_id}")  # the drawer closed, then a reload
        page.reload()
        expect(page.get_by_test_id("grid-row").first).to_be_visible(timeout=WAIT_MS)
        drawer, shown = _open_case(page, 0)
        assert shown == first
        row = drawer.locator(f"[data-testid=label-row][data-criterion={JUDGED}]")
        expect(row.get_by_test_id("label-current")).to_have_text("labelled fail", timeout=WAIT_MS)
        expect(row.get_by_test_id("label-note")).to_have_value("the reply names the wrong city")
        expect(row.get_by_test_id("label-fail")).to_have_attribute("aria-pressed", "true")
        expect(row.get_by_test_id("label-kappa")).to_contain_text("κ ", timeout=WAIT_MS)
        expect(row.get_by_test_id("label-kappa")).to_contain_text("(2 labels)")
        assert visibility.problems(page, "[data-testid=drawer]") == []
        _screenshot(page, "labels_reloaded")


class _PricedBundle:
    """The viewer's bundle, with a per-criterion judge cost in each case's detail (the field
    the engine is getting): the drawer shows what a record holds, and no more."""

    def __getattr__(self, name: str):
        from agenteval_viewer import _bundle

        return getattr(_bundle, name)

    def case_detail(self, run, row):
        from agenteval_viewer import _bundle

        detail = _bundle.case_detail(run, row)
        for criterion in detail["criteria"]:
            criterion["judge_cost"] = {"total": 0.0125, "currency": "USD"}
        return detail


def test_a_read_only_run_folder_says_so_in_the_drawer_beside_the_judges_cost(
    tmp_path, gemini_env, schema_answers, browser_page
):
    from playwright.sync_api import expect

    gemini_env.responder = lambda request: schema_answers.answer_for(request.body)
    runs = _judged_run(tmp_path)
    run = find_run(runs)
    with helpers.serving(runs, labelling=Labelling(), bundle=_PricedBundle()) as server:
        from agenteval_viewer import _labels

        original = _labels.os.access
        _labels.os.access = lambda path, mode: False if mode & os.W_OK else original(path, mode)
        try:
            page = browser_page
            page.goto(f"{server.url}#/run/{run.run_id}")
            drawer, _ = _open_case(page, 0)
            refused = drawer.get_by_test_id("labels-refused")
            expect(refused).to_be_visible(timeout=WAIT_MS)
            expect(refused).to_contain_text("is read-only")
            expect(refused).to_contain_text("--labels FILE")
            expect(drawer.get_by_test_id("label-pass").first).to_be_disabled()
            use = drawer.locator(f"[data-testid=judge-use-row][data-criterion={JUDGED}]")
            expect(use.locator("td").last).to_have_text("0.0125")
            assert visibility.problems(page, "[data-testid=drawer]") == []
            _screenshot(page, "labels_read_only")
        finally:
            _labels.os.access = original
    assert not (run.folder / "labels.jsonl").exists()
