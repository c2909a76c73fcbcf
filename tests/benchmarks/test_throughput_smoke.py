"""Smoke test of ``benchmarks/throughput.py``: it runs on a small data set and reports every
criterion. No timing assertions (figures depend on the machine); the built-in plugin must
be installed, as it is in the dev environment."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "throughput.py"

LABELS = [
    "tool_trajectory_avg_score[EXACT]",
    "tool_trajectory_avg_score[IN_ORDER]",
    "tool_trajectory_avg_score[ANY_ORDER]",
    "response_match_score",
    "trajectory_precision",
    "trajectory_recall",
    "trajectory_single_tool_use",
    "tool_call_count_v1",
]


def test_throughput_runs_and_prints_a_line_per_criterion() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--invocations", "200"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for label in LABELS:
        (row,) = [line for line in lines if line.split()[:1] == [label]]
        inv_per_second = row.split()[1].replace(",", "")
        assert float(inv_per_second) > 0, row
    assert "200 invocations" in lines[0]
    assert any(line.startswith("peak memory") for line in lines)
