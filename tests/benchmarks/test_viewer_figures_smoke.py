"""Smoke test of ``benchmarks/viewer_budgets.py`` and ``benchmarks/viewer_server.py`` with
``--write PATH``, as their docstrings show them, at small sizes: each records a row per size
and prints the lines docs/viewer.md quotes. Headless chromium (``browser``); no timing
assertions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
CHROMIUM = Path("/usr/bin/chromium")  # what both scripts launch


@pytest.fixture
def chromium() -> None:
    if not CHROMIUM.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"the viewer benchmarks need {CHROMIUM} in CI (.ci/run installs it)")
        pytest.skip(f"{CHROMIUM} is missing")


def _written(args: list[str], figures: Path) -> tuple[list[dict], list[str]]:
    done = subprocess.run(
        [sys.executable, *args, "--write", str(figures)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    said = done.stdout.split("docs/viewer.md quotes:\n")[1].splitlines()
    return json.loads(figures.read_text())["rows"], said


@pytest.mark.browser
def test_viewer_budgets_write_records_a_row_per_size(tmp_path: Path, chromium: None) -> None:
    rows, said = _written([str(BENCHMARKS / "viewer_budgets.py"), "40", "60"], tmp_path / "budgets.json")
    assert [row["cases"] for row in rows] == [40, 60] and all(row["details"] == row["cases"] for row in rows)
    assert said[0].startswith("| 40 | ") and said[1].startswith("| 60 | ")
    assert said[2].startswith("Measured on ")


@pytest.mark.browser
def test_viewer_server_write_records_a_row_per_size(tmp_path: Path, chromium: None) -> None:
    rows, said = _written([str(BENCHMARKS / "viewer_server.py"), "--sizes", "30"], tmp_path / "server.json")
    assert [row["cases"] for row in rows] == [30] and rows[0]["browser"] is not None
    assert said[0].startswith("| 30 | ") and said[1].startswith("At 30 cases the whole index is one pass")
    assert said[2].startswith("Measured on ")
