"""The single-file report in headless chromium: no network, counts and filters equal the
Python side, deep links, the case drawer, XSS payloads inert, keyboard navigation."""

from __future__ import annotations

import json

import agenteval_viewer_test_fixtures as fx
import agenteval_viewer_visibility as visibility
import pytest
from agenteval.plugins import align_trajectory
from agenteval_viewer._bundle import STATUS_LEGEND, case_detail, case_index
from agenteval_viewer._report import CSP, render_report

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def index(tiny):
    return case_index(tiny)


@pytest.fixture(scope="module")
def report_url(tiny, tmp_path_factory):
    stats = render_report(tiny, tmp_path_factory.mktemp("report") / "report.html", details="all")
    return stats.path.as_uri()


@pytest.fixture(scope="module")
def nonpassing_url(tiny, tmp_path_factory):
    stats = render_report(tiny, tmp_path_factory.mktemp("report") / "report.html", details="nonpassing")
    return stats.path.as_uri()


def _open(page, url, hash_=""):
    page.goto(url + hash_)
    page.wait_for_selector("[data-testid=visible-count]")


def _visible(page):
    return int(page.get_by_test_id("visible-count").inner_text().split(" of ")[0])


def _rows(index, keep):
    return [r for r in range(index["n"]) if keep(r)]


def test_header_counts_equal_the_summary_and_nothing_is_fetched(browser_page, report_url, tiny):
    page = browser_page
    _open(page, report_url)
    assert page.locator("meta[http-equiv=Content-Security-Policy]").get_attribute("content") == CSP
    written = {s.value: n for s, n in tiny.summary().summary.cases.items()}
    for status in ("PASSED", "FAILED", "ERRORED", "NOT_EVALUATED"):
        shown = page.get_by_test_id(f"count-{status}").inner_text()
        assert shown.split("\n")[0].strip() == str(written[status])
    assert page.get_by_test_id("verdict").inner_text() == "FAIL"
    # ERRORED and NOT_EVALUATED never look like PASS or FAIL
    errored = page.get_by_test_id("count-ERRORED").get_attribute("class")
    assert "errored" in errored and "passed" not in errored and "failed" not in errored
    assert _visible(page) == sum(written.values()) == 14
    assert page.evaluate("document.querySelectorAll('*').length") < 2000


FILTERS = [
    ("status=FAILED", lambda ix, r: STATUS_LEGEND[ix["status"][r]] == "FAILED"),
    (
        "status=ERRORED,NOT_EVALUATED",
        lambda ix, r: STATUS_LEGEND[ix["status"][r]] in ("ERRORED", "NOT_EVALUATED"),
    ),
    (
        f"crit={fx.RESP}:FAILED",
        lambda ix, r: ix["by_criterion"][fx.RESP]["status"][r] == STATUS_LEGEND.index("FAILED"),
    ),
    (
        "reason=agent_timeout",
        lambda ix, r: any(
            ix["by_criterion"][c]["reason_code"].get(str(r)) == ix["reason_codes"].index("agent_timeout")
            for c in ix["criteria"]
        ),
    ),
    (
        "rubric=cites_price",
        lambda ix, r: ix["rubrics"].index("cites_price") in ix["failed_rubrics"].get(str(r), []),
    ),
    (
        f"scrit={fx.RESP}&smin=0.1&smax=0.5",
        lambda ix, r: (s := ix["by_criterion"][fx.RESP]["score"][r]) is not None and 0.1 <= s <= 0.5,
    ),
    ("q=paris", lambda ix, r: "paris" in ix["search"][r]),
    ("q=%E6%9D%B1%E4%BA%AC", lambda ix, r: "東京" in ix["search"][r]),
]


@pytest.mark.parametrize(("query", "keep"), FILTERS, ids=[f[0] for f in FILTERS])
def test_every_filter_shows_the_rows_python_computes(browser_page, report_url, tiny, index, query, keep):
    page = browser_page
    _open(page, report_url, f"#/run/{tiny.run_id}?{query}")
    expected = _rows(index, lambda r: keep(index, r))
    assert 0 < len(expected) < index["n"], "a filter that keeps all or nothing proves nothing"
    assert _visible(page) == len(expected)
    shown = sorted(
        int(x)
        for x in page.locator("[data-testid=grid-row]").evaluate_all("els => els.map(e => e.dataset.row)")
    )
    assert shown == expected


def test_clicking_a_count_filters_and_the_url_keeps_it(browser_page, report_url, index):
    page = browser_page
    _open(page, report_url)
    page.get_by_test_id("count-ERRORED").click()
    assert "status=ERRORED" in page.evaluate("location.hash")
    assert _visible(page) == index["status"].count(STATUS_LEGEND.index("ERRORED")) == 1
    page.go_back()
    page.wait_for_function("!location.hash.includes('status=')")
    assert _visible(page) == index["n"]


def test_a_deep_link_restores_the_filters_and_the_open_case(browser_page, report_url, tiny, index):
    page = browser_page
    row = index["case_id"].index("rtl_cairo")
    _open(page, report_url, f"#/run/{tiny.run_id}?status=FAILED&q=cairo&case={row}")
    assert page.get_by_test_id("search").input_value() == "cairo"
    assert _visible(page) == 1
    assert page.get_by_test_id("drawer-title").inner_text() == "rtl_cairo"
    assert "active" in page.get_by_test_id("count-FAILED").get_attribute("class")
    assert "active" not in page.get_by_test_id("count-PASSED").get_attribute("class")
    assert page.locator("[data-testid=grid-row][data-row='0']").count() == 0  # weather_paris filtered out
    assert fx.RTL in page.locator("[data-testid=turn] .user p").inner_text()
    page.get_by_test_id("close").click()
    assert page.get_by_test_id("drawer").count() == 0 and "case=" not in page.evaluate("location.hash")


def test_the_drawer_shows_the_engines_trajectory_alignment_and_the_judges(
    browser_page, report_url, tiny, index
):
    page = browser_page
    row = index["case_id"].index("wrong_tools")
    _open(page, report_url, f"#/run/{tiny.run_id}?case={row}")
    page.wait_for_selector("[data-testid=traj-row]")
    detail = case_detail(tiny, row)
    turn = detail["turns"][0]
    rows = align_trajectory(turn["expected"]["tool_calls"], turn["actual"]["tool_calls"])
    shown = page.locator("[data-testid=traj-row]").evaluate_all(
        "els => els.map(e => [e.dataset.op, e.dataset.name])"
    )
    assert shown == [[r.op, r.name] for r in rows]
    reasons = page.get_by_test_id("reasoning").all_inner_texts()
    assert "sample 1: The agent booked a train, not the flight that was asked for." in reasons
    assert page.get_by_test_id("rerun").inner_text() == detail["rerun"]
    assert page.locator("del").count() > 0 and page.locator("ins").count() > 0  # the word diff


def test_the_rubric_matrix_equals_the_record(browser_page, report_url, tiny, index):
    page = browser_page
    row = index["case_id"].index("rubric_failure")
    _open(page, report_url, f"#/run/{tiny.run_id}?case={row}")
    page.wait_for_selector("[data-testid=rubric-matrix]")
    cells = page.locator("[data-testid=rubric-matrix] tbody tr").evaluate_all(
        "rows => rows.map(r => [r.dataset.rubric, [...r.querySelectorAll('td.vote')]"
        ".map(c => c.textContent)])"
    )
    assert cells == [
        ["cites_price", ["no", "no", "no", "no"]],
        ["polite", ["yes", "yes", "yes", "yes"]],
        ["no_invention", ["no", "no", "no", "no"]],
    ]


def test_xss_payloads_are_shown_as_text_and_never_run(browser_page, report_url, tiny, index):
    page = browser_page
    row = index["case_id"].index(fx.XSS_IMG)
    _open(page, report_url, f"#/run/{tiny.run_id}?case={row}")
    page.wait_for_selector("[data-testid=turn]")
    rubric_row = index["case_id"].index("rubric_failure")
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img").count() == 0
    assert page.get_by_test_id("drawer-title").inner_text() == fx.XSS_IMG
    assert fx.XSS_SCRIPT in page.get_by_test_id("output").inner_text()
    page.evaluate(f"location.hash = '#/run/{tiny.run_id}?case={rubric_row}'")
    page.wait_for_selector("[data-testid=rubric-matrix]")
    assert fx.XSS_SCRIPT in " ".join(page.locator(".reasoning").all_inner_texts())
    assert page.evaluate("window.__pwned") is None and page.locator("img").count() == 0


def test_keyboard_navigation_opens_and_closes_cases(browser_page, report_url, index):
    page = browser_page
    _open(page, report_url)
    page.locator("body").press("j")
    page.locator("body").press("j")
    assert page.locator("[data-testid=grid-row][aria-selected=true]").get_attribute("data-row") == "1"
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=drawer]")
    assert page.get_by_test_id("drawer-title").inner_text() == index["case_id"][1]
    page.keyboard.press("k")
    page.wait_for_function("location.hash.includes('case=0')")
    page.keyboard.press("Escape")
    page.wait_for_function("!location.hash.includes('case=')")
    assert page.get_by_test_id("drawer").count() == 0


def test_keys_pressed_faster_than_the_page_renders_act_on_the_latest_selection(
    browser_page, report_url, index
):
    # A slow machine: the keys arrive before the page has rendered (and re-registered its
    # handlers after) the previous one; each key must still act on the selection the last made.
    # The keys are sent in one script, so none of them waits for a render whatever the CPU; the
    # throttled CPU then makes each render slow, and a busy host slower still: generous waits.
    page = browser_page
    _open(page, report_url)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 6})
    try:
        page.evaluate(
            """() => {
              for (const key of ["j", "j", "j", "k", "Enter", "j"]) {
                document.body.dispatchEvent(new KeyboardEvent("keydown", {key, bubbles: true}));
              }
            }"""
        )
        page.wait_for_function("location.hash.includes('case=2')", timeout=120_000)
        page.wait_for_selector("[data-testid=drawer]", timeout=120_000)
        assert page.get_by_test_id("drawer-title").inner_text() == index["case_id"][2]
    finally:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})


def test_a_case_whose_details_were_left_out_says_so(browser_page, nonpassing_url, tiny, index):
    page = browser_page
    _open(page, nonpassing_url, f"#/run/{tiny.run_id}?case=0")
    assert "left out of this report" in page.get_by_test_id("no-details").inner_text()
    assert "left out" in page.get_by_test_id("left-out-banner").inner_text()
    failing = index["case_id"].index("wrong_tools")
    page.evaluate(f"location.hash = '#/run/{tiny.run_id}?case={failing}'")
    page.wait_for_selector("[data-testid=traj-row]")
    assert page.get_by_test_id("no-details").count() == 0


def test_the_summary_island_is_the_bundles(browser_page, report_url):
    page = browser_page
    _open(page, report_url)
    island = json.loads(page.locator("#ae-index").text_content())
    assert island["case_id"][10] == fx.XSS_IMG


@pytest.mark.parametrize("case_id", ["judge_broke", "agent_timeout"])
def test_the_drawer_speaks_one_outcome_word_per_result(browser_page, report_url, tiny, index, case_id):
    """As the CLI: a criterion's status is its outcome (ERRORED was shown beside a verdict
    NOT_EVALUATED); every control of the report and of its drawer is seen right."""
    page = browser_page
    _open(page, report_url)
    assert visibility.problems(page, "#app") == []
    row = index["case_id"].index(case_id)
    _open(page, report_url, f"#/run/{tiny.run_id}?case={row}")
    page.wait_for_selector("[data-testid=verdict-row]")
    words = ("PASSED", "FAILED", "ERRORED", "NOT EVALUATED", "NOT_EVALUATED", "INFO")
    for verdict_row in page.get_by_test_id("verdict-row").all():
        text = verdict_row.inner_text()
        assert sum(text.count(w) for w in words) == 1, text
    assert visibility.problems(page, "[data-testid=drawer]") == []
