"""How `agenteval run` scales with the number of cases: 1k, 10k, 30k and 100k cases, whole process.

Each size is a seeded data set written by ``throughput.generate``: cases of one invocation
with three tool calls and a ~30-word response, expected files in ``expected/`` (with a
``test_config.json`` naming ``tool_trajectory_avg_score`` and ``response_match_score``) and
the agent's recorded turns (event form, some perturbed) in ``actual/``. Each size is measured
in two layouts side by side: ``files`` (1,000 cases per file) and ``one`` (every case in one
expected file and one actual file, as many real suites keep them). For each it runs, as a
user would::

    agenteval run expected/ --actual actual/bench_000.actual.evalset.json ... \\
        --format json --output result.json --quiet --runs-dir runs/

in a fresh process, and prints wall time, the ratio to the previous size of the same layout
(a linear cost gives about 10x per step), peak RSS of that process (``wait4``), the size of
the run folder, the floor (plain ``json.load`` of every expected and actual file, timed in
the process that wrote them), the ratio of the wall time to that floor, and the CPU time of the process
(user + system: on a shared machine the steadier figure). A run past ``--timeout`` seconds
is stopped and shown as such.

With ``--adk-python PATH`` (an interpreter with google-adk 2.13 and rouge-score, e.g. this
project's dev venv), ADK's own evaluators do the same scoring on the 10k files through
``_adk_runner.py`` (loading with ADK's loader, each criterion over every case); ADK's figure is
a lower bound (no CLI, no session handling, no result persistence). The line also gives ADK's
whole process (wall and CPU seconds) and agenteval's ratio to it in both (on a shared machine
the CPU ratio is the steadier one). Compare ratios within one run; absolute figures depend on
the machine.

The data is written, and the floor timed, in a forked process (``prepared``), never in this
one: Linux starts a subprocess with ``vfork`` and, at its ``exec``, carries the parent's
peak memory into the child's ``ru_maxrss``, so a parent that had held 100k cases in one file
(about 1.5 GB) would give every run it starts that peak.

    python benchmarks/scale.py                          # 1k, 10k, 30k, 100k; both layouts
    python benchmarks/scale.py --sizes 30000 --layouts one --timeout 180
    python benchmarks/scale.py --sizes 1000 10000 --adk-python .venv/bin/python

With ``--baseline SRC`` (``PYTHONPATH`` entries of another checkout, as ``readers.py`` takes
them) each run is followed by the same run of that checkout on the same data, shown on the
next line (``baseline``), and the 100k / 10k ratio is given for both.

Before each agenteval run it waits, at most ``--settle`` seconds (default 120; 0: never), for
a CPU idle by the rule the engine forks its helpers by (``_quiet.py``), so that no run is
measured in one process because the run before it left the load average high; the last line
says what the waits cost, and how many runs started on a busy machine anyway.

    python benchmarks/scale.py --sizes 10000 100000 \\
        --baseline "$(ls -d /tmp/base/engine/src /tmp/base/plugins/*/src | paste -sd:)"
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import throughput  # noqa: E402  (a sibling script: its seeded generator)
from _phases import as_installed  # noqa: E402  (a sibling module)
from _quiet import Quiet, settle_option  # noqa: E402  (a sibling module)

CRITERIA = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}
ADK_SPECS = {
    "tool_trajectory_avg_score": {
        "metric": "tool_trajectory_avg_score",
        "threshold": 1.0,
        "match_type": "EXACT",
    },
    "response_match_score": {"metric": "response_match_score", "threshold": 0.8},
}


#: Cases per file of each layout (``None``: every case in one file).
LAYOUTS = {"files": 1000, "one": None}


def make_data(folder: Path, cases: int, seed: int = 7, per_file: Optional[int] = 1000) -> dict[str, Any]:
    """Generate the files for ``cases`` cases, ``per_file`` to a file (``None``: one file);
    return the throughput-style manifest."""
    raw = folder / "raw"
    raw.mkdir(parents=True)
    manifest = throughput.generate(raw, cases, 1, per_file or cases, seed)
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


def json_floor(manifest: dict[str, Any]) -> float:
    """Seconds for plain ``json.load`` of every expected and actual file (the floor)."""
    started = time.perf_counter()
    for pair in manifest["pairs"]:
        for key in ("expected", "actual"):
            with open(pair[key], "rb") as handle:
                json.load(handle)
    return time.perf_counter() - started


def prepared(folder: Path, cases: int, per_file: Optional[int] = 1000) -> tuple[dict[str, Any], float]:
    """``make_data`` then ``json_floor``, in a forked process (see the module docstring):
    the manifest and the floor in seconds."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        return pool.submit(_prepare, folder, cases, per_file).result()


def _prepare(folder: Path, cases: int, per_file: Optional[int]) -> tuple[dict[str, Any], float]:
    manifest = make_data(folder, cases, per_file=per_file)
    return manifest, json_floor(manifest)


def run_agenteval(
    folder: Path, manifest: dict[str, Any], timeout: Optional[float] = None, pythonpath: Optional[str] = None
) -> dict[str, Any]:
    """One whole ``agenteval run`` process: wall seconds, peak RSS (MB), exit code (``None``
    when it was stopped after ``timeout`` seconds); ``pythonpath``: another checkout's."""
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
    if (folder / "runs").exists():
        shutil.rmtree(folder / "runs")
    env = None
    if pythonpath is not None:
        env = as_installed()
        env["PYTHONPATH"] = pythonpath
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    timer = threading.Timer(timeout, process.kill) if timeout else None
    if timer is not None:
        timer.start()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if timer is not None:
        timer.cancel()
    stderr = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    if timeout and code == -signal.SIGKILL:
        return {"wall": wall, "cpu": cpu, "rss_mb": usage.ru_maxrss / 1024, "exit": None, "record_mb": 0.0}
    if code not in (0, 1):
        raise SystemExit(f"agenteval run failed with exit {code}:\n{stderr}")
    run_folder = next((folder / "runs").iterdir())
    size = sum(p.stat().st_size for p in run_folder.iterdir())
    return {"wall": wall, "cpu": cpu, "rss_mb": usage.ru_maxrss / 1024, "exit": code, "record_mb": size / 1e6}


def run_adk(python: str, folder: Path) -> Optional[dict[str, Any]]:
    """ADK's evaluators on the same files: load once plus each criterion's scoring (lower bound),
    with the whole process's wall and CPU seconds (user + system, ``wait4``)."""
    command = [python, str(HERE / "_adk_runner.py"), str(folder / "manifest.json"), json.dumps(ADK_SPECS)]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode("utf-8"), err.read().decode("utf-8", "replace")
    if process.returncode != 0:
        print(f"the ADK runner failed:\n{stderr}", file=sys.stderr)
        return None
    report = json.loads(stdout)
    results = report["results"].values()
    work = min(r["load_seconds"] for r in results) + sum(r["evaluate_seconds"] for r in results)
    return {
        "work": work,
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": report["peak_rss_kb"] / 1024,
        "version": report["adk_version"],
    }


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 30000, 100000])
    parser.add_argument("--layouts", nargs="+", choices=list(LAYOUTS), default=list(LAYOUTS))
    parser.add_argument("--timeout", type=float, default=900, help="seconds before a run is stopped")
    parser.add_argument("--adk-python", help="an interpreter with google-adk 2.13 (compares at 10k)")
    parser.add_argument("--baseline", help="PYTHONPATH of another checkout, run after each run")
    settle_option(parser)
    args = parser.parse_args(argv)
    quiet = Quiet(args.settle)
    print(
        f"{'cases':>8} {'wall s':>8} {'x prev':>7} {'peak RSS MB':>12} {'record MB':>10} "
        f"{'floor s':>8} {'x floor':>8} {'CPU s':>7}  layout"
    )
    previous: dict[str, float] = {}
    walls: dict[tuple[str, int], float] = {}
    with tempfile.TemporaryDirectory(prefix="agenteval-scale-") as tmp:
        for size in args.sizes:
            for layout in args.layouts:
                folder = Path(tmp) / f"{size}-{layout}"
                manifest, floor = prepared(folder, size, per_file=LAYOUTS[layout])
                mine: Optional[dict[str, Any]] = None
                for tree in ("this", "baseline") if args.baseline else ("this",):
                    pythonpath = args.baseline if tree == "baseline" else None
                    key = layout if tree == "this" else f"{layout} (baseline)"
                    quiet.settle()
                    measured = run_agenteval(folder, manifest, args.timeout, pythonpath)
                    files = len(manifest["pairs"])
                    described = f"{layout} ({files} file{'s' if files > 1 else ''} of expected and of actual)"
                    if tree == "baseline":
                        described += ", baseline"
                    if measured["exit"] is None:
                        print(
                            f"{size:>8} {'>' + format(args.timeout, '.0f'):>8} {'-':>7} "
                            f"{measured['rss_mb']:>12.0f} {'-':>10} {floor:>8.2f} {'-':>8} "
                            f"{measured['cpu']:>7.1f}  "
                            f"{described}: stopped, not finished in {args.timeout:.0f} s",
                            flush=True,
                        )
                        previous.pop(key, None)
                        continue
                    walls[(key, size)] = measured["wall"]
                    ratio = f"{measured['wall'] / previous[key]:.1f}" if key in previous else "-"
                    print(
                        f"{size:>8} {measured['wall']:>8.2f} {ratio:>7} {measured['rss_mb']:>12.0f} "
                        f"{measured['record_mb']:>10.1f} {floor:>8.2f} {measured['wall'] / floor:>8.1f} "
                        f"{measured['cpu']:>7.1f}  "
                        f"{described}",
                        flush=True,
                    )
                    previous[key] = measured["wall"]
                    mine = measured if tree == "this" else mine
                if mine is not None and args.adk_python and size == 10000 and layout == "files":
                    adk = run_adk(args.adk_python, folder)
                    if adk is not None:
                        print(
                            f"{'':>8} ADK ({adk['version']}) on the same 10k files: "
                            f"{adk['work']:.2f} s of loading and scoring "
                            f"(process {adk['wall']:.2f} s, {adk['cpu']:.1f} CPU s, peak RSS "
                            f"{adk['rss_mb']:.0f} MB); agenteval's whole process is "
                            f"{adk['work'] / mine['wall']:.1f}x faster than that, "
                            f"{adk['wall'] / mine['wall']:.1f}x than ADK's whole process "
                            f"({adk['cpu'] / mine['cpu']:.1f}x in CPU s)",
                            flush=True,
                        )
    for layout in args.layouts:
        for key in (layout, f"{layout} (baseline)"):
            if (key, 10000) in walls and (key, 100000) in walls:
                ratio = walls[(key, 100000)] / walls[(key, 10000)]
                print(f"100k / 10k wall time, {key}: {ratio:.2f}x (linear: 10x)")
    quiet.report()
    return 0


if __name__ == "__main__":
    sys.exit(main())
