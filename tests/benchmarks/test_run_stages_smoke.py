"""Smoke tests of ``benchmarks/run_stages.py``: it prints a CPU figure per stage of a small
run, and ``--same`` finds a tree's outputs the same bytes as its own. No timing assertions."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "run_stages.py"


def _printed(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600)


def _this_tree() -> str:
    """This checkout's engine and plugin sources as a ``PYTHONPATH`` (a baseline equal to it)."""
    return os.pathsep.join(
        [str(ROOT / "engine" / "src"), *sorted(str(p) for p in (ROOT / "plugins").glob("*/src"))]
    )


def test_each_stage_has_a_figure() -> None:
    done = _printed("--sizes", "60", "--layouts", "one", "--settle", "0")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "60 cases, one: CPU s"
    figures = {line[:38].strip(): line[38:].strip() for line in lines[1:] if line.strip()}
    for stage in ("loading and planning", "scoring", "writing the record", "finishing a case"):
        assert float(figures[stage]) > 0, figures
    assert float(figures["process (user + sys)"]) >= float(figures["scoring"])


def test_a_tree_writes_the_same_bytes_as_itself() -> None:
    done = _printed("--sizes", "40", "--layouts", "files", "--baseline", _this_tree(), "--same")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "40 cases, files: records, index, scores, summaries, report identical"


def test_same_needs_a_baseline() -> None:
    done = _printed("--sizes", "40", "--same")
    assert done.returncode == 2
    assert "--same needs --baseline" in done.stderr


def _outputs(root: Path, summary: bytes) -> Path:
    folder = root / "runs" / "20260101T000000000000Z-pinned"
    folder.mkdir(parents=True)
    for name in ("results.jsonl", "scores.jsonl", "index.jsonl", "set_summaries.jsonl"):
        (folder / name).write_bytes(b"[1]\n")
    (folder / "summary.json").write_bytes(summary)
    (root / "result.json").write_bytes(b"{}")
    return root


def test_a_byte_that_differs_is_named(tmp_path: Path) -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import run_stages
    finally:
        sys.path.remove(str(SCRIPT.parent))
    this = _outputs(tmp_path / "this", b'{"low": 0.91}')
    assert run_stages.differences(this, _outputs(tmp_path / "same", b'{"low": 0.91}')) == []
    assert run_stages.differences(this, _outputs(tmp_path / "other", b'{"low": 0.92}')) == ["summary.json"]


def test_reports_of_two_releases_differ_in_more_than_the_engine_version_to_differ(tmp_path: Path) -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import run_stages
    finally:
        sys.path.remove(str(SCRIPT.parent))
    this, older, other = (_outputs(tmp_path / name, b'{"low": 0.91}') for name in ("this", "older", "other"))
    (this / "result.json").write_bytes(b'{"engine_version": "0.20.0", "passed": true}')
    (older / "result.json").write_bytes(b'{"engine_version": "0.19.6", "passed": true}')
    (other / "result.json").write_bytes(b'{"engine_version": "0.19.6", "passed": false}')
    assert run_stages.differences(this, older) == []
    assert run_stages.differences(this, other) == ["result.json"]
