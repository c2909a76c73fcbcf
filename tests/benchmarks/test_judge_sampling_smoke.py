"""Smoke test of ``benchmarks/judge_sampling.py``: a few invocations at one leaning print a
row per mode and the check line (full and curtailed majority verdicts identical), then the
pivotal-only table and its check line. No timing assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "judge_sampling.py"


def test_judge_sampling_prints_every_mode_and_the_check_line() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--invocations", "4", "--leanings", "0.8", "--per-case", "2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    rows = [line.split() for line in lines if line.split()[:1] == ["0.80"]]
    modes = {row[1]: row for row in rows if not row[1].isdigit()}
    assert set(modes) == {"full", "curtailed", "sequential"}
    assert int(modes["full"][2]) == 4 * 5  # the full majority asks every sample
    assert int(modes["curtailed"][2]) <= int(modes["full"][2])
    assert "check: full and curtailed majority verdicts identical: yes" in lines
    (pivotal,) = [row for row in rows if row[1].isdigit()]
    assert int(pivotal[2]) <= int(pivotal[1])  # pivotal-only calls never exceed curtailed
    assert lines[-1] == "check: case verdicts with and without pivotal-only sampling identical: yes"
