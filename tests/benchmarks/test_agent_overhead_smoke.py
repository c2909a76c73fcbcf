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
