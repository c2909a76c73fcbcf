"""Smoke test of ``benchmarks/adk_agent_overhead.py``: a no-op ADK agent through
``agenteval run --agent`` on a few cases (without ``--adk-cli``: ADK's own CLI is not in the
test environment). No timing assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "adk_agent_overhead.py"


def test_adk_agent_overhead_runs_and_prints_a_row_per_size(tmp_path: Path) -> None:
    figures = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--cases", "2", "--repeat", "1", "--write", str(figures)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith("agenteval run --agent")]
    assert len(rows) == 1 and rows[0][3] == "2"
    total, startup, agent_phase, exit_, fixed, per_case = map(float, rows[0][4:])
    assert 0 < startup <= total and agent_phase >= 0 and exit_ >= 0 and per_case >= 0
    # --write: the row recorded, and the doc's row and sentence printed
    import json

    (row,) = json.loads(figures.read_text())["rows"]
    assert (row["tool"], row["cases"], row["adk_version"]) == ("agenteval run --agent", 2, None)
    said = done.stdout.split("docs/agents.md quotes:\n")[1].splitlines()
    assert said[0].startswith("| a no-op ADK agent (LlmAgent on a no-op `BaseLlm`), 2 cases | ")
    assert said[1].startswith("ADK agents: `benchmarks/adk_agent_overhead.py`, the median of 1 runs")
