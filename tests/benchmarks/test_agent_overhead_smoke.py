"""Smoke test of ``benchmarks/agent_overhead.py``: it runs a no-op agent through the CLI on a
few cases and prints one row per criterion and size. No timing assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "agent_overhead.py"


def test_agent_overhead_runs_and_prints_a_row_per_size() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--cases",
            "3",
            "5",
            "--repeat",
            "1",
            "--criteria",
            "tool_call_count_v1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith("tool_call_count_v1")]
    assert [row[1] for row in rows] == ["3", "5"]
    for row in rows:
        total, startup, exit_, fixed, per_case = map(float, row[2:])
        assert 0 < startup <= total and 0 <= exit_ <= total and fixed == _approx(startup + exit_)
        assert per_case >= 0


def _approx(value: float) -> object:
    import pytest

    return pytest.approx(value, abs=0.011)


def test_write_merges_each_run_s_rows_and_prints_the_doc_s_lines(tmp_path: Path) -> None:
    """``--write PATH`` twice (a no-op agent, then a slower one): the file holds both runs'
    rows, and the second run prints the doc's row for each."""
    import json

    figures = tmp_path / "figures.json"
    base = [sys.executable, str(SCRIPT), "--cases", "3", "--repeat", "1", "--write", str(figures)]
    for extra in ([], ["--turn-seconds", "0.01", "--criteria", "response_match_score"]):
        done = subprocess.run(base + extra, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    rows = json.loads(figures.read_text())["rows"]
    assert sorted((row["criterion"], row["turn_seconds"]) for row in rows) == [
        ("response_match_score", 0.0),
        ("response_match_score", 0.01),
        ("tool_trajectory_avg_score", 0.0),
    ]
    said = done.stdout.split("docs/agents.md quotes:\n")[1].splitlines()
    assert said[0].startswith("| a no-op Python function, `tool_trajectory_avg_score`, 3 cases | ")
    assert said[2].startswith("| a Python function taking 10 ms per turn, `response_match_score`, 3 cases | ")
    assert said[3].startswith("Python agents: `benchmarks/agent_overhead.py`, the median of 1 runs")
