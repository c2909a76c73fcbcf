"""A case recorded from a trace shows its turn's spans as a waterfall in the case drawer
(names, durations, bars on the turn's time axis, the tool's arguments and result); a case
recorded from an ADK file shows none. The drawer is checked in headless chromium for what a
person sees (visible, readable, not overlapping)."""

from __future__ import annotations

import os
from pathlib import Path

import agenteval_viewer_server_test_helpers as helpers
import agenteval_viewer_visibility as visibility
import pytest
from agenteval.cli import main
from agenteval.runs import RecordedRun
from agenteval_viewer._bundle import case_detail
from click.testing import CliRunner

OTEL = Path(__file__).parents[1] / "otel" / "fixtures"
WAIT_MS = 15_000


def _record(runs: Path, actual: Path) -> RecordedRun:
    before = set(runs.iterdir()) if runs.exists() else set()
    args = ["run", f"{OTEL / 'travel.evalset.json'}:weather_paris", "--actual", str(actual)]
    result = CliRunner().invoke(main, [*args, "--runs-dir", str(runs), "-q"])
    assert result.exit_code in (0, 1), result.output
    [folder] = set(runs.iterdir()) - before
    return RecordedRun.open(folder)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RecordedRun, RecordedRun]:
    folder = tmp_path_factory.mktemp("runs")
    traced = _record(folder, OTEL / "langgraph.jaeger.json")
    adk = _record(folder, OTEL / "adk_v2.actual.json")
    return folder, traced, adk


def test_the_case_detail_of_a_trace_recorded_case_carries_its_spans(runs):
    _, traced, adk = runs
    [turn] = case_detail(traced, 0)["turns"]
    assert [r["name"] for r in turn["spans"]["spans"]] == [
        "invoke_agent weather",
        "chat gpt-4o-mini",
        "execute_tool get_weather",
        "chat gpt-4o-mini",
    ]
    assert all("spans" not in t for t in case_detail(adk, 0)["turns"])


def test_a_run_s_actual_files_are_looked_at_once_then_only_those_with_timelines(runs, monkeypatch):
    """A case looks for its spans only in the run's ``--actual`` files that hold timelines,
    found once per open run (a run of 100 eval set files would look at all 100 per case)."""
    import agenteval.plugins

    folder, traced, adk = runs
    asked: list[tuple[str, int]] = []
    real = agenteval.plugins.read_timeline
    monkeypatch.setattr(
        agenteval.plugins,
        "read_timeline",
        lambda path, ids, *a: asked.append((path.name, len(ids))) or real(path, ids, *a),
    )
    for run in (RecordedRun.open(traced.folder), RecordedRun.open(adk.folder)):
        for _ in range(3):
            case_detail(run, 0)
    assert asked == [("langgraph.jaeger.json", 0)] + [("langgraph.jaeger.json", 1)] * 3 + [
        ("adk_v2.actual.json", 0)
    ]


@pytest.mark.browser
def test_the_drawer_shows_the_waterfall_readable_and_not_overlapping(runs, browser_page):
    from playwright.sync_api import expect

    folder, traced, _ = runs
    with helpers.serving(folder) as server:
        page = browser_page
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(f"{server.url}#/run/{traced.run_id}")
        page.get_by_test_id("grid-row").first.click()
        waterfall = page.get_by_test_id("waterfall")
        expect(waterfall).to_be_visible(timeout=WAIT_MS)
        rows = waterfall.get_by_test_id("span-row")
        expect(rows).to_have_count(4)
        tool = waterfall.locator("[data-name='execute_tool get_weather']")
        expect(tool).to_contain_text("900 ms")
        expect(tool).to_contain_text('{"forecast": "sunny", "high_c": 24}')
        expect(tool).to_contain_text('{"city": "Paris", "day": "tomorrow"}')
        # the tool's bar starts after the first model call's and lies inside the track
        bars = [rows.nth(i).locator(".span-bar").bounding_box() for i in range(4)]
        track = rows.nth(0).locator(".span-track").bounding_box()
        assert bars[0]["width"] == pytest.approx(track["width"], abs=1)
        assert (
            bars[1]["x"] < bars[2]["x"] < bars[3]["x"]
            and bars[2]["x"] + bars[2]["width"] <= track["x"] + track["width"] + 1
        )
        waterfall.scroll_into_view_if_needed()
        assert visibility.problems(page, "[data-testid=waterfall]") == []
        shots = Path(os.environ.get("AGENTEVAL_SCREENSHOTS") or Path(__file__).with_name("_screenshots"))
        shots.mkdir(parents=True, exist_ok=True)
        waterfall.screenshot(path=str(shots / "view_waterfall.png"))
