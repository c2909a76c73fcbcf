# ruff: noqa: E501
"""The "Eval sets" screen of ``agenteval view --allow-write`` in Debian's chromium: chat with
the bundled travel agent, save the chat as a case (ADK's format, read by google-adk's own
``EvalSet``), edit an expected argument, run the case and see it fail, promote the actual
turn and see it pass; and the refusals (token, path escape, concurrent edit)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import agenteval_viewer_server_test_helpers as helpers
import pytest
from agenteval_viewer._authoring_api import Authoring
from agenteval_viewer._authoring_guard import WriteGuard

pytestmark = pytest.mark.browser
TIMEOUT = 30_000


@pytest.fixture
def server(tmp_path: Path) -> Any:
    evals = tmp_path / "evals"
    evals.mkdir()
    (tmp_path / "secret.evalset.json").write_text('{"eval_set_id": "secret", "eval_cases": []}')
    authoring = Authoring(WriteGuard([evals], token="browser-token"), tmp_path / "runs")
    with helpers.serving(tmp_path / "runs", authoring=authoring) as running:
        running.evals = evals
        yield running


def _open(page: Any, server: Any) -> None:
    page.goto(f"{server.url}#/author?token=browser-token")
    page.wait_for_selector("[data-testid=author]", timeout=TIMEOUT)
    assert "token" not in page.url  # taken out of the address once kept


def _preview_and_save(page: Any, scope: Any) -> None:
    scope.locator("[data-testid=preview]").last.click()
    scope.locator("[data-testid=confirm-save]").last.click()
    scope.locator("[data-testid=saved]").last.wait_for(timeout=TIMEOUT)


def test_chat_save_edit_run_fail_promote_pass(browser_page: Any, server: Any) -> None:
    page = browser_page
    _open(page, server)
    page.fill("[data-testid=agent]", str(helpers.TRAVEL))
    page.fill("[data-testid=state]", '{"tier": "gold"}')
    page.click("[data-testid=start-chat]")
    page.fill("[data-testid=message]", "Find me a flight to Tokyo <img src=x onerror=alert(1)>")
    page.click("[data-testid=send]")
    page.wait_for_selector("[data-testid=final]", timeout=TIMEOUT)
    tool = page.locator("[data-testid=tool-call]").first.inner_text()
    assert "search_flights" in tool and '"destination": "HND"' in tool
    assert page.locator("img").count() == 0  # the message is text
    page.screenshot(path=str(helpers.REPO / "tests/plugins/viewer/_screenshots/authoring_chat.png"))

    page.fill("[data-testid=case-id]", "flight")
    page.select_option("[data-testid=save-target]", "__new__")
    page.fill("[data-testid=new-set-id]", "chats")
    page.click("[data-testid=make-case]")
    page.wait_for_selector("[data-testid=case-draft]", timeout=TIMEOUT)
    page.click("[data-testid=preview]")
    assert '+  "eval_set_id": "chats",' in page.locator("[data-testid=diff]").inner_text()
    page.click("[data-testid=confirm-save]")
    page.wait_for_selector("[data-testid=evalset]", timeout=TIMEOUT)

    saved = server.evals / "chats.evalset.json"
    data = json.loads(saved.read_text())
    assert data["eval_cases"][0]["eval_id"] == "flight"
    assert data["eval_cases"][0]["session_input"]["state"] == {"tier": "gold"}
    adk = pytest.importorskip("google.adk.evaluation.eval_set")
    parsed = adk.EvalSet.model_validate_json(saved.read_text())
    assert parsed.eval_cases[0].conversation[0].intermediate_data.tool_uses[0].name == "search_flights"

    # edit the expected argument
    page.click("[data-testid=edit-case]")
    area = page.locator("[data-testid=tool-calls]").first
    area.fill(area.input_value().replace('"HND"', '"KIX"'))
    editor = page.locator("[data-testid=case-editor]")
    _preview_and_save(page, editor)
    assert '"KIX"' in saved.read_text() and '"HND"' not in saved.read_text()

    # run it: it fails
    page.check("[data-testid='crit-tool_trajectory_avg_score']")
    page.check("[aria-label='select flight']")
    page.click("[data-testid=run-selected]")
    page.wait_for_selector("[data-testid=run-state] >> text=complete", timeout=60_000)
    assert "FAILED 1" in page.locator("[data-testid=run-state]").inner_text()
    page.screenshot(path=str(helpers.REPO / "tests/plugins/viewer/_screenshots/authoring_run_failed.png"))

    # promote the actual turn, preview, write, run again: it passes
    assert page.locator("[data-testid=promote-run]").input_value()
    page.click("[data-testid=promote]")
    from playwright.sync_api import expect

    expect(page.locator("[data-testid=tool-calls]").first).to_have_value(re.compile("HND"), timeout=TIMEOUT)
    editor.locator("[data-testid=preview]").last.click()
    diff = editor.locator("[data-testid=diff]").inner_text()
    assert '"KIX"' in diff and '"HND"' in diff
    editor.locator("[data-testid=confirm-save]").click()
    editor.locator("[data-testid=saved]").wait_for(timeout=TIMEOUT)
    assert '"HND"' in saved.read_text()
    page.click("[data-testid=run-selected]")
    page.wait_for_selector("[data-testid=run-state] >> text=PASSED 1", timeout=60_000)
    page.click("[data-testid=run-state] a")
    page.wait_for_selector("[data-testid=verdict]", timeout=TIMEOUT)
    assert page.locator("[data-testid=verdict]").inner_text() == "PASS"


def test_without_the_token_nothing_is_read_or_written(browser_page: Any, server: Any) -> None:
    page = browser_page
    page.goto(f"{server.url}#/author")
    page.wait_for_selector("[data-testid=problem]", timeout=TIMEOUT)
    assert "token" in page.locator("[data-testid=problem]").inner_text()
    status = page.evaluate(
        """() => fetch('api/author/evalset/save', {method: 'POST', headers: {'Content-Type': 'application/json',
        'X-Agenteval-Token': 'guessed'}, body: '{}'}).then(r => r.status)"""
    )
    assert status == 403
    # the console's 403 lines are the refusals this test asks for
    page.watch.console_errors = [e for e in page.watch.console_errors if "403" not in e]


def test_a_path_out_of_the_eval_set_folder_is_refused(browser_page: Any, server: Any) -> None:
    page = browser_page
    _open(page, server)
    answer = page.evaluate(
        """() => fetch('api/author/evalset?root=0&path=../secret.evalset.json', {headers: {'X-Agenteval-Token':
        sessionStorage.getItem('agenteval-view-token')}}).then(r => r.json().then(b => [r.status, b.error]))"""
    )
    assert answer[0] == 400 and "'..'" in answer[1]
    page.watch.console_errors = [e for e in page.watch.console_errors if "400" not in e]


def test_a_file_changed_on_disk_is_not_overwritten(browser_page: Any, server: Any) -> None:
    page = browser_page
    target = server.evals / "travel.evalset.json"
    target.write_text((helpers.TRAVEL / "travel.evalset.json").read_text())
    _open(page, server)
    page.click("[data-testid=file]")
    page.click("[data-testid=edit-case] >> nth=0")
    page.locator("[data-testid=final-text]").first.fill("Edited in the browser.")
    target.write_text(target.read_text().replace("Paris", "Lyon"))  # someone else's edit
    editor = page.locator("[data-testid=case-editor]")
    editor.locator("[data-testid=preview]").click()
    problem = editor.locator("[data-testid=problem]")
    problem.wait_for(timeout=TIMEOUT)
    assert "changed on disk" in problem.inner_text() and "Lyon" in problem.inner_text()
    assert "Edited in the browser." not in target.read_text()
    page.watch.console_errors = [e for e in page.watch.console_errors if "409" not in e]
