"""How long `agenteval merge` takes to join shards: 1k, 10k and 100k cases, two shards.

For each size, ``scale.make_data`` writes the cases (one eval set of them, as one file: a
turn of three tool calls and ~30 words, some perturbed), then two ``agenteval run ... --actual
... --shard I/2`` processes (side by side) record the two shards, and one ``agenteval merge``
process, started as a user starts it, joins them into a new run folder. It prints the merge's
wall and CPU seconds, its peak memory, and the shards' own wall seconds for scale.

With ``--baseline SRC`` (``PYTHONPATH`` entries of another checkout, e.g. ``git archive
main`` unpacked: its ``engine/src`` and ``plugins/*/src``) the same shards are merged by
that code too, right after, into a folder of the same name beside it, and the two merged
folders' records, index, scores, summary and manifest (but for its ``argv`` and ``cwd``)
must be the same bytes (exit 1 when they are not).

    python benchmarks/merge.py                          # 1k and 10k
    python benchmarks/merge.py --sizes 1000 10000 100000
    python benchmarks/merge.py --baseline "$(ls -d /tmp/base/engine/src /tmp/base/plugins/*/src | paste -sd:)"
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import scale  # noqa: E402 - beside this script
from _phases import as_installed  # noqa: E402 - beside this script

#: The merged folder's files compared with ``--baseline``.
COMPARED = ("results.jsonl", "index.jsonl", "scores.jsonl", "summary.json", "manifest.json")


def _shards(folder: Path, manifest: dict[str, Any]) -> tuple[list[Path], float]:
    """Record the two shards side by side: their run folders and the wall seconds."""
    actual = [arg for pair in manifest["pairs"] for arg in ("--actual", pair["actual"])]
    started = time.perf_counter()
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "agenteval", "run", str(folder / "expected"), *actual, "--quiet"]
            + ["--runs-dir", str(folder / f"shard{index}"), "--shard", f"{index}/2", "--format", "json"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for index in (1, 2)
    ]
    for process in processes:
        _, stderr = process.communicate()
        if process.returncode not in (0, 1):
            raise SystemExit(f"a shard failed with exit {process.returncode}:\n{stderr.decode()}")
    return [next((folder / f"shard{index}").iterdir()) for index in (1, 2)], time.perf_counter() - started


def _merge(shards: list[Path], output: Path, pythonpath: Optional[str] = None) -> dict[str, float]:
    """One whole ``agenteval merge`` process: wall and CPU seconds, peak memory (MB)."""
    env = None
    if pythonpath is not None:
        env = as_installed()
        env["PYTHONPATH"] = pythonpath
    command = [sys.executable, "-m", "agenteval", "merge", *map(str, shards), "-o", str(output)]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
    if code not in (0, 1):
        raise SystemExit(f"agenteval merge failed with exit {code}:\n{stderr}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024}


def _same(one: Path, other: Path) -> list[str]:
    """The compared files that differ between two merged folders (the manifest without the
    command line and working directory it records)."""
    differ = []
    for name in COMPARED:
        a, b = (one / name).read_bytes(), (other / name).read_bytes()
        if name == "manifest.json":
            a, b = (json.dumps({**json.loads(x), "argv": None, "cwd": None}).encode() for x in (a, b))
        if a != b:
            differ.append(name)
    return differ


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--baseline", help="PYTHONPATH of another checkout, merged after this one")
    args = parser.parse_args(argv)
    failed = False
    header = f"{'cases':>8} {'shards s':>9} {'merge s':>8} {'CPU s':>6} {'peak MB':>8}"
    print(header + (f" {'baseline s':>10} {'CPU s':>6} {'peak MB':>8} {'same':>5}" if args.baseline else ""))
    for size in args.sizes:
        with tempfile.TemporaryDirectory(prefix="agenteval-merge-") as tmp:
            folder = Path(tmp)
            manifest, _ = scale.prepared(folder, size, per_file=None)
            shards, shard_seconds = _shards(folder, manifest)
            this = _merge(shards, folder / "this" / "merged")
            line = f"{size:>8} {shard_seconds:>9.2f} {this['wall']:>8.2f} {this['cpu']:>6.2f}"
            line += f" {this['rss_mb']:>8.0f}"
            if args.baseline:
                base = _merge(shards, folder / "base" / "merged", args.baseline)
                differ = _same(folder / "this" / "merged", folder / "base" / "merged")
                failed |= bool(differ)
                same = "yes" if not differ else "NO: " + ", ".join(differ)
                line += f" {base['wall']:>10.2f} {base['cpu']:>6.2f} {base['rss_mb']:>8.0f} {same:>5}"
            print(line, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
