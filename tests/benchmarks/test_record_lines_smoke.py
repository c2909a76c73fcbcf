"""Smoke test of ``benchmarks/record_lines.py``: both line forms of each kind of run are
written, read back as the same records, and timed. No timing assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "record_lines.py"


def test_record_lines_prints_both_forms_and_their_ratio_for_each_kind() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--sizes", "60", "--repeat", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[1:]]
    forms = [(row[1] if row[1] == "complete" else "3 runs", row[-4]) for row in rows]
    assert forms == [(kind, form) for kind in ("complete", "3 runs") for form in ("old", "new", "new/old")]
    for row in rows:  # MB, then CPU seconds of each read
        assert float(row[-3]) > 0 and all(float(cell) >= 0 for cell in row[-2:])
    ratios = [row for row in rows if row[-4] == "new/old"]
    assert all(float(row[-3]) < 1 for row in ratios)  # the new lines are smaller
