# ruff: noqa: E501
"""The "Eval sets" screen of ``agenteval view --allow-write`` in Debian's chromium: chat with
the bundled travel agent, save the chat as a case in a folder of one's choice (ADK's format,
read by google-adk's own ``EvalSet``), edit an expected argument, run the case and see it fail
per criterion in place, promote a run picked from a list and see it pass; run an existing eval
set without a chat, with criteria described and thresholds on sliders; invalid JSON shown at
its field; and the refusals (token, path escape, concurrent edit). At every step every control
on screen is checked as a person sees it (``_visibility``: visible, in the viewport, not
covered, readable)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import agenteval_viewer_server_test_helpers as helpers
import agenteval_viewer_visibility as visibility
import pytest
from agenteval_viewer._authoring_api import Authoring
from agenteval_viewer._authoring_guard import WriteGuard

pytestmark = pytest.mark.browser
TIMEOUT = 30_000


@pytest.fixture
def server(tmp_path: Path) -> Any:
    evals = tmp_path / "evals"
    (evals / "suites").mkdir(parents=True)
    (tmp_path / "secret.evalset.json").write_text('{"eval_set_id": "secret", "eval_cases": []}')
    authoring = Authoring(WriteGuard([evals], token="browser-token"), tmp_path / "runs")
    with helpers.serving(tmp_path / "runs", authoring=authoring) as running:
        running.evals = evals
        yield running


def _open(page: Any, server: Any) -> None:
    page.goto(f"{server.url}#/author?token=browser-token")
    page.wait_for_selector("[data-testid=author]", timeout=TIMEOUT)
    assert "token" not in page.url  # taken out of the address once kept


def _seen_right(page: Any, scope: str = "[data-testid=author]") -> None:
    """Every control under ``scope`` is visible, in view when scrolled to, not covered, and
    readable (contrast at least 4.5:1), and so is all other text."""
    assert visibility.controls(page, scope) > 0
    assert visibility.problems(page, scope) == []


def _preview_and_save(page: Any, scope: Any) -> None:
    scope.locator("[data-testid=preview]").last.click()
    scope.locator("[data-testid=confirm-save]").last.click()
    scope.locator("[data-testid=saved]").last.wait_for(timeout=TIMEOUT)


def _editing_the_first_travel_case(page: Any, server: Any) -> Any:
    """The travel example's eval set opened and its first case in the editor (its text in
    the editor's boxes): the editor's locator."""
    from playwright.sync_api import expect

    (server.evals / "travel.evalset.json").write_text((helpers.TRAVEL / "travel.evalset.json").read_text())
    _open(page, server)
    page.click("[data-testid=file]")
    page.click("[data-testid=edit-case] >> nth=0")
    editor = page.get_by_test_id("case-editor")
    expect(editor.get_by_test_id("final-text").first).not_to_have_value("", timeout=TIMEOUT)
    return editor


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
    assert "app travel" in page.get_by_test_id("chat").inner_text()  # the agent's name, not agenteval_view
    _seen_right(page)
    page.screenshot(path=str(helpers.REPO / "tests/plugins/viewer/_screenshots/authoring_chat.png"))

    page.fill("[data-testid=case-id]", "flight")
    page.select_option("[data-testid=save-target]", "__new__")
    page.select_option("[data-testid=new-set-folder]", "0:suites")  # not only the folder's root
    page.fill("[data-testid=new-set-id]", "chats")
    page.click("[data-testid=make-case]")
    page.wait_for_selector("[data-testid=case-draft]", timeout=TIMEOUT)
    page.click("[data-testid=preview]")
    assert '+  "eval_set_id": "chats",' in page.locator("[data-testid=diff]").inner_text()
    _seen_right(page)  # "Write the file" among them: it was white on white
    confirm = page.get_by_test_id("confirm-save")
    colours = confirm.evaluate("b => [getComputedStyle(b).color, getComputedStyle(b).backgroundColor]")
    assert colours[0] != colours[1] and colours[1] not in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)")
    confirm.scroll_into_view_if_needed()
    page.screenshot(path=str(helpers.REPO / "tests/plugins/viewer/_screenshots/authoring_confirm_save.png"))
    confirm.click()
    page.wait_for_selector("[data-testid=evalset]", timeout=TIMEOUT)

    saved = server.evals / "suites" / "chats.evalset.json"
    assert not (server.evals / "chats.evalset.json").exists()
    data = json.loads(saved.read_text())
    assert data["eval_cases"][0]["eval_id"] == "flight"
    assert data["eval_cases"][0]["session_input"]["state"] == {"tier": "gold"}
    assert data["eval_cases"][0]["session_input"]["app_name"] == "travel"
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
    # the result per criterion, in place in the cases table
    result = page.get_by_test_id("case-row").first.get_by_test_id("case-result")
    from playwright.sync_api import expect

    expect(result).to_contain_text("tool_trajectory_avg_score FAIL", timeout=TIMEOUT)
    expect(result).to_contain_text("FAILED")
    _seen_right(page)
    page.screenshot(path=str(helpers.REPO / "tests/plugins/viewer/_screenshots/authoring_run_failed.png"))

    # promote the actual turn of a run picked from the eval set's runs, preview, write, run
    # again: it passes
    run_id = page.locator("[data-testid=run-state] a").inner_text()
    picker = page.get_by_test_id("promote-run")
    assert picker.evaluate("s => s.tagName") == "SELECT" and picker.input_value() == run_id
    assert run_id in picker.locator("option").all_inner_texts()[0]
    page.click("[data-testid=promote]")

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


def test_an_existing_eval_set_runs_without_a_chat_with_its_criteria_described(
    browser_page: Any, server: Any
) -> None:
    """No chat first: the run panel has its own agent field. Each criterion shows its
    description, score range and a threshold slider; the sentence under the list says what
    the run will use; each case's result per criterion appears in the cases table."""
    from playwright.sync_api import expect

    page = browser_page
    (server.evals / "travel.evalset.json").write_text((helpers.TRAVEL / "travel.evalset.json").read_text())
    _open(page, server)
    page.click("[data-testid=file]")
    row = page.get_by_test_id("crit-row-tool_trajectory_avg_score")
    expect(row).to_contain_text("tool calls match", timeout=TIMEOUT)  # its description
    expect(row).to_contain_text("score 0–1, higher is better")
    choice = page.get_by_test_id("criteria-choice")
    expect(choice).to_contain_text("No criterion ticked")
    expect(page.get_by_test_id("run-all")).to_be_disabled()  # no agent yet: said so, not a silent no-op
    page.check("[data-testid='crit-response_match_score']")
    expect(choice).to_have_text("Runs with 1 criterion: response_match_score ≥ 0.8.")
    slider = page.get_by_test_id("threshold-response_match_score")
    slider.fill("0.5")
    expect(page.get_by_test_id("threshold-value-response_match_score")).to_have_value("0.5")
    expect(choice).to_have_text("Runs with 1 criterion: response_match_score ≥ 0.5.")
    page.fill("[data-testid=run-agent]", str(helpers.TRAVEL))
    _seen_right(page)
    page.click("[data-testid=run-all]")
    page.wait_for_selector("[data-testid=run-state] >> text=complete", timeout=60_000)
    results = page.get_by_test_id("case-result")
    expect(results).to_have_count(3, timeout=TIMEOUT)
    for index in range(3):  # each result fills in when its case's record is read ("pending…" until then)
        expect(results.nth(index)).to_contain_text("response_match_score", timeout=TIMEOUT)
    for text in results.all_inner_texts():
        assert "response_match_score" in text and "tool_trajectory" not in text
    page.get_by_test_id("evalset").screenshot(
        path=str(helpers.REPO / "tests/plugins/viewer/_screenshots/authoring_run_existing.png")
    )
    _seen_right(page)


def test_invalid_json_is_shown_at_its_field_and_the_preview_button_stays(
    browser_page: Any, server: Any
) -> None:
    from playwright.sync_api import expect

    page = browser_page
    editor = _editing_the_first_travel_case(page, server)
    tools = editor.get_by_test_id("tool-calls").first
    tools.fill('[{"name": "get_weather",')
    error = editor.get_by_test_id("json-error")
    expect(error).to_have_count(1)
    expect(error).to_contain_text("turn 1 tool calls: not valid JSON")
    below = tools.bounding_box(), error.bounding_box()
    assert 0 <= below[1]["y"] - (below[0]["y"] + below[0]["height"]) < 30  # right under its box
    assert tools.get_attribute("aria-invalid") == "true"
    preview = editor.get_by_test_id("preview")
    expect(preview).to_be_visible()
    expect(preview).to_be_disabled()
    expect(editor.get_by_test_id("blocked")).to_be_visible()
    _seen_right(page)
    editor.screenshot(path=str(helpers.REPO / "tests/plugins/viewer/_screenshots/authoring_json_error.png"))
    tools.fill('[{"name": "get_weather", "args": {"city": "Rome", "day": "tomorrow"}}]')
    expect(error).to_have_count(0)
    preview.click()
    assert '"Rome"' in editor.get_by_test_id("diff").inner_text()


def test_an_edit_in_progress_survives_what_else_happens_on_the_screen(browser_page: Any, server: Any) -> None:
    """Typing in the case editor, then ticking a case, typing the run's agent or a criterion:
    the screen around the editor changes, the edit stays (it is the user's until saved or
    cancelled)."""
    from playwright.sync_api import expect

    page = browser_page
    editor = _editing_the_first_travel_case(page, server)
    final = editor.get_by_test_id("final-text").first
    final.fill("Edited: sunny all week.")
    page.check("[aria-label='select flight_then_currency']")  # the cases table changes
    page.fill("[data-testid=run-agent]", str(helpers.TRAVEL))  # so does the run panel
    page.check("[data-testid='crit-response_match_score']")
    expect(final).to_have_value("Edited: sunny all week.")
    editor.get_by_test_id("preview").click()
    expect(editor.get_by_test_id("diff")).to_contain_text("Edited: sunny all week.", timeout=TIMEOUT)
    lines = editor.get_by_test_id("diff").inner_text().splitlines()
    changed = [line for line in lines if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))]
    assert len(changed) == 2 and '"final_response"' in changed[1]  # the file's own layout kept
    _seen_right(page)
    editor.screenshot(path=str(helpers.REPO / "tests/plugins/viewer/_screenshots/authoring_edit_kept.png"))


def test_the_files_list_stays_at_the_top_of_a_tall_page(browser_page: Any, server: Any) -> None:
    page = browser_page
    (server.evals / "travel.evalset.json").write_text((helpers.TRAVEL / "travel.evalset.json").read_text())
    _open(page, server)
    page.click("[data-testid=file]")
    page.click("[data-testid=edit-case] >> nth=1")
    page.wait_for_selector("[data-testid=case-editor]", timeout=TIMEOUT)
    where = (
        "() => { const f = document.querySelector('.author .files').getBoundingClientRect(); "
        "const g = document.querySelector('.author-grid').getBoundingClientRect(); return [f.top - g.top, scrollY]; }"
    )
    top = page.evaluate(where)
    assert top[0] < 20  # at the top of its column (a panel's margin)
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    after = page.evaluate(where)
    assert after[1] > 500 and after[0] == top[0]  # it did not follow the scroll


def test_an_agent_platform_dataset_opens_and_a_case_is_saved_in_its_format(
    browser_page: Any, server: Any
) -> None:
    """A ``*-dataset.json`` (the installed agent-platform format) is listed, opens, says it is
    saved by its format's writer; an edited case is written back as a dataset case, the other
    cases as they were, and the file still loads as an EvaluationDataset."""
    from agenteval._loading import read_eval_file
    from playwright.sync_api import expect

    page = browser_page
    source = (
        helpers.REPO
        / "tests/plugins/agent_platform/fixtures/shop_agent/tests/eval/datasets/orders-dataset.json"
    )
    (server.evals / "suites" / "orders-dataset.json").write_text(source.read_text())
    saved = server.evals / "suites" / "orders-dataset.json"
    _open(page, server)
    page.get_by_test_id("file").filter(has_text="orders-dataset.json").click()
    expect(page.get_by_test_id("format-note")).to_contain_text("agent-platform writer", timeout=TIMEOUT)
    expect(page.get_by_test_id("case-row")).to_have_count(3)
    page.click("[data-testid=edit-case] >> nth=0")
    editor = page.get_by_test_id("case-editor")
    editor.get_by_test_id("final-text").first.fill("The Lyon shop opens at 11:00 on Sunday.")
    page.get_by_test_id("evalset").locator("section.panel").first.screenshot(
        path=str(helpers.REPO / "tests/plugins/viewer/_screenshots/authoring_dataset_header.png")
    )
    _seen_right(page)
    editor.get_by_test_id("preview").click()
    warning = editor.get_by_test_id("save-warning")  # the recorded response goes: said before writing
    expect(warning).to_contain_text("case opening_hours: responses not written by the agent-platform writer")
    _seen_right(page)
    editor.screenshot(
        path=str(helpers.REPO / "tests/plugins/viewer/_screenshots/authoring_dataset_preview.png")
    )
    editor.get_by_test_id("confirm-save").click()
    editor.get_by_test_id("saved").wait_for(timeout=TIMEOUT)
    data = json.loads(saved.read_text())
    assert "eval_set_id" not in data
    first, *rest = data["eval_cases"]
    assert first["eval_case_id"] == "opening_hours"
    assert first["reference"]["response"]["parts"] == [{"text": "The Lyon shop opens at 11:00 on Sunday."}]
    assert rest == json.loads(source.read_text())["eval_cases"][1:]
    loaded = read_eval_file(saved)
    assert loaded.format == "agent-platform" and loaded.eval_set.eval_set_id == "orders"


def test_an_edit_keeps_what_it_did_not_touch_tool_call_ids_and_a_messages_parts(
    browser_page: Any, server: Any
) -> None:
    page = browser_page
    case = {
        "eval_id": "parts",
        "conversation": [
            {
                "invocation_id": "t1",
                "user_content": {
                    "role": "user",
                    "parts": [{"text": "Weather in Paris?"}, {"text": "Tomorrow."}],
                },
                "final_response": {"role": "model", "parts": [{"text": "Sunny."}]},
                "intermediate_data": {
                    "tool_uses": [{"id": "call-1", "name": "get_weather", "args": {"city": "Paris"}}],
                    "tool_responses": [{"id": "call-1", "name": "get_weather", "response": {"sky": "sun"}}],
                    "intermediate_responses": [],
                },
            }
        ],
    }
    target = server.evals / "parts.evalset.json"
    target.write_text(json.dumps({"eval_set_id": "parts", "eval_cases": [case]}, indent=2) + "\n")
    _open(page, server)
    page.click("[data-testid=file]")
    page.click("[data-testid=edit-case] >> nth=0")
    editor = page.get_by_test_id("case-editor")
    assert '"id": "call-1"' in editor.get_by_test_id("tool-calls").input_value()
    editor.get_by_test_id("final-text").fill("Sunny, 24 degrees.")
    _preview_and_save(page, editor)
    [turn] = json.loads(target.read_text())["eval_cases"][0]["conversation"]
    assert turn["user_content"] == case["conversation"][0]["user_content"]  # both parts, as they were
    assert turn["intermediate_data"] == case["conversation"][0]["intermediate_data"]
    assert turn["final_response"]["parts"] == [{"text": "Sunny, 24 degrees."}]
