"""``agenteval view`` in headless chromium: the served front end over the real server and
runs recorded by the engine (first rows, a case, live records through server-sent events and
index patches, compare with flips and with nothing changed, the history). ``browser_page``
(conftest) fails a test on any console error, page error or non-local request and keeps a
screenshot."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import agenteval_viewer_server_test_helpers as helpers
import agenteval_viewer_test_fixtures as fx
import agenteval_viewer_visibility as visibility
import pytest
from agenteval.runs import RecordedRun
from agenteval_viewer._bundle import case_index

pytestmark = pytest.mark.browser

#: generous: the shared CI machine may be busy; the budgets are printed, not asserted
WAIT_MS = 15_000


@pytest.fixture(scope="module")
def server(runs_dir: Path):
    with helpers.serving(runs_dir) as running:
        yield running


def _screenshot(page, name: str) -> None:
    """Kept beside the fixture's end-of-test screenshots (the same folder as conftest's)."""
    folder = Path(os.environ.get("AGENTEVAL_SCREENSHOTS") or Path(__file__).with_name("_screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"view_{name}.png"), full_page=True)


def test_the_served_viewer_shows_a_runs_rows_and_opens_a_failing_case(server, run_ids, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    started = time.perf_counter()
    page.goto(f"{server.url}#/run/{run_ids[0]}")
    rows = page.get_by_test_id("grid-row")
    expect(rows).to_have_count(3, timeout=WAIT_MS)
    print(f"first rows after {time.perf_counter() - started:.2f} s")
    summary = RecordedRun.open(server.runs_dir / run_ids[0]).summary()
    assert summary is not None
    for status, n in summary.summary.cases.items():
        if status.value != "INFORMATIONAL":
            expect(page.get_by_test_id(f"count-{status.value}").locator(".n")).to_have_text(str(n))
    expect(page.get_by_test_id("verdict")).not_to_have_text("PASS")
    # a pass rate's interval is in percent, like the rate beside it (it was 0.09 … 0.99)
    rate = page.get_by_test_id("criterion-tool_trajectory_avg_score").get_by_test_id("pass-rate")
    expect(rate).to_have_text("pass rate 66.7% [9.4%, 99.2%]")
    assert visibility.problems(page, "#app") == []
    _screenshot(page, "run")
    page.get_by_test_id("count-FAILED").click()
    expect(rows).to_have_count(1)
    assert "status=FAILED" in page.url
    rows.first.click()
    drawer = page.get_by_test_id("drawer")
    expect(drawer).to_be_visible()
    expect(page.get_by_test_id("drawer-title")).not_to_be_empty()
    expect(drawer.get_by_test_id("turn").first).to_be_visible(timeout=WAIT_MS)
    assert visibility.problems(page, "[data-testid=drawer]") == []
    _screenshot(page, "case")


def test_a_record_appended_while_the_run_goes_shows_up_live(tmp_path, runs_dir, run_ids, browser_page):
    from playwright.sync_api import expect

    live = helpers.LiveRun(tmp_path / "live-runs", RecordedRun.open(runs_dir / run_ids[0]))
    indexes: list[tuple[str, dict]] = []
    summaries: list[tuple[str, dict]] = []

    def answered(response) -> None:
        if f"/api/runs/{live.run_id}/index" in response.url:
            indexes.append((response.url, response.json()))
        elif f"/api/runs/{live.run_id}/summary" in response.url:
            summaries.append((response.url, response.json()))

    try:
        with helpers.serving(live.folder.parent) as server:
            page = browser_page
            page.on("response", answered)
            page.goto(f"{server.url}#/run/{live.run_id}")
            rows = page.get_by_test_id("grid-row")
            expect(rows).to_have_count(3, timeout=WAIT_MS)
            # cases not recorded yet are pending: their own count, never NOT EVALUATED
            not_evaluated = page.get_by_test_id("count-NOT_EVALUATED").locator(".n")
            pending = page.get_by_test_id("count-PENDING").locator(".n")
            expect(pending).to_have_text("3")
            expect(not_evaluated).to_have_text("0")
            expect(rows.first.locator(".chip").first).to_have_text("PENDING")
            page.wait_for_timeout(300)  # the event stream is open
            latencies = []
            for row, left in ((0, "2"), (1, "1")):
                appended = time.perf_counter()
                record = live.append()
                expect(pending).to_have_text(left, timeout=WAIT_MS)
                latencies.append(time.perf_counter() - appended)
                expect(rows.nth(row).locator(".chip").first).to_have_text(record.status.value)
            print("live record shown after " + ", ".join(f"{s:.2f} s" for s in latencies) + " (budget 2 s)")
            # one whole index (the first load), then only the rows new since each answer's cursor
            (whole_url, whole), *patches = indexes
            assert "since=" not in whole_url and whole["n"] == 3 and patches
            cursor = whole["cursor"]
            for url, patch in patches:
                assert url.endswith(f"/index?since={cursor}")
                assert patch["schema"] == "agenteval.viewer.index-patch/1" and patch["since"] == cursor
                assert len(patch["status"]) == len(patch["rows"])
                cursor = patch["cursor"]
            assert sorted(r for _, p in patches for r in p["rows"]) == [0, 1]  # each new row once
            # the summary too: whole once, then what changed since the version the page holds
            (first_url, first), *summary_patches = summaries
            assert "since=" not in first_url and first["version"] and summary_patches
            version = first["version"]
            for url, patch in summary_patches:
                assert url.endswith(f"/summary?since={version}")
                assert patch["schema"] == "agenteval.viewer.summary-patch/1" and patch["since"] == version
                # what never changes while the run goes is not sent again
                assert not {"agent", "eval_sets", "engine_version", "warnings"} & set(patch["set"])
                for changed in patch["criteria"].values():
                    assert not {"threshold", "distribution", "version", "judge_models"} & set(changed)
                version = patch["version"]
            expect(not_evaluated).to_have_text("0")
            # the pass rate is over the finished cases, and says so (not over all planned)
            finished = [r.criteria for r in live.records[:2]]
            passed = sum(
                1
                for crits in finished
                for c in crits
                if c.criterion == "tool_trajectory_avg_score" and c.status.value == "PASSED"
            )
            rate = page.get_by_test_id("criterion-tool_trajectory_avg_score").get_by_test_id("pass-rate")
            expect(rate).to_have_text(f"pass rate {100 * passed / 2:.1f}% of 2 finished")
            expect(
                page.get_by_test_id("criterion-tool_trajectory_avg_score").get_by_test_id("crit-pending")
            ).to_have_text("PENDING 1")
            page.get_by_test_id("count-PENDING").click()
            expect(rows).to_have_count(1)
            page.get_by_test_id("count-PENDING").click()
            assert visibility.problems(page, "#app") == []
            _screenshot(page, "live")
            live.append()
            live.finish()
            expect(page.locator(".run-header .state")).to_have_text("complete", timeout=WAIT_MS)
            expect(not_evaluated).to_have_text("0")
            expect(page.get_by_test_id("count-PENDING")).to_have_count(0)
            assert "since=" not in indexes[-1][0]  # a new state: the whole index again
            assert "since=" not in summaries[-1][0]  # and the whole summary
            page.wait_for_timeout(1500)  # the EventSource's reconnection gets 204 and stops quietly
    finally:
        live.close()


def test_compare_lists_the_engines_flips_regressions_first(server, run_ids, browser_page):
    from playwright.sync_api import expect

    a, b = run_ids
    status, expected = helpers.get_json(server, f"/api/compare?a={a}&b={b}")
    assert status == 200 and expected["flips"]
    page = browser_page
    page.goto(f"{server.url}#/compare?a={a}&b={b}")
    flips = page.get_by_test_id("flip")
    expect(flips).to_have_count(len(expected["flips"]), timeout=WAIT_MS)
    expect(page.get_by_test_id("no-changes")).to_have_count(0)
    for row, flip in zip(flips.all(), expected["flips"], strict=True):
        expect(row).to_contain_text(flip["case_id"])
        expect(row).to_contain_text(flip["criterion"])
    expect(page.get_by_test_id("compare-criteria").locator("tbody tr")).to_have_count(
        len(expected["criteria"])
    )
    flips.first.get_by_role("button", name="outputs").click()
    expect(page.locator(".sides pre").first).not_to_have_text("…", timeout=WAIT_MS)
    assert visibility.problems(page, "#app") == []
    _screenshot(page, "compare")


def test_compare_of_a_run_with_itself_says_nothing_changed(server, run_ids, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(f"{server.url}#/compare?a={run_ids[0]}&b={run_ids[0]}")
    expect(page.get_by_test_id("no-changes")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_test_id("flip")).to_have_count(0)
    assert visibility.problems(page, "#app") == []
    _screenshot(page, "compare_same")


def test_the_history_lists_every_run_and_links_to_compare(server, run_ids, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(f"{server.url}#/history")
    history_rows = page.get_by_test_id("history-row")
    expect(history_rows).to_have_count(2, timeout=WAIT_MS)
    listed = helpers.get_json(server, "/api/runs")[1]["runs"]
    for run in listed:
        expect(page.get_by_test_id("history")).to_contain_text(run["run_id"])
    expect(history_rows.first).to_contain_text(listed[0]["run_id"])  # newest first
    newest, older = listed[0]["run_id"], listed[1]["run_id"]
    for run_id in (newest, older):  # picked newest first: the older is still the baseline
        page.get_by_label(f"select {run_id}").check()
    page.get_by_test_id("compare-link").click()
    expect(page.get_by_test_id("flip").first).to_be_visible(timeout=WAIT_MS)
    assert f"#/compare?a={older}&b={newest}" in page.url
    assert sorted(run_ids) == sorted((newest, older))
    page.goto(f"{server.url}#/history")
    expect(history_rows).to_have_count(2, timeout=WAIT_MS)
    for row in history_rows.all():  # each run says what it ran: its eval sets and its agent
        expect(row.get_by_test_id("history-sets")).to_have_text("travel_assistant")
        expect(row.get_by_test_id("history-agent")).to_have_text("--actual")
    assert visibility.problems(page, "#app") == []
    _screenshot(page, "history")


def test_the_root_address_opens_the_history(server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(server.url)
    expect(page.get_by_test_id("history-row")).to_have_count(2, timeout=WAIT_MS)


def test_a_thousand_case_run_shows_its_first_rows_and_counts(tmp_path, browser_page):
    """The generated 1k-case run (``_fixtures.synthetic_run``): the virtualized grid draws a
    screenful of rows, the header counts equal ``summary.json``, a case opens."""
    from playwright.sync_api import expect

    fixtures = sys.modules["agenteval_viewer_test_fixtures"]
    run = fixtures.synthetic_run(tmp_path / "runs", 1000)
    summary = run.summary()
    assert summary is not None
    with helpers.serving(tmp_path / "runs") as server:
        page = browser_page
        started = time.perf_counter()
        page.goto(f"{server.url}#/run/{run.run_id}")
        rows = page.get_by_test_id("grid-row")
        expect(rows.first).to_be_visible(timeout=WAIT_MS)
        print(f"1k cases: first rows after {time.perf_counter() - started:.2f} s")
        assert 10 <= rows.count() < 200  # a screenful, never one element per case
        expect(page.get_by_test_id("visible-count")).to_contain_text("1000 of 1000")
        for status, n in summary.summary.cases.items():
            if status.value != "INFORMATIONAL":
                expect(page.get_by_test_id(f"count-{status.value}").locator(".n")).to_have_text(str(n))
        case_id = rows.nth(3).locator(".case").inner_text()
        rows.nth(3).click()
        expect(page.get_by_test_id("drawer-title")).to_have_text(case_id)
        _screenshot(page, "run_1k")


class _SlowBundle:
    """The viewer's bundle, with the whole index held back until ``release`` is set: what a
    big run looks like while it is read."""

    def __init__(self) -> None:
        import threading

        from agenteval_viewer import _bundle

        self._bundle = _bundle
        self.release = threading.Event()

    def __getattr__(self, name: str):
        return getattr(self._bundle, name)

    def scan(self, run):
        self.release.wait(30)
        return self._bundle.scan(run)


def test_a_big_runs_first_rows_show_while_its_whole_index_is_read(tmp_path, browser_page):
    from playwright.sync_api import expect

    run = fx.synthetic_run(tmp_path / "runs", 1200, summary=False)
    slow = _SlowBundle()
    with helpers.serving(tmp_path / "runs", bundle=slow) as server:
        page = browser_page
        page.goto(f"{server.url}#/run/{run.run_id}")
        expect(page.get_by_test_id("indexing")).to_contain_text("all 1200 cases", timeout=WAIT_MS)
        rows = page.get_by_test_id("grid-row")
        expect(rows.first).to_be_visible()
        whole = case_index(run)
        assert rows.first.locator(".case").inner_text() == whole["case_id"][0]
        assert page.get_by_test_id("verdict").count() == 0  # the header waits for the whole run
        assert visibility.problems(page, "#app") == []
        _screenshot(page, "first-rows")
        rows.nth(2).click()  # a first row opens while the rest is read
        expect(page.get_by_test_id("drawer-title")).to_have_text(whole["case_id"][2])
        expect(page.get_by_test_id("turn").first).to_be_visible(timeout=WAIT_MS)
        slow.release.set()
        expect(page.get_by_test_id("verdict")).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_test_id("indexing")).to_have_count(0)
        expect(page.get_by_test_id("visible-count")).to_have_text("1200 of 1200 cases")


def test_a_run_of_several_runs_per_cases_first_rows_show_while_its_whole_index_is_read(
    tmp_path, browser_page
):
    """Three runs per case: the first rows (each case's combined brief) show as a one-run
    run's do, readable and not overlapping, before the whole index is read."""
    from playwright.sync_api import expect

    run = fx.repeated_run(tmp_path / "runs")
    slow = _SlowBundle()
    with helpers.serving(tmp_path / "runs", bundle=slow) as server:
        page = browser_page
        page.goto(f"{server.url}#/run/{run.run_id}")
        expect(page.get_by_test_id("indexing")).to_contain_text("all 2 cases", timeout=WAIT_MS)
        rows = page.get_by_test_id("grid-row")
        expect(rows).to_have_count(2)
        whole = case_index(run)
        for n in range(2):
            expect(rows.nth(n).locator(".case")).to_have_text(whole["case_id"][n])
            expect(rows.nth(n)).to_be_visible()
        assert page.get_by_test_id("verdict").count() == 0  # the header waits for the whole run
        assert visibility.problems(page, "#app") == []
        _screenshot(page, "first-rows-several-runs")
        slow.release.set()
        expect(page.get_by_test_id("verdict")).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_test_id("indexing")).to_have_count(0)
        expect(page.get_by_test_id("visible-count")).to_have_text("2 of 2 cases")


def _overlaps(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.fixture(scope="module")
def two_suites(tmp_path_factory) -> Path:
    """A runs folder with two suites: the tiny fixture's run and the travel example's."""
    from concurrent.futures import ThreadPoolExecutor

    folder = tmp_path_factory.mktemp("two-suites")
    fx.tiny_run(folder)
    with ThreadPoolExecutor(1) as pool:  # away from the event loop Playwright's browser may run here
        pool.submit(helpers.travel_run, folder).result()
    return folder


def test_the_history_keeps_suites_apart_and_no_trend_label_overlaps_a_name(two_suites, browser_page):
    """Two suites (the tiny fixture's, whose criteria have long names, and the travel example
    scored from files): one trend section each, a suite filter, and every trend's name, chart
    and last value inside its own cell, clear of the others."""
    from playwright.sync_api import expect

    with helpers.serving(two_suites) as server:
        page = browser_page
        page.goto(f"{server.url}#/history")
        sections = page.locator(".suite-trends")
        expect(sections).to_have_count(2, timeout=WAIT_MS)
        names = page.get_by_test_id("suite-name")
        expect(names.nth(0)).not_to_have_text(names.nth(1).inner_text())
        expect(names.nth(1)).to_contain_text("shop_agent.py:respond")  # as written, not upper-cased
        items = page.get_by_test_id("trend-item")
        boxes = [item.bounding_box() for item in items.all()]
        assert len(boxes) == 6  # 2 + 4: the informational tool_call_count_v1 has no pass rate
        for i, item in enumerate(items.all()):
            for part in (item.locator(".trend-name"), item.locator("svg"), item.get_by_test_id("trend-last")):
                inner = part.bounding_box()
                box = boxes[i]
                assert (
                    box["x"] - 0.5 <= inner["x"]
                    and inner["x"] + inner["width"] <= box["x"] + box["width"] + 0.5
                )
            for j in range(i + 1, len(boxes)):
                assert not _overlaps(boxes[i], boxes[j]), (i, j)
        assert visibility.problems(page, "#app") == []
        _screenshot(page, "history_suites")
        suites = page.get_by_test_id("suite-filter").locator("option").all_inner_texts()[1:]
        page.get_by_test_id("suite-filter").select_option(suites[0])
        expect(sections).to_have_count(1)
        expect(page.get_by_test_id("history-row")).to_have_count(1)
        assert "suite=" in page.url


def test_criterion_columns_show_whole_names_wrapped_at_underscores(tiny, browser_page):
    """The grid's criterion headers show each whole name (wrapped after its underscores, never
    cut inside a word), with the name as a tooltip; every control of the run screen and of the
    drawer is visible, uncovered and readable; the drawer speaks one outcome word per result."""
    from playwright.sync_api import expect

    with helpers.serving(tiny.folder.parent) as server:
        page = browser_page
        page.goto(f"{server.url}#/run/{tiny.run_id}")
        heads = page.get_by_test_id("crit-head")
        expect(heads.first).to_be_visible(timeout=WAIT_MS)
        names = case_index(tiny)["criteria"]
        assert heads.count() == len(names)
        for head, name in zip(heads.all(), names, strict=True):
            assert head.get_attribute("title") == name
            assert head.inner_text().replace("\n", "") == name  # all of it, no ellipsis
            clipped = head.evaluate(
                "b => [b.scrollWidth > b.clientWidth + 1, b.scrollHeight > b.clientHeight + 1]"
            )
            assert clipped == [False, False], name
        assert visibility.problems(page, "#app") == []
        _screenshot(page, "grid_heads")
        row = case_index(tiny)["case_id"].index("judge_broke")
        page.goto(f"{server.url}#/run/{tiny.run_id}?case={row}")
        drawer = page.get_by_test_id("drawer")
        expect(drawer.get_by_test_id("verdict-row").first).to_be_visible(timeout=WAIT_MS)
        words = ("PASSED", "FAILED", "ERRORED", "NOT EVALUATED", "NOT_EVALUATED")
        for verdict_row in drawer.get_by_test_id("verdict-row").all():
            text = verdict_row.inner_text()
            assert sum(text.count(w) for w in words) <= 1, text  # ERRORED beside NOT_EVALUATED was shown
        assert visibility.problems(page, "[data-testid=drawer]") == []
