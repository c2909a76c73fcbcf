"""Smoke test of ``benchmarks/adk_agent_overhead.py``: a no-op ADK agent through
``agenteval run --agent`` on a few cases (without ``--adk-cli``: ADK's own CLI is not in the
test environment). No timing assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "adk_agent_overhead.py"


def test_adk_agent_overhead_runs_and_prints_a_row_per_size() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--cases", "2", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith("agenteval run --agent")]
    assert len(rows) == 1 and rows[0][3] == "2"
    total, startup, agent_phase, exit_, fixed, per_case = map(float, rows[0][4:])
    assert 0 < startup <= total and agent_phase >= 0 and exit_ >= 0 and per_case >= 0
