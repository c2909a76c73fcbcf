"""Smoke tests of ``benchmarks/judge_concurrency.py``: the admission table (a row per judge and
limit, with the calls curtailed sampling used and saved) and the runs through the SDK (where
the judge slots' time went). No timing assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "judge_concurrency.py"


def _printed(*args: str) -> str:
    """What the benchmark prints with ``args`` (it must exit 0)."""
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_admission_table_has_a_row_per_judge_and_limit() -> None:
    printed = _printed("--only", "admission", "--invocations", "10", "--latency", "0.01")
    rows = [line.split() for line in printed.splitlines() if line.endswith("%")]
    # judge, limit, calls, saved (the judge "2 to 1" is three words)
    table = {(row[0], int(row[-6])): (int(row[-5]), int(row[-4])) for row in rows}
    assert list(table) == [(judge, limit) for judge in ("unanimous", "2") for limit in (16, 32, 64)]
    assert table["unanimous", 16] == (30, 20)  # 3 of 5 samples each: 2 saved per invocation
    assert table["2", 64] == (40, 10)  # one "no": a 4th sample, the 5th saved


def test_the_sdk_run_says_where_the_judge_slots_time_went() -> None:
    pytest.importorskip("google.genai")
    printed = _printed("--only", "sdk", "--invocations", "4", "--latency", "0.01")
    assert "first run:  12 judge calls" in printed  # curtailed: 3 of 5 samples each
    [slots] = [line for line in printed.splitlines() if "judge slots held over the span" in line]
    assert "Nagle off" in slots and " of 16; slot time per call " in slots
    assert "429 storm" not in printed  # --only sdk: the SDK runs alone


def test_the_fake_server_s_nagle_stall_can_be_put_back_to_compare() -> None:
    pytest.importorskip("google.genai")
    printed = _printed("--only", "sdk", "--server-nagle", "--invocations", "4", "--latency", "0.01")
    [slots] = [line for line in printed.splitlines() if "judge slots held over the span" in line]
    assert "Nagle on" in slots
