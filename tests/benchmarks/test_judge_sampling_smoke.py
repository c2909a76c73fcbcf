"""Smoke test of ``benchmarks/judge_sampling.py``: a few invocations at one leaning print a
row per mode and the check line (full and curtailed majority verdicts identical). No
timing assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "judge_sampling.py"


def test_judge_sampling_prints_every_mode_and_the_check_line() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--invocations", "4", "--leanings", "0.8"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    rows = {line.split()[1]: line.split() for line in lines if line.split()[:1] == ["0.80"]}
    assert set(rows) == {"full", "curtailed", "sequential"}
    assert int(rows["full"][2]) == 4 * 5  # the full majority asks every sample
    assert int(rows["curtailed"][2]) <= int(rows["full"][2])
    assert lines[-1] == "check: full and curtailed majority verdicts identical: yes"
