"""The trajectory diff of the case detail (``alignments``) and, in headless chromium, in the
single-file HTML report and the served viewer's case drawer: for each criterion that declares
``shows_trajectory``, its own aligned rows under the turn (pairs with their similarity, missing
and extra calls, each argument's expected and actual value and the matcher), visible, readable,
not overlapping, untrusted tool names shown as text; a whole-conversation alignment under the
turns. Screenshots (``_screenshots/``): ``report_trajectory_diff.png``,
``report_trajectory_drawer.png``, ``view_trajectory_diff.png``, ``view_trajectory_drawer.png``,
``report_conversation_diff.png``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import agenteval
import agenteval_viewer_server_test_helpers as helpers
import agenteval_viewer_visibility as visibility
import pytest
from agenteval.models import EvalSet
from agenteval.runs import RecordedRun
from agenteval.testing import make_case, make_invocation
from agenteval_viewer._bundle import case_detail, case_index
from agenteval_viewer._report import render_report

WAIT_MS = 15_000
XSS_TOOL = "<img src=x onerror=alert(1)>lookup"
CRITERIA = {
    "tool_trajectory_match_v2": {
        "threshold": 0.9,
        "args": {"mode": "partial", "per_tool": {"search": {"fields": {"query": {"match": "casefold"}}}}},
    },
    "tool_parameter_match": 0.9,
    "tool_trajectory_avg_score": 1.0,
}


def trajectory_run(folder: Path, criteria: Optional[dict] = None) -> RecordedRun:
    """One passing case and one whose second turn lost points: ``search`` with ``limit`` 10
    for 5 (a query equal but for case, accepted by ``casefold``), ``mail`` never called, an
    extra call of a tool with an HTML name."""
    want = [("search", {"query": "Paris hotels", "limit": 5}), ("mail", {"to": "me@example.com"})]
    got = [("search", {"query": "PARIS hotels", "limit": 10}), (XSS_TOOL, {"q": "</script><b>x</b>"})]
    ok = [("weather", {"city": "Oslo"})]
    cases = [
        make_case([make_invocation("w", "ok", ok)], eval_id="passes"),
        make_case(
            [make_invocation("hi", "ok", ok), make_invocation("book", "ok", want)], eval_id="lost_points"
        ),
    ]
    actual = [
        make_case([make_invocation("w", "ok", ok)], eval_id="passes"),
        make_case(
            [make_invocation("hi", "ok", ok), make_invocation("book", "ok", got)], eval_id="lost_points"
        ),
    ]
    path = folder / "trips.evalset.json"
    path.write_text(EvalSet(eval_set_id="trips", eval_cases=cases).to_json(), encoding="utf-8")
    actual_path = folder / "actual.json"
    actual_path.write_text(EvalSet(eval_set_id="trips", eval_cases=actual).to_json(), encoding="utf-8")
    result = agenteval.evaluate(path, actual_path, criteria or CRITERIA, runs_dir=folder / "runs")
    return RecordedRun.open(folder / "runs" / result.run_id)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Recorded before any browser starts (Playwright runs an event loop; evaluate refuses one)."""
    return trajectory_run(tmp_path_factory.mktemp("trajectory"))


@pytest.fixture(scope="module")
def row(run):
    return case_index(run)["case_id"].index("lost_points")


def _old(run: RecordedRun, folder: Path) -> RecordedRun:
    """A copy of ``run`` as recorded before criteria declared ``shows_trajectory``."""
    import shutil

    old = folder / "runs" / run.run_id
    shutil.copytree(run.folder, old)
    manifest = old / "manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    for entry in data["eval_sets"]:
        for criterion in entry["criteria"]:
            criterion.pop("shows_trajectory", None)
    manifest.write_text(json.dumps(data), encoding="utf-8")
    return RecordedRun.open(old)


def test_the_detail_carries_each_declaring_criterions_rows_per_turn(run, row):
    detail = case_detail(run, row)
    first, second = detail["turns"]
    assert first["alignments"] == [] and detail["alignments"] == []
    by_name = {a["criterion"]: a for a in second["alignments"]}
    assert list(by_name) == list(CRITERIA)
    v2 = by_name["tool_trajectory_match_v2"]
    assert v2["status"] == "FAILED" and v2["score"] == 0.25
    [pair] = [r for r in v2["rows"] if r["op"] == "args_differ"]
    assert pair["similarity"] == 0.5
    assert {d["key"]: (d["kind"], d["matcher"]) for d in pair["arg_diffs"]} == {
        "limit": ("changed", "exact"),
        "query": ("equivalent", "casefold"),
    }
    assert case_detail(_old(run, Path(str(run.folder) + "-old")), row)["turns"][1]["alignments"] == []


@pytest.fixture(scope="module")
def conversation_run(tmp_path_factory):
    criteria = {"tool_trajectory_match_v2": {"threshold": 0.9, "scope": "conversation"}}
    return trajectory_run(tmp_path_factory.mktemp("conversation"), criteria)


def test_a_whole_conversation_alignment_is_the_cases(conversation_run):
    run = conversation_run
    detail = case_detail(run, case_index(run)["case_id"].index("lost_points"))
    assert all(t["alignments"] == [] for t in detail["turns"])
    [alignment] = detail["alignments"]
    missing = next(r for r in alignment["rows"] if r["op"] == "missing")
    assert missing["name"] == "mail" and missing["expected_turn"] == 1


def _screenshot(locator, name: str) -> Path:
    folder = Path(__file__).with_name("_screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    locator.screenshot(path=str(path))
    return path


def _check_the_diff(page, run, row) -> None:
    """What a person must see: one diff per criterion on turn 2, rows that do not overlap,
    the argument that differs with its expected and actual values, every text readable."""
    from playwright.sync_api import expect

    diffs = page.get_by_test_id("traj-diff")
    expect(diffs).to_have_count(3, timeout=WAIT_MS)
    detail = case_detail(run, row)
    turn = detail["turns"][1]
    assert detail["turns"][0]["alignments"] == []  # turn 1 matched: nothing lost there
    assert [d.get_attribute("data-criterion") for d in diffs.all()] == [
        a["criterion"] for a in turn["alignments"]
    ]
    for index, alignment in enumerate(turn["alignments"]):
        shown = (
            diffs.nth(index)
            .get_by_test_id("traj-diff-row")
            .evaluate_all("els => els.map(e => [e.dataset.op, e.dataset.name])")
        )
        assert shown == [[r["op"], r["name"]] for r in alignment["rows"]]
    v2 = page.locator("[data-testid=traj-diff][data-criterion=tool_trajectory_match_v2]")
    limit = v2.locator("[data-testid=argdiff][data-key=limit]")
    expect(limit.get_by_test_id("argdiff-expected")).to_have_text("5")
    expect(limit.get_by_test_id("argdiff-actual")).to_have_text("10")
    expect(limit.get_by_test_id("argdiff-matcher")).to_have_text("exact")
    query = v2.locator("[data-testid=argdiff][data-key=query]")
    assert query.get_attribute("data-kind") == "equivalent"
    expect(query.get_by_test_id("argdiff-matcher")).to_have_text("casefold")
    expect(v2.get_by_test_id("similarity").first).to_have_text("0.500")
    extra = v2.locator("[data-testid=traj-diff-row][data-op=extra]")
    expect(extra).to_contain_text(XSS_TOOL)  # the tool's name is text, not an element
    assert page.locator("img").count() == 0 and page.locator("td b b").count() == 0
    v2.scroll_into_view_if_needed()
    boxes = v2.get_by_test_id("traj-diff-row").evaluate_all(
        "rows => rows.map(r => [...r.cells].map(c => { const b = c.getBoundingClientRect();"
        " return [b.left, b.top, b.right, b.bottom, c.scrollWidth <= c.clientWidth + 1]; }))"
    )
    cells = [c for row_cells in boxes for c in row_cells]
    assert all(fits for *_, fits in cells)  # no cell's text runs out of it
    for i, a in enumerate(cells):
        for b in cells[i + 1 :]:
            overlap_x = min(a[2], b[2]) - max(a[0], b[0])
            overlap_y = min(a[3], b[3]) - max(a[1], b[1])
            assert overlap_x <= 1 or overlap_y <= 1, (a, b)
    assert visibility.problems(page, "[data-testid=drawer]") == []


@pytest.mark.browser
def test_the_html_report_shows_why_the_trajectory_lost_points(run, row, tmp_path, browser_page):
    page = browser_page
    stats = render_report(run, tmp_path / "report.html", details="nonpassing")
    page.goto(stats.path.as_uri() + f"#/run/{run.run_id}?case={row}")
    page.wait_for_selector("[data-testid=traj-diff]")
    _check_the_diff(page, run, row)
    _screenshot(page.locator("[data-testid=traj-diff][data-criterion=tool_trajectory_match_v2]"),
                "report_trajectory_diff.png")  # fmt: skip
    _screenshot(page.get_by_test_id("drawer"), "report_trajectory_drawer.png")


@pytest.mark.browser
def test_the_viewers_drawer_shows_why_the_trajectory_lost_points(run, row, browser_page):
    page = browser_page
    with helpers.serving(run.folder.parent) as server:
        page.goto(f"{server.url}#/run/{run.run_id}?case={row}")
        page.wait_for_selector("[data-testid=traj-diff]", timeout=WAIT_MS)
        _check_the_diff(page, run, row)
        _screenshot(page.locator("[data-testid=traj-diff]").nth(1), "view_trajectory_diff.png")
        _screenshot(page.get_by_test_id("drawer"), "view_trajectory_drawer.png")


@pytest.mark.browser
def test_a_run_recorded_before_shows_trajectory_keeps_todays_drawer(run, row, tmp_path, browser_page):
    """No criterion declares the field in an old manifest: the engine's alignment only."""
    page = browser_page
    stats = render_report(_old(run, tmp_path), tmp_path / "report.html", details="nonpassing")
    page.goto(stats.path.as_uri() + f"#/run/{run.run_id}?case={row}")
    page.wait_for_selector("[data-testid=traj-row]")
    assert page.get_by_test_id("traj-diff").count() == 0
    assert page.get_by_test_id("trajectory").count() == 2  # one per turn, as before


@pytest.mark.browser
def test_the_report_shows_a_whole_conversation_alignment_with_its_turns(
    conversation_run, tmp_path, browser_page
):
    run = conversation_run
    row = case_index(run)["case_id"].index("lost_points")
    page = browser_page
    stats = render_report(run, tmp_path / "report.html", details="nonpassing")
    page.goto(stats.path.as_uri() + f"#/run/{run.run_id}?case={row}")
    page.wait_for_selector("[data-testid=traj-diff]")
    section = page.get_by_label("Trajectory over the conversation")
    missing = section.locator("[data-testid=traj-diff-row][data-op=missing]")
    assert "#2, turn 2 mail" in missing.inner_text()
    assert visibility.problems(page, "[data-testid=drawer]") == []
    _screenshot(section, "report_conversation_diff.png")
