"""How `agenteval run` scales with the number of cases: 1k, 10k and 100k cases, whole process.

Each size is a seeded data set written by ``throughput.generate``: cases of one invocation
with three tool calls and a ~30-word response, 1,000 cases per file, expected files in
``expected/`` (with a ``test_config.json`` naming ``tool_trajectory_avg_score`` and
``response_match_score``) and the agent's recorded turns (event form, some perturbed) in
``actual/``. For each size it runs, as a user would::

    agenteval run expected/ --actual actual/bench_000.actual.evalset.json ... \\
        --format json --output result.json --quiet --runs-dir runs/

in a fresh process, and prints wall time, peak RSS of that process (``wait4``), the size of
the run folder, and the ratio to the previous size (a linear cost gives about 10x per step).

With ``--adk-python PATH`` (an interpreter with google-adk 2.13 and rouge-score, e.g. this
project's dev venv), ADK's own evaluators do the same scoring on the 10k files through
``_adk_runner.py`` (loading with ADK's loader, each criterion over every case); ADK's figure is
a lower bound (no CLI, no session handling, no result persistence). Compare ratios within one
run; absolute figures depend on the machine.

    python benchmarks/scale.py                          # 1k, 10k, 100k
    python benchmarks/scale.py --sizes 1000 10000 --adk-python .venv/bin/python
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

import throughput  # noqa: E402  (a sibling script: its seeded generator)

CRITERIA = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}
ADK_SPECS = {
    "tool_trajectory_avg_score": {
        "metric": "tool_trajectory_avg_score",
        "threshold": 1.0,
        "match_type": "EXACT",
    },
    "response_match_score": {"metric": "response_match_score", "threshold": 0.8},
}


def make_data(folder: Path, cases: int, seed: int = 7) -> dict[str, Any]:
    """Generate the files for ``cases`` cases; return the throughput-style manifest."""
    raw = folder / "raw"
    raw.mkdir(parents=True)
    manifest = throughput.generate(raw, cases, 1, 1000, seed)
    expected, actual = folder / "expected", folder / "actual"
    expected.mkdir()
    actual.mkdir()
    for pair in manifest["pairs"]:
        for key, target in (("expected", expected), ("actual", actual)):
            source = Path(pair[key])
            moved = target / source.name
            source.rename(moved)
            pair[key] = str(moved)
    (expected / "test_config.json").write_text(json.dumps({"criteria": CRITERIA}), encoding="utf-8")
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return manifest


def run_agenteval(folder: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """One whole ``agenteval run`` process: wall seconds, peak RSS (MB), exit code."""
    command = [
        sys.executable,
        "-m",
        "agenteval",
        "run",
        str(folder / "expected"),
        *[arg for pair in manifest["pairs"] for arg in ("--actual", pair["actual"])],
        "--format",
        "json",
        "--output",
        str(folder / "result.json"),
        "--quiet",
        "--runs-dir",
        str(folder / "runs"),
    ]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    stderr = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"agenteval run failed with exit {code}:\n{stderr}")
    run_folder = next((folder / "runs").iterdir())
    size = sum(p.stat().st_size for p in run_folder.iterdir())
    return {"wall": wall, "rss_mb": usage.ru_maxrss / 1024, "exit": code, "record_mb": size / 1e6}


def run_adk(python: str, folder: Path) -> Optional[dict[str, Any]]:
    """ADK's evaluators on the same files: load once plus each criterion's scoring (lower bound)."""
    command = [python, str(HERE / "_adk_runner.py"), str(folder / "manifest.json"), json.dumps(ADK_SPECS)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        print(f"the ADK runner failed:\n{done.stderr}", file=sys.stderr)
        return None
    report = json.loads(done.stdout)
    results = report["results"].values()
    work = min(r["load_seconds"] for r in results) + sum(r["evaluate_seconds"] for r in results)
    return {
        "work": work,
        "wall": wall,
        "rss_mb": report["peak_rss_kb"] / 1024,
        "version": report["adk_version"],
    }


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--adk-python", help="an interpreter with google-adk 2.13 (compares at 10k)")
    args = parser.parse_args(argv)
    print(f"{'cases':>8} {'wall s':>8} {'x prev':>7} {'peak RSS MB':>12} {'record MB':>10}")
    previous: Optional[float] = None
    walls: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="agenteval-scale-") as tmp:
        for size in args.sizes:
            folder = Path(tmp) / str(size)
            manifest = make_data(folder, size)
            measured = run_agenteval(folder, manifest)
            walls[size] = measured["wall"]
            ratio = f"{measured['wall'] / previous:.1f}" if previous else "-"
            print(
                f"{size:>8} {measured['wall']:>8.2f} {ratio:>7} {measured['rss_mb']:>12.0f} "
                f"{measured['record_mb']:>10.1f}",
                flush=True,
            )
            previous = measured["wall"]
            if args.adk_python and size == 10000:
                adk = run_adk(args.adk_python, folder)
                if adk is not None:
                    print(
                        f"{'':>8} ADK ({adk['version']}) on the same 10k files: "
                        f"{adk['work']:.2f} s of loading and scoring "
                        f"(process {adk['wall']:.2f} s, peak RSS {adk['rss_mb']:.0f} MB); "
                        f"agenteval's whole process is {adk['work'] / measured['wall']:.1f}x faster",
                        flush=True,
                    )
    if 10000 in walls and 100000 in walls:
        print(f"100k / 10k wall time: {walls[100000] / walls[10000]:.1f}x (linear: 10x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
