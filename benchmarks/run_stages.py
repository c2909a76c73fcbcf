"""Where the CPU of one `agenteval run` goes, stage by stage, without a profiler's distortion.

``scale.py`` gives a whole process's CPU; a profiler says where it goes but inflates every
Python call (cProfile about 2-3x on the run's per-case code), so its shares mislead. This
script runs ``agenteval run expected/ --actual ... --format json`` on ``scale.py``'s data in
a fresh process that counts the CPU of the calling thread (``time.thread_time``) inside a
few of the engine's own functions, and prints, per stage, the CPU seconds:

- loading and planning (``assemble``: reading and validating every eval file; also in wall
  seconds, which count this process waiting for the second one),
- scoring (``score_run``: the criteria, and the results built from their scores), and the
  units' results taken from the helper that scores ahead (``ScoreAhead.take``: reading and
  validating them; a run of 2,000 units or more with a CPU idle, ``agenteval._run._ahead``),
- the record (``case_record``) and writing it (``RunWriter.append``; of which encoding it,
  ``CaseRecord.dump``),
- finishing a case (``EvalRun._finish_case``; of which the report's spool, the summary and
  its per-set statistics, and the case's result from its records),
- the run's result (``EvalRun._result``) and the report (``finish_run``: rendering it,
  writing it, the exit),
- the rest of the process (imports, the loop that starts and drives each unit) as what is
  left of its CPU, and the second processes (``children``): the one planning uses to check
  JSON ahead and, in a run past the eval-file budget, validate the cases it will not keep;
  and the helper that scores ahead;
- the cases read again alone from their files (``CaseSpans.case``: a run whose cases cost
  more than the eval-file budget keeps a share of them and validates the others again when
  it reaches them), part of loading and of the units' loop.

Before each timed run it waits, at most ``--settle`` seconds, for an idle CPU (``_quiet.py``),
so that every run has the helpers a run on a quiet machine has.

A stage whose function an older engine lacks shows ``-``. ``score_run`` is a coroutine: its
figure is right for criteria that never wait (a judge's waits would add other tasks' CPU).

With ``--baseline SRC`` (``PYTHONPATH`` entries of another checkout, as ``readers.py``
takes them) each figure is ``this / baseline``, the two runs one after the other. With
``--same`` (and ``--baseline``) it times nothing: both trees run with the run id fixed and
the scoring clock stopped (every duration 0), and the run folder's records, index, scores
and summaries and the JSON report must be the same bytes, but for the report's
``engine_version`` (exit 1 when they are not).

    python benchmarks/run_stages.py --sizes 10000 --layouts one files
    python benchmarks/run_stages.py --sizes 10000 \\
        --baseline "$(ls -d /tmp/base/engine/src /tmp/base/plugins/*/src | paste -sd:)"
    python benchmarks/run_stages.py --sizes 2000 --baseline SRC --same
"""

from __future__ import annotations

import argparse
import functools
import importlib
import inspect
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _phases import as_installed  # noqa: E402  (a sibling module)

#: (label, module, attribute path, other modules that hold the function under its name)
STAGES: list[tuple[str, str, str, tuple[str, ...]]] = [
    ("loading and planning", "agenteval._run._assemble", "assemble", ("agenteval._run",)),
    ("scoring", "agenteval._run._scoring", "score_run", ("agenteval._run._evalrun",)),
    ("scores taken from the helper", "agenteval._run._ahead", "ScoreAhead.take", ()),
    ("  results from scores", "agenteval._run._scoring", "_to_result", ()),
    ("the record", "agenteval._run._unit", "case_record", ("agenteval._run._evalrun",)),
    ("writing the record", "agenteval.runs._folder", "RunWriter.append", ()),
    ("  encoding it", "agenteval.runs._records", "record_line|CaseRecord.dump", ("agenteval.runs._folder",)),
    ("finishing a case", "agenteval._run._evalrun", "EvalRun._finish_case", ()),
    ("  report spool", "agenteval._reporting._spool", "CaseSpool.add", ()),
    ("  summary", "agenteval._verdicts", "SummaryBuilder.add", ()),
    ("    per-set statistics", "agenteval._verdicts", "SummaryBuilder._statistics", ()),
    ("  result from records", "agenteval._run._evalrun", "EvalRun._case_result", ()),
    ("the run's result", "agenteval._run._evalrun", "EvalRun._result", ()),
    ("the report and the exit", "agenteval.cli._finish", "finish_run", ("agenteval.cli._run",)),
    ("cases read again alone", "agenteval._loading._case_spans", "CaseSpans.case", ()),
]
#: The stages also timed in wall seconds (planning waits for the second process), and the
#: suffix of that row.
WALLED = ("loading and planning",)
WALL = ", wall s"
#: The stages that do not run inside one another (their sum is taken from the process CPU).
TOP = (
    "loading and planning",
    "scoring",
    "the record",
    "writing the record",
    "finishing a case",
    "the run's result",
    "the report and the exit",
)
#: The run folder's files (and the report) ``--same`` compares.
COMPARED = ("results.jsonl", "scores.jsonl", "index.jsonl", "summary.json", "set_summaries.jsonl")


# -- the measured process ------------------------------------------------------------------


def _wrap(spent: dict[str, float], label: str, module: str, path: str, holders: tuple[str, ...]) -> None:
    """Count the thread CPU spent inside ``module.path`` under ``label`` (absent: skipped;
    ``a|b``: the first of the paths the engine has)."""
    for each in path.split("|"):
        try:
            owner: Any = importlib.import_module(module)
            *parents, name = each.split(".")
            for parent in parents:
                owner = getattr(owner, parent)
            original = getattr(owner, name)
        except (ImportError, AttributeError):
            continue
        break
    else:
        return
    spent[label] = 0.0
    if inspect.iscoroutinefunction(original):

        @functools.wraps(original)
        async def counted(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return await original(*args, **kwargs)
            finally:
                spent[label] += time.thread_time() - started

    else:
        walled = label in WALLED
        if walled:
            spent[label + WALL] = 0.0

        @functools.wraps(original)
        def counted(*args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
            started, wall = time.thread_time(), time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                spent[label] += time.thread_time() - started
                if walled:
                    spent[label + WALL] += time.perf_counter() - wall

    setattr(owner, name, counted)
    for holder in holders:
        held = importlib.import_module(holder)
        if getattr(held, name, None) is original:
            setattr(held, name, counted)


def _pin() -> None:
    """A fixed run id and a stopped clock for durations: two runs write the same bytes."""
    time.perf_counter = lambda: 0.0  # type: ignore[assignment]
    for holder in ("agenteval.runs._folder", "agenteval.runs", "agenteval._run._session"):
        module = importlib.import_module(holder)
        if hasattr(module, "new_run_id"):
            module.new_run_id = lambda: "20260101T000000000000Z-pinned"  # type: ignore[attr-defined]


def child(out: str, pinned: bool, argv: list[str]) -> int:
    """Run the CLI with ``argv`` in this process; write the stages' CPU to ``out``."""
    spent: dict[str, float] = {}
    if pinned:
        _pin()
    else:
        for label, module, path, holders in STAGES:
            _wrap(spent, label, module, path, holders)
    from agenteval.cli import main

    sys.argv = ["agenteval", *argv]
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    Path(out).write_text(
        json.dumps(
            {
                "stages": spent,
                "process": own.ru_utime + own.ru_stime,
                "children": children.ru_utime + children.ru_stime,
                "exit": code,
            }
        ),
        encoding="utf-8",
    )
    return 0


# -- the driver ----------------------------------------------------------------------------


def _environment(pythonpath: Optional[str]) -> dict[str, str]:
    env = as_installed()
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    return env


def measure(
    folder: Path, manifest: dict[str, Any], out: Path, pythonpath: Optional[str], pinned: bool
) -> dict:
    """One ``agenteval run`` of ``folder``'s data into ``out`` (made afresh); its figures."""
    if out.exists():
        subprocess.run(["rm", "-rf", str(out)], check=True)
    out.mkdir(parents=True)
    figures = out / "stages.json"
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        str(figures),
        *(["--pinned"] if pinned else []),
        "--",
        "run",
        str(folder / "expected"),
        *[arg for pair in manifest["pairs"] for arg in ("--actual", pair["actual"])],
        "--format",
        "json",
        "--output",
        str(out / "result.json"),
        "--quiet",
        "--runs-dir",
        str(out / "runs"),
    ]
    done = subprocess.run(command, env=_environment(pythonpath), capture_output=True, text=True)
    if done.returncode != 0 or not figures.exists():
        raise SystemExit(f"the measured run failed ({done.returncode}):\n{done.stderr[-4000:]}")
    found = json.loads(figures.read_text(encoding="utf-8"))
    if found["exit"] not in (0, 1):
        raise SystemExit(f"agenteval run exited {found['exit']}:\n{done.stderr[-4000:]}")
    return found


def differences(this: Path, other: Path) -> list[str]:
    """The compared files that are not the same bytes in two pinned runs' outputs."""
    mine, theirs = next((this / "runs").iterdir()), next((other / "runs").iterdir())
    pairs = [(mine / name, theirs / name) for name in COMPARED]
    pairs.append((this / "result.json", other / "result.json"))
    return [
        a.name
        for a, b in pairs
        if a.exists() != b.exists() or (a.exists() and _versionless(a) != _versionless(b))
    ]


def _versionless(path: Path) -> bytes:
    """The file's bytes, the JSON report's ``engine_version`` blanked (it names the release)."""
    data = path.read_bytes()
    if path.name != "result.json":
        return data
    return re.sub(rb'"engine_version": "[^"]*"', b'"engine_version": ""', data, count=1)


def _cell(value: Optional[float], other: Optional[float], baseline: bool) -> str:
    text = "-" if value is None else f"{value:.2f}"
    if baseline:
        text += " / " + ("-" if other is None else f"{other:.2f}")
    return text


def _rows(found: dict) -> dict[str, Optional[float]]:
    stages = found["stages"]
    rows: dict[str, Optional[float]] = {}
    for label, *_ in STAGES:
        rows[label] = stages.get(label)
        if label in WALLED:
            rows["  " + label + WALL] = stages.get(label + WALL)
    top = sum(stages.get(label, 0.0) for label in TOP)
    rows["the rest (imports, the units' loop)"] = found["process"] - top
    rows["process (user + sys)"] = found["process"]
    rows["second processes (checks ahead, the helper)"] = found["children"]
    return rows


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        pinned = argv[2:3] == ["--pinned"]
        rest = argv[3 + pinned :]
        return child(argv[1], pinned, rest)
    import scale  # a sibling script: the data and its layouts (imported here: the child needs none)
    from _quiet import Quiet, settle_option  # a sibling module

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000])
    parser.add_argument("--layouts", nargs="+", choices=list(scale.LAYOUTS), default=list(scale.LAYOUTS))
    parser.add_argument("--baseline", help="PYTHONPATH of another checkout, measured side by side")
    parser.add_argument("--same", action="store_true", help="with --baseline: compare the outputs' bytes")
    settle_option(parser)
    args = parser.parse_args(argv)
    if args.same and not args.baseline:
        parser.error("--same needs --baseline")
    quiet = Quiet(args.settle)
    differ = False
    with tempfile.TemporaryDirectory(prefix="agenteval-stages-") as tmp:
        for size in args.sizes:
            for layout in args.layouts:
                folder = Path(tmp) / f"{size}-{layout}"
                manifest, _ = scale.prepared(folder, size, per_file=scale.LAYOUTS[layout])
                if args.same:
                    this = measure(folder, manifest, folder / "this", None, pinned=True)
                    other = measure(folder, manifest, folder / "baseline", args.baseline, pinned=True)
                    assert this and other
                    found = differences(folder / "this", folder / "baseline")
                    differ = differ or bool(found)
                    verdict = "identical" if not found else "DIFFERENT: " + ", ".join(found)
                    print(f"{size} cases, {layout}: records, index, scores, summaries, report {verdict}")
                    continue
                quiet.settle()
                mine = _rows(measure(folder, manifest, folder / "this", None, pinned=False))
                theirs: dict = {}
                if args.baseline:
                    quiet.settle()
                    theirs = _rows(
                        measure(folder, manifest, folder / "baseline", args.baseline, pinned=False)
                    )
                title = f"{size} cases, {layout}: CPU s" + (" (this / baseline)" if args.baseline else "")
                print(title)
                for label, value in mine.items():
                    print(f"  {label:36} {_cell(value, theirs.get(label), bool(args.baseline)):>15}")
                print(flush=True)
    quiet.report()
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
