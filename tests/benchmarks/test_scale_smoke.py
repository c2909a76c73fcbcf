"""Smoke tests of ``benchmarks/scale.py`` and ``benchmarks/interruption.py``: they run on
small inputs and print their figures. No timing assertions (figures depend on the machine)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _printed(script: str, *args: str) -> str:
    """What ``benchmarks/<script> args`` prints (it must exit 0)."""
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_scale_prints_a_row_per_size_and_layout() -> None:
    rows = [
        line.split()
        for line in _printed("scale.py", "--sizes", "50", "120", "--settle", "0").splitlines()[1:]
    ]
    assert [(row[0], row[8]) for row in rows] == [
        ("50", "files"),
        ("50", "one"),
        ("120", "files"),
        ("120", "one"),
    ]
    assert all(float(row[1]) > 0 and float(row[3]) > 0 and float(row[5]) >= 0 for row in rows)


def test_interruption_resumes_exactly_the_unfinished_cases() -> None:
    printed = _printed("interruption.py", "--cases", "40", "--delay", "0.02")
    assert "-> equal; run state complete, 40 records" in printed, printed


def test_interruption_prints_the_signal_table() -> None:
    printed = _printed("interruption.py", "--sizes", "60", "--after", "10", "--delay", "0.01")
    rows = [line.split() for line in printed.splitlines()[1:]]
    assert [(row[0], row[4]) for row in rows] == [("60", "130")]
    assert 10 <= int(rows[0][1]) < 60 and float(rows[0][3]) > 0


def test_scale_prepares_the_data_apart_as_make_data_writes_it(tmp_path: Path) -> None:
    """The forked preparation (which keeps the data's memory out of the measured runs' peak)
    writes the same files and gives the same manifest as ``make_data`` here."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import scale
    finally:
        sys.path.remove(str(BENCHMARKS))
    manifest, floor = scale.prepared(tmp_path / "apart", 30, per_file=None)
    here = scale.make_data(tmp_path / "here", 30, per_file=None)
    assert floor > 0
    assert json.dumps(manifest).replace("apart", "here") == json.dumps(here)
    for name in ("expected", "actual"):
        files = sorted((tmp_path / "apart" / name).iterdir())
        assert [f.name for f in files] == sorted(f.name for f in (tmp_path / "here" / name).iterdir())
        assert all(f.read_bytes() == (tmp_path / "here" / name / f.name).read_bytes() for f in files)


@pytest.mark.slow
def test_scale_times_adks_whole_process_in_wall_and_cpu(tmp_path: Path) -> None:
    """``run_adk`` gives ADK's loading and scoring and its whole process's wall and CPU
    seconds (the ratios ``scale.py`` prints against agenteval's process)."""
    pytest.importorskip("google.adk")
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import scale
    finally:
        sys.path.remove(str(BENCHMARKS))
    scale.prepared(tmp_path / "data", 20)
    adk = scale.run_adk(sys.executable, tmp_path / "data")
    assert adk is not None
    assert 0 < adk["work"] < adk["wall"]
    assert adk["cpu"] > 0 and adk["rss_mb"] > 0
    assert adk["version"].startswith("google-adk")


def test_scale_runs_a_baseline_checkout_beside_each_run() -> None:
    """``--baseline SRC`` as the docstring shows it (this very checkout's sources as SRC):
    each run has its baseline row right after it."""
    root = BENCHMARKS.parent
    baseline = ":".join(str(p) for p in [root / "engine" / "src", *sorted(root.glob("plugins/*/src"))])
    printed = _printed(
        "scale.py", "--sizes", "40", "80", "--layouts", "one", "--baseline", baseline, "--settle", "0"
    )
    rows = [line.split() for line in printed.splitlines()[1:] if line.split() and line.split()[0].isdigit()]
    assert [(row[0], row[8], row[-1]) for row in rows] == [
        ("40", "one", "actual)"),
        ("40", "one", "baseline"),
        ("80", "one", "actual)"),
        ("80", "one", "baseline"),
    ], printed
    assert all(float(row[1]) > 0 and float(row[7]) > 0 for row in rows)
