"""How long every reader of a recorded run takes: 1k, 10k and 100k cases (issue 27, item 2).

For each size four run folders are written: a complete run of one run per case, the same
run interrupted after 90% of its cases, the same run killed there (``kill -9``: no summary,
a manifest that still says running, no writer), and a complete run of three runs per case. Their
records are a real run's: ``scale.make_data`` and one ``agenteval run`` process record a
template of 50 cases (one invocation, three tool calls, ~30 words, some perturbed), then
``RunWriter`` (the writer a run uses: records, index lines, summary, manifest) writes each
folder with those records under new case ids, 1,000 cases per eval set, and names one
``--actual`` file per eval set, as a run of many files does (links to the template's).

Each reader is a whole process, started as a user starts it; its wall and CPU seconds, and
in a second table its peak resident memory (``ru_maxrss``):

* ``show``: ``agenteval runs show RUN`` (the table);
* ``show json``: ``agenteval runs show RUN --format json``;
* ``report X``: ``agenteval runs report RUN --report X``, one process per installed reporter
  (``--reporters`` picks some);
* ``compare``: ``agenteval compare RUN RUN`` (the run against itself: every case pairs; the
  folder is read once);
* ``compare twin``: ``agenteval compare RUN TWIN``, TWIN a second folder of the same files
  (hard links): every case pairs, and both folders are read, as with two different runs;
* ``view head``: the viewer's first rows, ``GET /api/runs/<id>/head`` as the viewer's
  ``RunStore`` answers it (no disk cache; a run of several runs per case has no head and
  answers with its whole index);
* ``view index``: what the viewer loads next, ``/summary`` and ``/index`` of the run
  (``RunStore``, no disk cache), encoded as the server sends them.

The goal is every reader under 2 s at 100k cases. Absolute figures depend on the machine.

With ``--baseline SRC`` (``PYTHONPATH`` entries of another checkout, e.g. ``git archive main``
unpacked: ``/tmp/base/engine/src:/tmp/base/plugins/viewer/src:/tmp/base/plugins/builtin/src``)
each reader also runs on that code, right after this one on the same folder, and each cell
shows ``this / baseline``: on a busy machine only side-by-side figures compare.

    python benchmarks/readers.py                         # 1k, 10k, 100k
    python benchmarks/readers.py --sizes 1000 10000
    python benchmarks/readers.py --keep /tmp/readers     # write once, measure again later
    python benchmarks/readers.py --readers show compare  # only these readers
    python benchmarks/readers.py --repeat 3              # the least of 3 runs of each reader
    python benchmarks/readers.py --sizes 2000 --baseline SRC --same   # the same bytes as SRC's?

``--same`` (with ``--baseline``) times nothing: it checks that every reporter's files, the
viewer's ``summary``, ``index`` and ``head``, ``runs show``'s output (the table at 80, 100
and 250 columns, in colour, with ``NO_COLOR``, with ``--show all``; the JSON) and ``compare``'s
(the run with itself and with its twin, as text and JSON) are the same bytes under both (the
moments of the OTLP records and their engine's version masked; ``head`` only where the
baseline answers one), one line per kind, and exits 1 when any differ.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import scale  # noqa: E402  (a sibling script: the seeded data and a recorded run)
from _phases import as_installed  # noqa: E402  (a sibling module)

TEMPLATE_CASES = 50
PER_SET = 1000
KINDS = ("complete", "interrupted", "killed", "3 runs")

# The viewer's answers, as its server's store makes them (the first request of a run).
_VIEW = """
import sys
from pathlib import Path
from agenteval_viewer._store import RunStore
folder = Path(sys.argv[1])
store = RunStore(folder.parent)
if sys.argv[2] == "head":
    store.head(folder.name).plain
else:
    store.summary(folder.name).plain
    store.index(folder.name).plain
"""
#: every reporter of the engine and of the plugins installed beside it
REPORTERS = ("table", "json", "jsonl", "junit", "markdown", "github", "html", "otel")


def _template(tmp: Path) -> Path:
    """A real run folder of ``TEMPLATE_CASES`` cases."""
    folder = tmp / "template"
    manifest = scale.make_data(folder, TEMPLATE_CASES)
    scale.run_agenteval(folder, manifest)
    return next((folder / "runs").iterdir())


def _actual_files(template: Any, target: Path, count: int) -> list[Any]:
    """The ``--actual`` files of a run of ``count`` eval sets, as ``scale.py``'s run of many
    files names them: one per set (hard links to the template's file under ``target``, so
    that a reader that looks at a run's files finds each one there, unchanged; beside the
    size's folders, shared by them)."""
    folder = target.parent / "actual"
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for index in range(count):
        path = folder / f"bench_{index:03d}.actual.evalset.json"
        if not path.exists():
            os.link(template.path, path)
        files.append(template.model_copy(update={"path": str(path)}))
    return files


def write_run(template: Path, target: Path, cases: int, kind: str) -> Path:
    """A run folder of ``cases`` cases made of ``template``'s records (see the docstring)."""
    from agenteval._verdicts import SummaryBuilder
    from agenteval.runs import EvalSetEntry, RecordedRun, RunState, RunWriter, SummaryDocument, new_run_id
    from agenteval.runs._briefs import brief_from_result

    source = RecordedRun.open(template)
    records = list(source.records())
    base = source.manifest.eval_sets[0]
    runs = 3 if kind == "3 runs" else 1
    run_id = new_run_id()
    sets = [
        EvalSetEntry(
            index=index,
            eval_set_id=f"bench_{index:03d}",
            path=f"expected/bench_{index:03d}.evalset.json",
            case_ids=[f"case_{n:06d}" for n in range(first, min(first + PER_SET, cases))],
            config=base.config,
            criteria=base.criteria,
        )
        for index, first in enumerate(range(0, cases, PER_SET))
    ]
    manifest = source.manifest.model_copy(
        update={
            "run_id": run_id,
            "eval_sets": sets,
            "num_runs": runs,
            "state": RunState.RUNNING,
            "actual_files": _actual_files(source.manifest.actual_files[0], target, len(sets)),
        }
    )
    writer = RunWriter.create(target, manifest)
    recorded = cases if kind in ("complete", "3 runs") else cases * 9 // 10
    written = 0
    for number in range(recorded):
        entry = sets[number // PER_SET]
        case_id = f"case_{number:06d}"
        for run_index in range(1, runs + 1):
            record = records[(number + run_index) % len(records)]
            writer.append(
                record.model_copy(
                    update={
                        "run_id": run_id,
                        "eval_set_index": entry.index,
                        "eval_set_id": entry.eval_set_id,
                        "case_id": case_id,
                        "run_index": run_index,
                    }
                )
            )
        written += 1
    # The summary the run writes at its end, from the same case results the readers recompute,
    # each finished eval set's part of it, and (several runs per case) each finished case's
    # brief, as the run writes them.
    recorded_run = RecordedRun(writer.folder, writer.manifest)
    builder = SummaryBuilder(manifest.confidence, run_id)
    for entry, case_id, case_records in recorded_run.case_records():
        case = recorded_run.case_result(entry, case_id, case_records, pending=False)
        builder.add(case, entry)
        if runs != 1 and all(r is not None for r in case_records) and kind != "killed":
            writer.append_brief(brief_from_result(entry, 0, case, case_records), case)
        if builder.set_complete(entry.index) and (entry.index + 1) * PER_SET <= recorded:
            writer.append_set_summary(entry.index, builder.set_state(entry.index))
    if kind == "killed":  # no summary, the manifest as the run started it
        writer.close()
        return writer.folder
    state = RunState.INTERRUPTED if kind == "interrupted" else RunState.COMPLETE
    writer.manifest.state = state
    writer.manifest.exit_code = 130 if kind == "interrupted" else 1
    document = SummaryDocument(
        run_id=run_id,
        state=state,
        summary=builder.build({}, None, None),
        cases_recorded=written * runs,
        cases_planned=cases,
    )
    writer.write_summary(document)
    writer.write_manifest()
    writer.close()
    return writer.folder


def _in_child(function: Any, *args: Any) -> Any:
    """``function(*args)`` run in a forked process. Writing a big run folder grows a
    process's memory, and a reader it starts inherits its high-water mark at ``exec``
    (Linux): every reader's peak memory would then read as at least this process's."""
    context = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        return pool.submit(function, *args).result()


def _timed(command: list[str], env: Optional[dict[str, str]] = None) -> tuple[float, float, float]:
    """The command's wall seconds, CPU seconds (user + system: on a shared machine, the
    steadier figure) and peak resident memory in MB (its own ``ru_maxrss``, from ``wait4``)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    assert process.stderr is not None
    with process.stderr:
        stderr = process.stderr.read().decode("utf-8", "replace")  # until the reader closes it
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = code = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(command)} exited {code}:\n{stderr}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def commands(folder: Path, scratch: Path, reporters: list[str]) -> dict[str, list[str]]:
    agenteval = [sys.executable, "-m", "agenteval"]
    report = ["runs", "report", str(folder), "--report-dir", str(scratch), "--report"]
    return {
        "show": [*agenteval, "runs", "show", str(folder)],
        "show json": [*agenteval, "runs", "show", str(folder), "--format", "json"],
        **{f"report {name}": [*agenteval, *report, name] for name in reporters},
        "compare": [*agenteval, "compare", str(folder), str(folder)],
        "compare twin": [*agenteval, "compare", str(folder), str(_twin(folder))],
        "view head": [sys.executable, "-c", _VIEW, str(folder), "head"],
        "view index": [sys.executable, "-c", _VIEW, str(folder), "index"],
    }


def _twin(folder: Path) -> Path:
    """Where ``folder``'s twin lies (``make_twin``)."""
    return Path(f"{folder.parent}-twin") / folder.name


def make_twin(folder: Path) -> Path:
    """A second folder holding ``folder``'s files as hard links (no byte copied)."""
    twin = _twin(folder)
    if not twin.exists():
        twin.mkdir(parents=True)
        for path in folder.iterdir():
            if path.is_file():
                os.link(path, twin / path.name)
    return twin


def _environment() -> dict[str, str]:
    """This process's environment without an OTLP endpoint (``--report otel`` writes its file
    and sends nothing), and with byte code written and read as an installed package's is
    (else every process compiles its imports)."""
    return {k: v for k, v in as_installed().items() if not k.startswith("OTEL_")}


def _best(command: list[str], env: dict[str, str], repeat: int) -> tuple[float, float, float]:
    """The least wall and the least CPU seconds of ``repeat`` runs of ``command``, and the
    most peak memory (MB) of any."""
    walls, cpus, peaks = zip(*(_timed(command, env) for _ in range(repeat)), strict=True)
    return min(walls), min(cpus), max(peaks)


def measure(
    folder: Path,
    scratch: Path,
    reporters: list[str],
    baseline: Optional[str],
    only: Optional[list[str]] = None,
    repeat: int = 1,
) -> dict[str, tuple[str, str]]:
    """Each reader's wall (CPU) seconds and its peak memory in MB (each ``this / baseline``
    with a baseline); ``only``: these readers; ``repeat``: the least (seconds) and the most
    (memory) of that many runs (this code's, then the baseline's)."""
    figures = {}
    make_twin(folder)
    env = _environment()
    for name, command in commands(folder, scratch, reporters).items():
        if only is not None and name not in only:
            continue
        wall, cpu, peak = _best(command, env, repeat)
        if baseline is None:
            figures[name] = (f"{wall:.2f} ({cpu:.2f})", f"{peak:.0f}")
            continue
        other, other_cpu, other_peak = _best(command, {**env, "PYTHONPATH": baseline}, repeat)
        figures[name] = (
            f"{wall:.2f} ({cpu:.2f}) / {other:.2f} ({other_cpu:.2f})",
            f"{peak:.0f} / {other_peak:.0f}",
        )
    return figures


# The viewer's payloads, written to files for ``--same`` (``head`` from a store of its own: the
# first request of a run).
_PAYLOADS = """
import sys
from pathlib import Path
from agenteval_viewer._store import RunStore
folder, out = Path(sys.argv[1]), Path(sys.argv[2])
for kind in ("summary", "index", "head"):
    answer = getattr(RunStore(folder.parent), kind)(folder.name).plain()
    (out / f"view-{kind}.json").write_bytes(answer)
"""
#: what differs between two reports of the same run: the moment an OTLP record was made, and
#: the version of the engine that made it (a baseline is often the last release)
_VARYING = re.compile(
    rb'"(?:time|observedTime|startTime|endTime)UnixNano": ?"[0-9]+"'
    rb'|"scope": ?\{"name": ?"agenteval", ?"version": ?"[^"]*"\}'
)


#: ``runs show`` as ``--same`` compares it: piped (80 columns, no colour), at other widths,
#: in colour (``FORCE_COLOR``), colour turned off (``NO_COLOR``), every case, and as JSON.
_COLOUR = {"FORCE_COLOR": "1", "TERM": "xterm-256color"}
_SHOWN: dict[str, tuple[dict[str, str], list[str]]] = {
    "show.txt": ({}, []),
    "show-100-all.txt": ({"COLUMNS": "100"}, ["--show", "all"]),
    "show-250.txt": ({"COLUMNS": "250"}, []),
    "show-colour.txt": ({**_COLOUR, "COLUMNS": "100"}, []),
    "show-no-colour.txt": ({**_COLOUR, "NO_COLOR": "1", "COLUMNS": "100"}, []),
    "show.json": ({}, ["--format", "json"]),
}


def outputs(folder: Path, target: Path, reporters: list[str], env: dict[str, str]) -> dict[str, bytes]:
    """Every file the reporters and the viewer's payloads make of ``folder``, and what ``runs
    show`` prints of it (``_SHOWN``), by name (the OTLP moments masked), written under
    ``target``."""
    for name in reporters:
        report = target / name
        report.mkdir(parents=True)
        command = [
            sys.executable,
            "-m",
            "agenteval",
            "runs",
            "report",
            str(folder),
            "--report-dir",
            str(report),
        ]
        summary = {"GITHUB_STEP_SUMMARY": str(report / "step-summary.md")}
        _timed([*command, "--report", name], {**env, **summary})
    _timed([sys.executable, "-c", _PAYLOADS, str(folder), str(target)], env)
    show = [sys.executable, "-m", "agenteval", "runs", "show", str(folder)]
    for name, (extra, options) in _SHOWN.items():
        done = subprocess.run([*show, *options], capture_output=True, env={**env, **extra})
        (target / name).write_bytes(
            done.stdout + b"\n--- stderr\n" + done.stderr + b"exit %d\n" % done.returncode
        )
    twin = make_twin(folder)
    for name, other in (("compare", folder), ("compare-twin", twin)):
        for form in ("table", "json"):
            command = [sys.executable, "-m", "agenteval", "compare", str(folder), str(other)]
            done = subprocess.run([*command, "--format", form], capture_output=True, env=env)
            (target / f"{name}.{form}").write_bytes(done.stdout + done.stderr + b"exit %d" % done.returncode)
    return {
        str(path.relative_to(target)): _VARYING.sub(b"T", path.read_bytes())
        for path in sorted(target.rglob("*"))
        if path.is_file()
    }


def differences(folder: Path, scratch: Path, reporters: list[str], baseline: str) -> list[str]:
    """The files (``outputs``) that are not the same bytes under this code and ``baseline``;
    a run's ``view-head.json`` only where the baseline answers a head (before item 2 a run of
    several runs per case answered its whole index)."""
    env = _environment()
    scratch.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=scratch) as tmp:
        mine = outputs(folder, Path(tmp) / "this", reporters, env)
        theirs = outputs(folder, Path(tmp) / "baseline", reporters, {**env, "PYTHONPATH": baseline})
    if b'"partial":true' not in theirs.get("view-head.json", b""):
        mine.pop("view-head.json", None)
        theirs.pop("view-head.json", None)
    return sorted(name for name in mine.keys() | theirs.keys() if mine.get(name) != theirs.get(name))


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--reporters", nargs="+", default=list(REPORTERS), help="the reporters timed")
    parser.add_argument(
        "--readers", nargs="+", help="time only these readers (e.g. show compare 'view head')"
    )
    parser.add_argument("--keep", type=Path, help="write the runs here and reuse them when present")
    parser.add_argument("--baseline", help="PYTHONPATH of another checkout to time side by side")
    parser.add_argument("--repeat", type=int, default=1, help="time each reader this many times: the least")
    parser.add_argument(
        "--same",
        action="store_true",
        help="with --baseline: check that every reporter's files and the viewer's payloads are the same "
        "bytes under both (no timing)",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="agenteval-readers-") as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        runs = root / "template" / "runs"
        template = next(runs.iterdir()) if runs.is_dir() else _template(root)
        readers = [r for r in commands(root, root, args.reporters) if not args.readers or r in args.readers]
        width = 28 if args.baseline else 16
        if not args.same:
            print(
                "wall seconds (CPU seconds) and peak resident memory of each reader, one process each"
                + (" (this / baseline)" if args.baseline else "")
            )
        failed = False
        for size in args.sizes:
            figures = {}
            for kind in args.kinds:
                target = root / f"{size}-{kind.replace(' ', '')}"
                existing = [p for p in target.iterdir() if p.is_dir()] if target.exists() else []
                started = time.perf_counter()
                folder = existing[0] if existing else _in_child(write_run, template, target, size, kind)
                if not existing:
                    print(f"  ({size} cases, {kind}: written in {time.perf_counter() - started:.1f} s)")
                if args.same:
                    if args.baseline is None:
                        parser.error("--same needs --baseline")
                    differ = differences(folder, root / "same", args.reporters, args.baseline)
                    print(
                        f"  {size} cases, {kind}: "
                        + (f"DIFFER: {', '.join(differ)}" if differ else "same bytes")
                    )
                    failed = failed or bool(differ)
                    continue
                figures[kind] = measure(
                    folder, root / "reports", args.reporters, args.baseline, args.readers, args.repeat
                )
                # each run's figures at once (a long benchmark stopped half-way keeps them)
                print(
                    f"  ({size} cases, {kind}: "
                    + ", ".join(f"{r} {f[0]}, {f[1]} MB" for r, f in figures[kind].items())
                    + ")"
                )
            if args.same:
                continue
            for title, column in ((f"{size} cases", 0), (f"{size} cases: peak resident MB", 1)):
                print(f"\n{title}")
                print(f"{'reader':<16}" + "".join(f" {kind:>{width}}" for kind in args.kinds))
                for reader in readers:
                    cells = (figures[kind][reader][column] for kind in args.kinds)
                    print(f"{reader:<16}" + "".join(f" {cell:>{width}}" for cell in cells))
            print(flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
