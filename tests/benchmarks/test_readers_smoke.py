"""Smoke test of ``benchmarks/readers.py``: it writes each kind of run folder and times the
readers asked for, the least of ``--repeat`` runs each. No timing assertions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "readers.py"


def test_readers_prints_a_row_per_reader_and_a_column_per_kind() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--sizes", "120", "--repeat", "2", "--readers", "show", "compare"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    header = lines.index("120 cases")
    assert lines[header + 1].split() == ["reader", "complete", "interrupted", "killed", "3", "runs"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[header + 2 : header + 4]}
    assert list(rows) == ["show", "compare"]
    for cells in rows.values():  # wall (CPU) for each of the four kinds
        assert len(cells) == 8 and all(float(cell.strip("()")) > 0 for cell in cells)
    memory = lines.index("120 cases: peak resident MB")
    assert lines[memory + 1].split() == lines[header + 1].split()
    peaks = {line.split()[0]: line.split()[1:] for line in lines[memory + 2 : memory + 4]}
    assert list(peaks) == ["show", "compare"]
    for cells in peaks.values():  # a Python process's peak: tens of MB at least
        assert len(cells) == 4 and all(float(cell) > 10 for cell in cells)


def test_same_says_every_kind_reports_the_same_bytes_under_the_same_code(tmp_path: Path) -> None:
    """``--same`` against this very checkout as the baseline: each kind says ``same bytes``."""
    root = Path(__file__).resolve().parents[2]
    baseline = ":".join(str(root / p) for p in ("engine/src", "plugins/viewer/src", "plugins/builtin/src"))
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--sizes", "120", "--keep", str(tmp_path), "--same"]
        + ["--baseline", baseline, "--reporters", "markdown", "github"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    said = [line for line in done.stdout.splitlines() if line.startswith("  120 cases, ")]
    assert [line.split(": ")[1] for line in said] == ["same bytes"] * 4


def test_a_reader_runs_in_the_environment_it_is_given() -> None:
    """A baseline's ``PYTHONPATH`` reaches the reader's process: a reader started without
    its environment ran this checkout's code as the baseline (and ``--same`` compared a
    checkout with itself)."""
    import os

    from tests.fixtures.doc_figures import load_script

    readers = load_script(SCRIPT)
    check = [
        sys.executable,
        "-c",
        "import os, sys; sys.exit(0 if os.environ.get('READER_ENV') == 'yes' else 2)",
    ]
    wall, cpu, peak = readers._timed(check, {**os.environ, "READER_ENV": "yes"})
    assert wall > 0 and peak > 0
    try:
        readers._timed(check, {**os.environ, "READER_ENV": "no"})
    except SystemExit as stopped:
        assert "exited 2" in str(stopped)
    else:
        raise AssertionError("the environment given did not reach the reader")
