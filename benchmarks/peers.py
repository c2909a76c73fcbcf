"""agenteval against its peers on trajectories alone: the same cases, whole processes, same verdicts.

Each size is the seeded data of ``scale.py`` (cases of one invocation with three tool calls,
some perturbed, 1,000 cases to a file) scored for an exact trajectory match only:

* agenteval: ``agenteval run expected/ --actual ... --format json --output verdicts.json``
  with ``tool_trajectory_avg_score`` at threshold 1 (ADK's EXACT match);
* LangChain agentevals (``strict``, exact arguments), DeepEval (``ToolCorrectnessMetric`` with
  exact match over names and input parameters) and a bare script around google-adk's
  ``TrajectoryEvaluator``, each run by ``_peer_runner.py`` in the interpreter given for it.

Every tool runs as a whole process (imports, reading the files, scoring, writing verdicts),
``--repeats`` times one after another; the median wall time is printed with its CPU time and
the ratio of the tool's time to agenteval's. Every tool's per-case verdicts must equal
agenteval's; a disagreement is printed and the script exits 1. A peer without an interpreter
is skipped with a line saying so. Compare ratios within one run; the machine is shared.
Before each run it waits, at most ``--settle`` seconds, for an idle CPU (``_quiet.py``: the
rule the engine forks its helpers by), so that agenteval is not measured in one process for
the load a peer's run left.

    python benchmarks/peers.py --agentevals-python /tmp/ae/bin/python \\
        --deepeval-python /tmp/de/bin/python --adk-python .venv/bin/python
    python benchmarks/peers.py --make-venvs ~/.cache/agenteval-peers   # creates the two peers' venvs

``--make-venvs DIR`` creates ``DIR/agentevals`` and ``DIR/deepeval`` (with ``uv`` when it is on
PATH, else ``venv`` + pip) holding the versions in ``PEERS`` and uses them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import scale  # noqa: E402  (a sibling script: its seeded data)
from _quiet import Quiet, settle_option  # noqa: E402  (a sibling module)

#: The peers' distributions, pinned to the versions measured.
PEERS = {"agentevals": "agentevals==0.0.9", "deepeval": "deepeval==4.3.1"}
CRITERIA = {"tool_trajectory_avg_score": 1.0}


def make_data(folder: Path, cases: int) -> dict[str, Any]:
    """``scale.py``'s files for ``cases`` cases, configured for the trajectory criterion alone."""
    manifest = scale.make_data(folder, cases)
    config = folder / "expected" / "test_config.json"
    config.write_text(json.dumps({"criteria": CRITERIA}), encoding="utf-8")
    return manifest


def timed(command: list[str], env: Optional[dict[str, str]] = None) -> tuple[float, float]:
    """Run ``command`` to the end: (wall seconds, CPU seconds of the process). Exit 2+ stops."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        stderr = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
        raise SystemExit(f"{command[:3]} failed with exit {code}:\n{stderr[-3000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def agenteval_verdicts(report: Path) -> dict[str, bool]:
    """``{eval_id: passed}`` from agenteval's JSON report."""
    document = json.loads(report.read_text(encoding="utf-8"))
    return {
        case["eval_id"]: case["status"] == "PASSED"
        for eval_set in document["eval_sets"]
        for case in eval_set["cases"]
    }


def run_agenteval(folder: Path, manifest: dict[str, Any], out: Path) -> tuple[float, float]:
    runs = folder / "runs"
    shutil.rmtree(runs, ignore_errors=True)
    command = [sys.executable, "-m", "agenteval", "run", str(folder / "expected")]
    command += [arg for pair in manifest["pairs"] for arg in ("--actual", pair["actual"])]
    command += ["--format", "json", "--output", str(out), "--quiet", "--runs-dir", str(runs)]
    return timed(command)


def run_peer(python: str, tool: str, folder: Path, out: Path) -> tuple[float, float]:
    command = [python, str(HERE / "_peer_runner.py"), tool, str(folder / "manifest.json"), str(out)]
    return timed(command, env={**os.environ, "PYTHONWARNINGS": "ignore"})


def make_venvs(root: Path) -> dict[str, str]:
    """Create (or reuse) one venv per peer under ``root``; return each one's interpreter."""
    interpreters = {}
    for tool, requirement in PEERS.items():
        venv = root / tool
        python = venv / "bin" / "python"
        if not python.exists():
            if shutil.which("uv"):
                subprocess.run(["uv", "venv", "-q", str(venv), "--python", sys.executable], check=True)
                install = ["uv", "pip", "install", "-q", "--python", str(python), requirement]
            else:
                subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
                install = [str(python), "-m", "pip", "install", "-q", requirement]
            subprocess.run(install, check=True)
        interpreters[tool] = str(python)
    return interpreters


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeats", type=int, default=3, help="runs per tool; the median is printed")
    parser.add_argument("--agentevals-python", help="an interpreter with agentevals installed")
    parser.add_argument("--deepeval-python", help="an interpreter with deepeval installed")
    parser.add_argument("--adk-python", help="an interpreter with google-adk 2.13 installed")
    parser.add_argument("--make-venvs", type=Path, help="create the agentevals and deepeval venvs here")
    settle_option(parser)
    args = parser.parse_args(argv)
    quiet = Quiet(args.settle)
    interpreters = {
        "agentevals": args.agentevals_python,
        "deepeval": args.deepeval_python,
        "adk": args.adk_python,
    }
    if args.make_venvs:
        interpreters.update(make_venvs(args.make_venvs.expanduser()))
    for tool, python in interpreters.items():
        if not python:
            print(f"{tool}: skipped (no interpreter given: --{tool}-python PATH)")
    print(f"{'cases':>8}  {'tool':<11} {'wall s':>8} {'CPU s':>7} {'x agenteval':>12}  verdicts")
    disagreements = 0
    with tempfile.TemporaryDirectory(prefix="agenteval-peers-") as tmp:
        for size in args.sizes:
            folder = Path(tmp) / str(size)
            manifest = make_data(folder, size)
            walls: dict[str, list[tuple[float, float]]] = {}
            verdicts: dict[str, dict[str, bool]] = {}
            tools = ["agenteval"] + [tool for tool, python in interpreters.items() if python]
            for _ in range(args.repeats):
                for tool in tools:  # one after another, interleaved, so drift hits every tool alike
                    out = folder / f"{tool}.json"
                    quiet.settle()  # every tool starts on the same quiet machine
                    if tool == "agenteval":
                        measured = run_agenteval(folder, manifest, out)
                        verdicts[tool] = agenteval_verdicts(out)
                    else:
                        measured = run_peer(interpreters[tool], tool, folder, out)
                        verdicts[tool] = json.loads(out.read_text(encoding="utf-8"))
                    walls.setdefault(tool, []).append(measured)
            ours = statistics.median(wall for wall, _ in walls["agenteval"])
            for tool in tools:
                wall = statistics.median(w for w, _ in walls[tool])
                cpu = statistics.median(c for _, c in walls[tool])
                differ = sorted(
                    k for k in verdicts["agenteval"] if verdicts[tool].get(k) != verdicts["agenteval"][k]
                )
                passed = sum(verdicts[tool].values())
                agreement = f"{passed} of {len(verdicts[tool])} passed"
                if differ:
                    disagreements += 1
                    agreement += f"; DIFFERS from agenteval on {len(differ)} cases, e.g. {differ[:3]}"
                elif tool != "agenteval":
                    agreement += ", same verdicts as agenteval"
                print(
                    f"{size:>8}  {tool:<11} {wall:>8.2f} {cpu:>7.2f} {wall / ours:>12.2f}  {agreement}",
                    flush=True,
                )
    quiet.report()
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
