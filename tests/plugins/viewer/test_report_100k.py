"""The single-file report of a generated 100,000-case run, opened in Debian's chromium: it
loads, every case is in the index, the header counts equal the run's summary, the grid stays
virtualized, a status filter shows the Python side's count, and a case opens. Marked ``slow``
(about a minute: generating the run dominates); the budgets are measured by
``benchmarks/viewer_budgets.py``, never asserted here."""

from __future__ import annotations

import agenteval_viewer_test_fixtures as fx
import pytest
from agenteval_viewer._bundle import STATUS_LEGEND
from agenteval_viewer._report import render_report

pytestmark = [pytest.mark.browser, pytest.mark.slow]

N = 100_000


@pytest.fixture(scope="module")
def big_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("big")
    run = fx.synthetic_run(folder / "runs", N, summary=True)
    stats = render_report(run, folder / "report.html")
    return run, stats


def test_a_100k_case_report_opens_filters_and_opens_a_case(big_report, browser_page):
    from playwright.sync_api import expect

    run, stats = big_report
    assert stats.cases == N and stats.bytes <= 50_000_000
    summary = run.summary()
    assert summary is not None
    page = browser_page
    page.goto(stats.path.as_uri())
    expect(page.get_by_test_id("visible-count")).to_contain_text(f"{N} of {N}", timeout=30_000)
    for status, n in summary.summary.cases.items():
        if status.value != "INFORMATIONAL":
            expect(page.get_by_test_id(f"count-{status.value}").locator(".n")).to_have_text(str(n))
    rows = page.get_by_test_id("grid-row")
    assert 10 <= rows.count() < 200  # virtualized: a screenful, never one element per case
    assert page.evaluate("document.getElementsByTagName('*').length") < 2_000
    failed = summary.summary.cases[next(s for s in summary.summary.cases if s.value == "FAILED")]
    page.get_by_test_id("count-FAILED").click()
    expect(page.get_by_test_id("visible-count")).to_contain_text(f"{failed} of {N}")
    first = rows.first.locator(".case").inner_text()
    rows.first.click()
    expect(page.get_by_test_id("drawer-title")).to_have_text(first)
    assert "FAILED" in STATUS_LEGEND
