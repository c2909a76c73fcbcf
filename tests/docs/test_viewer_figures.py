"""The recorded figures of benchmarks/viewer_budgets.py (the HTML report) and
benchmarks/viewer_server.py (``agenteval view``) cover 1k, 10k and 100k cases, and a row is
worded as docs/viewer.md shows it; that the doc quotes them as the scripts word them is
``test_row_figures``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.doc_figures import load_script

REPO = Path(__file__).resolve().parents[2]
FIGURES = load_script(REPO / "benchmarks" / "_figures.py")
SCRIPTS = [REPO / "benchmarks" / "viewer_budgets.py", REPO / "benchmarks" / "viewer_server.py"]


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.stem)
def test_the_recorded_figures_cover_1k_10k_and_100k_cases(path):
    script = load_script(path)
    rows = FIGURES.load(script.JSON_PATH)
    assert sorted(row["cases"] for row in rows) == [1_000, 10_000, 100_000]
    assert all(row["rss_mb"] > 0 and row["cpus"] >= 1 for row in rows)


def test_a_row_is_worded_with_its_cap_and_a_browser_that_did_not_measure():
    budgets, server = (load_script(path) for path in SCRIPTS)
    row = {"cases": 2000, "build_s": 1.234, "rss_mb": 80.4, "rss_before_mb": 40.6, "mb": 50.0}
    row |= {"details": 1999}
    row |= {"interactive_s": 0.5, "filter_s": 0.1, "search_s": 0.05, "open_s": 0.2, "dom_nodes": 1200}
    row |= {"heap_mb": None, "load": 0.5, "cpus": 2}
    assert budgets.doc_lines([row])["2000"] == (
        "| 2,000 | 1.23 s | 80 MB (41) | 50.0 MB (capped) | 1,999 | 0.50 s | 100 ms | 50 ms | 200 ms "
        "| 1,200 | - |"
    )
    served = {"cases": 2000, "first": 0.5, "next": 0.25, "case_median_ms": 1.25, "index_mb": 0.55}
    served |= {"index_file_mb": 1.2, "rss_mb": 50.2, "browser": None, "load": 0.5, "cpus": 2}
    lines = server.doc_lines([served])
    assert lines["2000"] == "| 2,000 | 0.50 s | 0.25 s | 1.2 ms | 0.6 MB | 50 MB | - |"
    assert lines["index file"] == "At 2,000 cases the whole index is one pass over the 1 MB `index.jsonl`"
    assert lines["machine"] == "Measured on 2 CPUs at a load of 0.5."
