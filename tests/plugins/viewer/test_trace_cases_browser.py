"""Starting a case from a recorded trace on the "Eval sets" screen, in Debian's chromium: open a
trace, see its sessions (a hostile user text shown as text), pick one, get the case prefilled
as ``import-trace --as-expected`` writes it, save it into a new eval set (the file on disk is
that case) and, edited, into an existing one; a session that lacks content shows its findings
and cannot be picked; a damaged trace is an error naming the file. Every control on screen is
checked as a person sees it (``_visibility``), and screenshots are taken at each step."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import agenteval_viewer_server_test_helpers as helpers
import agenteval_viewer_visibility as visibility
import pytest
from agenteval_viewer._authoring_api import Authoring
from agenteval_viewer._authoring_guard import WriteGuard
from playwright.sync_api import expect

from tests.plugins.viewer.test_trace_cases import ADK_TRACE, elided, imported

pytestmark = pytest.mark.browser
TIMEOUT = 30_000
SHOTS = helpers.REPO / "tests/plugins/viewer/_screenshots"
HOSTILE = "Find me a flight <img src=x onerror=window.pwned=1> from Berlin to Tokyo on 12 March."


@pytest.fixture
def server(tmp_path: Path) -> Any:
    evals = tmp_path / "evals"
    (evals / "traces").mkdir(parents=True)
    (evals / "suites").mkdir()
    shutil.copy(helpers.TRAVEL / "travel.evalset.json", evals / "suites" / "travel.evalset.json")
    text = ADK_TRACE.read_text().replace("Find me a flight from Berlin to Tokyo on 12 March.", HOSTILE)
    (evals / "traces" / "recorded.otlp.json").write_text(text)
    elided(evals / "traces")
    (evals / "traces" / "cut.otlp.json").write_text(text[: len(text) // 3])
    authoring = Authoring(WriteGuard([evals], token="browser-token"), tmp_path / "runs")
    with helpers.serving(tmp_path / "runs", authoring=authoring) as running:
        running.evals = evals
        yield running


def _open(page: Any, server: Any) -> Any:
    page.goto(f"{server.url}#/author?token=browser-token")
    page.wait_for_selector("[data-testid=trace-file]", timeout=TIMEOUT)
    return page.get_by_test_id("trace-panel")


def _seen_right(page: Any, scope: str = "[data-testid=trace-panel]") -> None:
    assert visibility.controls(page, scope) > 0
    assert visibility.problems(page, scope) == []


def _open_trace(page: Any, panel: Any, label: str) -> None:
    panel.get_by_test_id("trace-file").select_option(label=label)
    panel.get_by_test_id("open-trace").click()


def test_open_a_trace_pick_a_session_save_it_as_a_new_eval_set(
    browser_page: Any, server: Any, tmp_path: Path
) -> None:
    page = browser_page
    panel = _open(page, server)
    options = panel.get_by_test_id("trace-file").locator("option").all_inner_texts()
    assert options[1:] == [
        "evals/traces/cut.otlp.json",
        "evals/traces/elided.otlp.json",
        "evals/traces/recorded.otlp.json",
    ]
    _open_trace(page, panel, "evals/traces/recorded.otlp.json")
    rows = panel.get_by_test_id("trace-session")
    rows.first.wait_for(timeout=TIMEOUT)
    assert rows.count() == 3
    flight = rows.nth(1)
    assert "s-flight" in flight.inner_text() and HOSTILE in flight.inner_text()  # the text, as text
    assert page.locator("img").count() == 0 and page.evaluate("window.pwned") is None
    _seen_right(page)
    panel.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "trace_sessions.png"), full_page=True)

    flight.get_by_test_id("start-case").click()
    panel.get_by_test_id("trace-save-target").select_option("__new__")
    panel.get_by_test_id("trace-new-set-id").fill("golden")
    editor = panel.get_by_test_id("case-editor")
    editor.wait_for(timeout=TIMEOUT)
    # prefilled with the session's two turns
    assert editor.get_by_test_id("edit-case-id").input_value() == "s-flight"
    users = editor.get_by_test_id("user-text")
    assert users.count() == 2 and users.first.input_value() == HOSTILE
    assert "search_flights" in editor.get_by_test_id("tool-calls").first.input_value()
    assert "direct flight" in editor.get_by_test_id("final-text").first.input_value()
    _seen_right(page)
    editor.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "trace_case_prefilled.png"), full_page=True)

    editor.get_by_test_id("preview").click()
    diff = editor.get_by_test_id("diff").inner_text()
    assert '+  "eval_set_id": "golden",' in diff and "search_flights" in diff
    _seen_right(page)
    editor.get_by_test_id("confirm-save").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "trace_case_preview.png"), full_page=True)
    editor.get_by_test_id("confirm-save").click()
    panel.get_by_test_id("trace-saved").wait_for(timeout=TIMEOUT)
    page.wait_for_selector("[data-testid=evalset]", timeout=TIMEOUT)  # the new file opened below

    written = json.loads((server.evals / "golden.evalset.json").read_text())
    expected = [
        c
        for c in imported(server.evals / "traces" / "recorded.otlp.json", tmp_path)
        if c["eval_id"] == "s-flight"
    ]
    assert written == {"eval_set_id": "golden", "eval_cases": expected}
    _seen_right(page, "[data-testid=author]")
    page.screenshot(path=str(SHOTS / "trace_case_saved.png"), full_page=True)


def test_an_edited_case_goes_into_an_existing_eval_set(browser_page: Any, server: Any) -> None:
    page = browser_page
    panel = _open(page, server)
    panel.get_by_test_id("trace-path").fill("traces/recorded.otlp.json")  # typed, not picked
    panel.get_by_test_id("open-trace").click()
    panel.get_by_test_id("trace-session").first.get_by_test_id("start-case").click()
    panel.get_by_test_id("trace-save-target").select_option("__new__")
    panel.get_by_test_id("trace-new-set-id").fill("weather")
    editor = panel.get_by_test_id("case-editor")
    editor.wait_for(timeout=TIMEOUT)
    editor.get_by_test_id("edit-case-id").fill("weather_recorded")
    editor.get_by_test_id("final-text").fill("Sunny in Paris tomorrow.")
    editor.get_by_test_id("preview").click()
    expect(editor).to_contain_text("What will be written to weather.evalset.json", timeout=TIMEOUT)
    # another eval set chosen: the edits stay, the preview of the other file goes
    panel.get_by_test_id("trace-save-target").select_option(label="suites/travel.evalset.json")
    expect(editor.get_by_test_id("confirm-save")).to_have_count(0, timeout=TIMEOUT)
    assert editor.get_by_test_id("final-text").input_value() == "Sunny in Paris tomorrow."
    editor.get_by_test_id("preview").click()
    expect(editor).to_contain_text("What will be written to suites/travel.evalset.json", timeout=TIMEOUT)
    assert '+      "eval_id": "weather_recorded",' in editor.get_by_test_id("diff").inner_text()
    editor.get_by_test_id("confirm-save").click()
    panel.get_by_test_id("trace-saved").wait_for(timeout=TIMEOUT)
    saved = json.loads((server.evals / "suites" / "travel.evalset.json").read_text())
    before = json.loads((helpers.TRAVEL / "travel.evalset.json").read_text())
    assert saved["eval_cases"][:-1] == before["eval_cases"]  # the others as they were
    case = saved["eval_cases"][-1]
    assert case["eval_id"] == "weather_recorded"
    assert case["conversation"][0]["final_response"]["parts"] == [{"text": "Sunny in Paris tomorrow."}]
    assert case["conversation"][0]["intermediate_data"]["tool_uses"][0]["id"] == "adk-e-weather-1"  # kept
    assert not (server.evals / "weather.evalset.json").exists()


def test_a_session_that_lacks_content_and_a_damaged_trace_are_shown(browser_page: Any, server: Any) -> None:
    page = browser_page
    panel = _open(page, server)
    _open_trace(page, panel, "evals/traces/elided.otlp.json")
    rows = panel.get_by_test_id("trace-session")
    rows.first.wait_for(timeout=TIMEOUT)
    weather = rows.first
    assert weather.get_by_test_id("start-case").count() == 0
    assert "tool_result_elided" in weather.get_by_test_id("session-findings").inner_text()
    assert rows.nth(1).get_by_test_id("start-case").count() == 1  # the flight lacks nothing
    _seen_right(page)
    panel.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "trace_session_lacks_content.png"), full_page=True)

    _open_trace(page, panel, "evals/traces/cut.otlp.json")
    problem = panel.get_by_test_id("problem")
    problem.wait_for(timeout=TIMEOUT)
    text = problem.inner_text()
    assert text.startswith("traces/cut.otlp.json: not valid JSON") and "Traceback" not in text
    assert panel.get_by_test_id("trace-session").count() == 0
    _seen_right(page)
    page.screenshot(path=str(SHOTS / "trace_damaged.png"), full_page=True)
    # the refusal's 400, which the browser logs as a failed load, is the one expected
    page.watch.console_errors = [e for e in page.watch.console_errors if "400" not in e]


def test_without_a_trace_format_the_panel_says_what_to_install(browser_page: Any, tmp_path: Path) -> None:
    evals = tmp_path / "evals"
    evals.mkdir()
    authoring = Authoring(WriteGuard([evals], token="browser-token"), tmp_path / "runs", trace_readers=[])
    with helpers.serving(tmp_path / "runs", authoring=authoring) as server:
        page = browser_page
        page.goto(f"{server.url}#/author?token=browser-token")
        note = page.get_by_test_id("trace-install")
        note.wait_for(timeout=TIMEOUT)
        assert "pip install agenteval-otel" in note.inner_text()
        assert page.get_by_test_id("open-trace").count() == 0
        assert visibility.problems(page, "[data-testid=trace-panel]") == []
