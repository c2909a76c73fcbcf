"""The Markdown report's trajectory diff: for a failed criterion that declares
``shows_trajectory``, a table of its first failed invocation's aligned rows (expected vs
actual values, the matcher), with tool names and values escaped; none for other criteria
or for a run recorded before the field existed."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import agenteval
import pytest
from agenteval.models import EvalSet
from agenteval.runs import RecordedRun
from agenteval.testing import make_case, make_invocation
from agenteval_builtin.reporters._common import code
from agenteval_builtin.reporters.markdown import render_markdown

HOSTILE_TOOL = "find|`x` <script>alert(1)</script> *em* \\|"


def _run(tmp_path: Path, criteria: dict, *, calls: int = 1) -> RecordedRun:
    want = [("search", {"query": "Paris hotels", "limit": 5}), ("mail", {"to": "me"})]
    got = [("search", {"query": "Paris hotels", "limit": 10}), (HOSTILE_TOOL, {"q": "a|b`c"})]
    want += [(f"t{i}", {}) for i in range(calls - 1)]
    cases = [make_case([make_invocation("hi", "ok"), make_invocation("book", "ok", want)], eval_id="c1")]
    actual = [make_case([make_invocation("hi", "ok"), make_invocation("book", "ok", got)], eval_id="c1")]
    path = tmp_path / "shop.evalset.json"
    path.write_text(EvalSet(eval_set_id="shop", eval_cases=cases).to_json(), encoding="utf-8")
    actual_path = tmp_path / "actual.json"
    actual_path.write_text(EvalSet(eval_set_id="shop", eval_cases=actual).to_json(), encoding="utf-8")
    result = agenteval.evaluate(path, actual_path, criteria, runs_dir=tmp_path / "runs")
    return RecordedRun.open(tmp_path / "runs" / result.run_id)


def _table(text: str) -> list[list[str]]:
    """The rows of the first diff table, split on unescaped pipes (as GFM does)."""
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith("| ")]
    rows = [line for line in lines if not line.startswith("| criterion") and not line.startswith("| `")]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows]


@pytest.mark.parametrize(
    "criteria",
    [
        {"tool_trajectory_match_v2": {"threshold": 0.9, "args": {"mode": "partial"}}},
        {"tool_parameter_match": 0.9},
        {"tool_trajectory_avg_score": 1.0},
    ],
    ids=["v2", "parameter_match", "avg_score"],
)
def test_a_failed_trajectory_criterion_shows_why_it_lost_points(tmp_path, criteria):
    text = render_markdown(_run(tmp_path, criteria))
    [name] = criteria
    assert f"{code(name)} trajectory diff, invocation 2:" in text
    rows = _table(text)
    body = [r for r in rows if r[0] not in ("", "---")]
    differs = next(r for r in body if r[0].startswith("≠ differs"))
    assert len(differs) == 4  # no cell split by untrusted text
    assert "limit" in differs[3] and code("5") in differs[3] and code("10") in differs[3]
    assert "[" + code("exact") + "]" in differs[3]
    missing = next(r for r in body if r[0] == "− missing")
    assert "mail" in missing[1] and missing[2] == ""
    if name != "tool_parameter_match":  # it ignores actual calls it did not pair
        extra = next(r for r in body if r[0] == "+ extra")
        assert len(extra) == 4 and extra[1] == ""
    assert "<script>" not in text and "`x`" not in text and "*em*" not in text


def test_untrusted_code_is_inert_markdown():
    assert code("a|b`c<d>\\|*e*") == "<code>a&#124;b&#96;c&#60;d&#62;&#92;&#124;&#42;e&#42;</code>"
    assert code("line\nbreak <b>*x*</b>") == "`line break <b>*x*</b>`"  # a code span shows it as it is
    assert code("") == "<code></code>"


def test_long_trajectories_are_cut_and_counted(tmp_path):
    text = render_markdown(_run(tmp_path, {"tool_trajectory_match_v2": 0.9}, calls=20))
    assert "| … | 10 more rows | | |" in text  # 22 rows, 12 shown


def test_no_diff_for_a_criterion_that_does_not_declare_it_or_for_an_old_run(tmp_path):
    run = _run(tmp_path, {"tool_trajectory_match_v2": 0.9, "response_match_score": 0.99})
    assert "trajectory diff" in render_markdown(run)
    manifest = run.folder / "manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    for entry in data["eval_sets"]:
        for criterion in entry["criteria"]:
            criterion.pop("shows_trajectory", None)  # recorded before the field existed
    manifest.write_text(json.dumps(data), encoding="utf-8")
    text = render_markdown(RecordedRun.open(run.folder))
    assert "trajectory diff" not in text and "**shop/c1** FAILED" in text


class _Cells(HTMLParser):
    """The text of each table row's cells, and every element name seen."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.tags: set[str] = set()
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_the_table_renders_as_a_table_with_untrusted_text_as_text(tmp_path):
    """Rendered by a CommonMark parser with GFM tables (markdown-it-py, which rich brings):
    four cells a row, no element made from a tool name, the name shown as it is."""
    from markdown_it import MarkdownIt

    text = render_markdown(_run(tmp_path, {"tool_trajectory_match_v2": 0.9}))
    page = _Cells()
    page.feed(MarkdownIt("commonmark").enable("table").render(text))
    rows = page.rows[page.rows.index(["", "expected", "actual", "what differs"]) :]
    assert len(rows) == 4 and all(len(r) == 4 for r in rows)
    assert not page.tags & {"script", "em", "img", "a"}
    [extra] = [r for r in rows if r[0] == "+ extra"]
    assert extra[2] == '#2 find|`x` <script>alert(1)</script> *em* \\|(q="a|b`c")'
    [pair] = [r for r in rows if r[0].startswith("≠ differs")]
    assert pair[3] == "limit: expected 5, got 10 [exact]" and pair[0] == "≠ differs, similarity 0"
