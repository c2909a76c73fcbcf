"""Smoke test of ``benchmarks/otel_import.py``: a row per mode asked for, on a few traces. No
timing assertions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.fixtures.doc_figures import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "otel_import.py"


def test_otel_import_prints_a_row_per_mode() -> None:
    modes = ["actual", "actual 1%", "import-trace", "lint-trace", "document"]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--sizes", "20", "--modes", ",".join(modes)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[1:]]
    read = [" ".join(row[3:-6]) for row in rows]
    assert read == ["(imports only)", *modes]
    assert all(row[:2] == ["20", "1000"] for row in rows)  # 50 spans a trace
    assert all(float(row[-3]) > 0 for row in rows)  # peak MB
    assert all(row[-2] == "0" for row in rows)  # helper MB: a small file is read by one process
    assert all(row[-1] == row[-5] for row in rows)  # 2-core s: one process's CPU seconds


def test_otel_import_can_read_with_a_helper_process_at_any_size() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--sizes", "20", "--modes", "actual,lint-trace", "--helper-from", "0"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[2:]]
    assert [row[3] for row in rows] == ["actual", "lint-trace"]
    assert all(float(row[-2]) > 0 for row in rows)  # the helper's peak MB
    assert all(0 < float(row[-1]) for row in rows)  # 2-core s


def test_otel_import_measures_a_baseline_side_by_side() -> None:
    root = SCRIPT.parents[1]
    source = ":".join(str(root / part) for part in ("engine/src", "plugins/otel/src", "plugins/builtin/src"))
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--sizes", "20", "--modes", "lint-trace", "--baseline", source],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    header, *rows = (line.split() for line in done.stdout.splitlines())
    assert header[-1] == "CPU/base"
    assert [" ".join(row[3:-11]) for row in rows] == ["(imports only)", "lint-trace"]
    assert all(float(row[-3]) > 0 for row in rows)  # the baseline's peak MB


def test_otel_import_records_its_figures_for_the_doc(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--sizes", "20", "--modes", "actual,lint-trace", "--write", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert [(row["traces"], row["mode"]) for row in figures["rows"]] == [(20, "actual"), (20, "lint-trace")]
    lines = load_script(SCRIPT).doc_lines(figures)
    assert lines["20"].startswith("20 traces (0.7 MB of JSONL): `--actual`: ")
    assert "; `lint-trace`: " in lines["20"]
    for line in lines.values():  # what the script printed for the doc
        assert line in done.stdout
