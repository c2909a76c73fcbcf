"""Reading OpenTelemetry traces (agenteval-otel) at 1k/10k/100k traces: time and peak memory.

What it does: for each size, writes a seeded OTLP JSONL file (one export request per line,
one trace per request) of that many ADK-v2-style traces, each one turn of 50 spans (a
workflow, an agent, and 24 model calls each followed by a tool call, with messages and tool
arguments as JSON text), then measures, each in a fresh process (so that its peak memory,
``ru_maxrss``, is its own):

* ``actual``: ``--actual TRACE`` loading (``OtelReader.read_actual``) for every trace's case
  (matched by ``agenteval.case_id``), and each case's turns then built once, one case at a
  time, as a run builds them when the case's run starts;
* ``actual 1%``: the same file for 1% of the cases (the other traces are another app's);
* ``document``: ``actual`` of the same traces written as one OTLP/JSON document (one
  ``resourceSpans`` entry per trace, as a collector writes batch after batch), not JSONL;
* ``import-trace``: ``agenteval import-trace FILE -o OUT.evalset.json`` (every session);
* ``lint-trace``: ``agenteval lint-trace FILE``;
* ``run`` (only when asked, ``--modes run``): ``agenteval run EVALSET --actual FILE
  --no-record`` of every trace's case, scored by ``response_match_score``: the reader and the
  run together, each case's turns built when its run starts;
* ``(imports only)``, once: the peak memory of a process that imports all this and reads nothing.

It prints wall and CPU seconds (the CPU time, the process's and its helper process's, is the
steadier figure on a shared machine; with a helper on another core the wall time is below it),
spans read per wall second, the process's peak resident memory, its helper's (0: none), and
``2-core s``: the CPU seconds on the critical path, what the wall time is when the helper has a
core of its own (for each helper, the read's and ``import-trace``'s writer's, the process's CPU
from the helper's start to its handover or the helper's, whichever is longer; and the process's
CPU outside them; without a helper, its CPU seconds). The helpers' peak memory is the larger.

    python benchmarks/otel_import.py                     # 1k and 10k traces
    python benchmarks/otel_import.py --sizes 1000,10000,100000
    python benchmarks/otel_import.py --sizes 30000 --modes "actual 1%,lint-trace"
    python benchmarks/otel_import.py --sizes 1000,10000 --modes run
    python benchmarks/otel_import.py --baseline SRC      # side by side with another checkout
    python benchmarks/otel_import.py --sizes 300,1000 --modes actual --helper-from 0  # always a helper
    python benchmarks/otel_import.py --modes actual,lint-trace,import-trace --baseline SRC --write

``--write`` records the figures in ``otel_import_figures.json`` (beside this script; or the
path given) with the machine's load; docs/traces.md quotes them as ``doc_lines`` words them,
and ``tests/docs/test_traces_figures.py`` keeps the two equal (rerun with ``--write`` and
update the doc).

``--baseline SRC`` (``PYTHONPATH`` entries of another checkout, e.g. ``git archive main``
unpacked, its ``engine/src`` and ``plugins/*/src``) measures each mode under that code too,
right after this code's run of it, and adds its seconds, CPU seconds, peak memory and
``2-core s``, and this code's CPU time as a share of the baseline's: on a busy machine
only side-by-side figures compare (``--helper-from`` applies to both).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import write_option  # (a sibling module)

PAIRS = 24  # model call + tool call pairs per trace: 2 + 2 * 24 = 50 spans
SPANS = 2 + 2 * PAIRS
MODES = ("actual", "actual 1%", "import-trace", "lint-trace", "document")
#: The peak memory of a process that imports everything and reads nothing, for reference.
BASELINE = "(imports only)"
#: Where ``--write`` records the figures docs/traces.md quotes.
JSON_PATH = Path(__file__).resolve().parent / "otel_import_figures.json"


def _attrs(values: dict) -> list[dict]:
    out = []
    for key, value in values.items():
        if isinstance(value, int):
            out.append({"key": key, "value": {"intValue": str(value)}})
        else:
            text = value if isinstance(value, str) else json.dumps(value)
            out.append({"key": key, "value": {"stringValue": text}})
    return out


def _output(n: int, call: dict) -> list[dict]:
    """A model call's output parts: its tool call, and the last one's text (the final response,
    so that ``import-trace`` has a whole turn to write)."""
    return [call, {"type": "text", "content": "done"}] if n == PAIRS - 1 else [call]


def _trace(index: int, rng: random.Random) -> str:
    trace_id = f"{index + 1:032x}"
    ids = iter(f"{index:08x}{n:08x}" for n in range(1, 1000))
    t0 = 1_780_000_000_000_000_000 + index * 10**10
    root, agent = next(ids), next(ids)
    user = [{"role": "user", "parts": [{"type": "text", "content": f"question {index}"}]}]
    spans = [
        {
            "traceId": trace_id,
            "spanId": root,
            "name": "invoke_workflow app",
            "startTimeUnixNano": str(t0),
            "endTimeUnixNano": str(t0 + 10**9),
            "attributes": _attrs({"gen_ai.operation.name": "invoke_workflow"}),
        },
        {
            "traceId": trace_id,
            "spanId": agent,
            "parentSpanId": root,
            "name": "invoke_agent app",
            "startTimeUnixNano": str(t0 + 1),
            "endTimeUnixNano": str(t0 + 10**9 - 1),
            "attributes": _attrs(
                {
                    "gen_ai.operation.name": "invoke_agent",
                    "gen_ai.agent.name": "app",
                    "gen_ai.conversation.id": f"s{index}",
                    "agenteval.case_id": f"c{index}",
                }
            ),
        },
    ]
    for n in range(PAIRS):
        start = t0 + 10 + n * 10**7
        call = {"type": "tool_call", "id": f"k{n}", "name": f"tool_{rng.randrange(8)}", "arguments": {"n": n}}
        for kind, attributes in (
            (
                "generate_content m",
                {
                    "gen_ai.operation.name": "generate_content",
                    "gen_ai.request.model": "m",
                    "gen_ai.usage.input_tokens": 100,
                    "gen_ai.usage.output_tokens": 10,
                    "gen_ai.input.messages": user,
                    "gen_ai.output.messages": [{"role": "assistant", "parts": _output(n, call)}],
                },
            ),
            (
                f"execute_tool {call['name']}",
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": call["name"],
                    "gen_ai.tool.call.id": f"k{n}",
                    "gen_ai.tool.call.arguments": {"n": n},
                    "gen_ai.tool.call.result": {"ok": True, "value": rng.random()},
                },
            ),
        ):
            spans.append(
                {
                    "traceId": trace_id,
                    "spanId": next(ids),
                    "parentSpanId": agent,
                    "name": kind,
                    "startTimeUnixNano": str(start),
                    "endTimeUnixNano": str(start + 4 * 10**6),
                    "attributes": _attrs(attributes),
                }
            )
            start += 5 * 10**6
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})


def _eval_set(path: Path, size: int) -> Path:
    """An eval set of every trace's case (its final response ``done``, as recorded) and a
    ``test_config.json`` of one deterministic criterion, beside the trace file."""
    cases = [
        {
            "eval_id": f"c{index}",
            "conversation": [
                {
                    "user_content": {"role": "user", "parts": [{"text": f"question {index}"}]},
                    "final_response": {"role": "model", "parts": [{"text": "done"}]},
                }
            ],
        }
        for index in range(size)
    ]
    target = path.with_name("bench.evalset.json")
    target.write_text(json.dumps({"eval_set_id": "bench", "eval_cases": cases}), encoding="utf-8")
    config = {"criteria": {"response_match_score": 0.5}}
    path.with_name("test_config.json").write_text(json.dumps(config), encoding="utf-8")
    return target


def _document_of(path: Path) -> Path:
    """The JSONL file's traces as one OTLP/JSON document beside it (written by ``main``)."""
    return path.with_name("traces.document.json")


def _write_document(path: Path) -> None:
    """``_document_of(path)``: one ``resourceSpans`` entry per line's request, the entries
    copied as text (the file is never parsed whole here)."""
    with path.open(encoding="utf-8") as lines, _document_of(path).open("w", encoding="utf-8") as out:
        out.write('{"resourceSpans": [')
        for number, line in enumerate(lines):
            entry = line[line.index("[") + 1 : line.rindex("]")]  # {"resourceSpans": [ENTRY]}
            out.write((",\n" if number else "\n") + entry)
        out.write("\n]}\n")


def _measure(mode: str, path: Path, size: int) -> dict[str, float]:
    """One measurement, in this (fresh) process."""
    from agenteval.cli import main
    from agenteval.models import EvalCase, Invocation
    from agenteval_otel import OtelReader

    marks = _handover_marks()
    own = time.process_time()
    wall, cpu = time.perf_counter(), _cpu()
    if mode == BASELINE:
        pass
    elif mode.startswith("actual") or mode == "document":
        if mode == "document":
            path = _document_of(path)
        user = Invocation.model_validate({"user_content": {"role": "user", "parts": [{"text": "q"}]}})
        count = max(1, size // 100) if mode == "actual 1%" else size
        cases = [EvalCase(eval_id=f"c{i * (size // count)}", conversation=[user]) for i in range(count)]
        own = time.process_time()
        wall, cpu = time.perf_counter(), _cpu()
        eval_set = OtelReader().read_actual(path, cases)
        assert len(eval_set.eval_cases) == count
        # what a run does with them: each case's turns built (listed) once, when its run starts
        # (the reader keeps them packed until then), and let go after
        for case in eval_set.eval_cases:
            assert len(list(case.conversation or ())[0].intermediate_data.invocation_events) == 2 * PAIRS
    elif mode == "run":
        args = ["run", str(_eval_set(path, size)), "--actual", str(path), "--no-record"]
        own = time.process_time()
        wall, cpu = time.perf_counter(), _cpu()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            with contextlib.suppress(SystemExit):
                main(args, standalone_mode=False)
    else:
        args = [mode, str(path)] + (
            ["-o", str(path.with_name("out.evalset.json"))] * (mode == "import-trace")
        )
        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
            main(args, standalone_mode=False)
    seconds, end, cpu = time.perf_counter() - wall, time.process_time(), _cpu() - cpu
    critical = end - own  # the critical path: this process's CPU, with each helper's span of it
    for start, handover, after, helper in marks:  # (up to the handover's end) replaced by the
        # longer of its CPU up to the handover and the helper's (the read's starts with the read)
        start = own if start != start else start
        critical += max(handover - start, helper) - (after - start)
    return {
        "seconds": seconds,
        "cpu": cpu,
        "critical": critical,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "helper_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    }


def _handover_marks() -> list[list[float]]:
    """For each helper process that ran (the read's, ``agenteval_otel._parallel``; the eval set
    writer's, ``agenteval_otel._split_write``): this process's CPU seconds
    (``time.process_time``) when it started (the read's: ``None``, the measure's start), when
    its handover started and ended, and the helper's CPU seconds; noted by wrapping the
    functions that wait for it. Empty when no helper ran (or the code has none)."""
    marks: list[list[float]] = []
    try:
        from agenteval_otel import _parallel
    except ImportError:
        return marks

    def children() -> float:
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        return used.ru_utime + used.ru_stime

    def waited(owner: object, name: str, started: Optional[list[float]]) -> None:
        wait = getattr(owner, name, None)
        if wait is None:
            return

        def noted(*args: object) -> object:
            before, at = children(), time.process_time()
            try:
                return wait(*args)
            finally:
                start = started.pop() if started else float("nan")
                marks.append([start, at, time.process_time(), children() - before])

        setattr(owner, name, noted)

    shared = getattr(_parallel, "Shared", None)
    if shared is not None:
        waited(shared, "_collect", None)
    try:
        from agenteval_otel import _split_write
    except ImportError:
        return marks
    starts: list[float] = []
    split = _split_write._shared

    def started(*args: object) -> object:
        starts.append(time.process_time())
        return split(*args)

    _split_write._shared = started
    waited(_split_write, "_collect", starts)
    return marks


def _cpu() -> float:
    """CPU seconds of this process and of the (waited) processes it started: a large JSONL file
    is read with a helper process (``agenteval_otel._parallel``)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated numbers of traces")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated measurements to make")
    parser.add_argument("--baseline", help="PYTHONPATH of another checkout, measured side by side")
    parser.add_argument(
        "--helper-from",
        type=int,
        help="the size in bytes from which a JSONL file is read with a helper process, for this "
        "code's runs and the baseline's (agenteval_otel._parallel.PARALLEL_FROM_BYTES; 0: always), "
        "and any helper started, whatever the machine's load (by default, only when a CPU is idle)",
    )
    write_option(parser, JSON_PATH, "docs/traces.md", merges=False)
    parser.add_argument("--measure", nargs=3, metavar=("MODE", "FILE", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        mode, file, size = args.measure
        if args.helper_from is not None:
            from agenteval_otel import _parallel

            _parallel.PARALLEL_FROM_BYTES = args.helper_from
            _parallel.IDLE_CPU = False  # (measured on a busy machine too)
        print(json.dumps(_measure(mode, Path(file), int(size))))
        return
    columns = (
        "traces",
        "spans",
        "file MB",
        "read",
        "seconds",
        "CPU s",
        "spans/s",
        "peak MB",
        "helper MB",
        "2-core s",
    )
    if args.baseline:
        columns += ("base s", "base CPU", "base MB", "base 2c", "CPU/base")
    print(
        f"{columns[0]:>8} {columns[1]:>9} {columns[2]:>8}  {columns[3]:<15}"
        + "".join(f"{c:>10}" if c == "helper MB" else f"{c:>9}" for c in columns[4:])
    )
    sizes = [int(s) for s in args.sizes.split(",")]
    recorded: list[dict] = []
    load = os.getloadavg()[0]
    for size in sizes:
        rng = random.Random(7)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "traces.jsonl"
            with path.open("w", encoding="utf-8") as handle:
                for index in range(size):
                    handle.write(_trace(index, rng) + "\n")
            megabytes = path.stat().st_size / 1e6
            modes = args.modes.split(",")
            if "document" in modes:
                _write_document(path)
            for mode in (BASELINE, *modes) if size == sizes[0] else modes:
                got = _run(mode, path, size, None, args.helper_from)
                spans = size * SPANS
                rate = f"{spans / got['seconds']:>9.0f}" if mode != BASELINE else f"{'-':>9}"
                line = (
                    f"{size:>8} {spans:>9} {megabytes:>8.1f}  {mode:<15}"
                    f"{got['seconds']:>9.2f}{got['cpu']:>9.2f}{rate}{got['peak_mb']:>9.0f}"
                    f"{got['helper_mb']:>10.0f}{got['critical']:>9.2f}"
                )
                row = {"traces": size, "mode": mode, "file_mb": round(megabytes, 1), **got}
                if args.baseline:
                    base = _run(mode, path, size, args.baseline, args.helper_from)
                    share = f"{got['cpu'] / base['cpu']:>9.2f}" if base["cpu"] >= 0.01 else f"{'-':>9}"
                    line += f"{base['seconds']:>9.2f}{base['cpu']:>9.2f}{base['peak_mb']:>9.0f}"
                    line += f"{base['critical']:>9.2f}{share}"
                    row["baseline"] = base
                print(line, flush=True)
                if mode != BASELINE:
                    recorded.append(row)
    if args.write:
        figures = {
            "load": [round(load, 2), round(os.getloadavg()[0], 2)],
            "cpus": os.cpu_count(),
            "rows": recorded,
        }
        Path(args.write).write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"\nwrote {args.write}; docs/traces.md quotes:")
        for text in doc_lines(figures).values():
            print(text)


_NAMES = {
    "actual": "`--actual`",
    "actual 1%": "`--actual` of 1% of the cases",
    "document": "one OTLP/JSON document",
}


def doc_lines(figures: dict) -> dict[str, str]:
    """The sentences docs/traces.md quotes from recorded figures (``--write``), by traces read:
    each mode's wall and CPU seconds and peak memory (and the helper's), and the baseline's
    beside them when it was measured."""
    low, high = sorted(figures["load"])
    lines = {"machine": f"Measured at a load of {low:.1f}-{high:.1f} on {figures['cpus']} CPUs."}
    by_size: dict[int, list[dict]] = {}
    for row in figures["rows"]:
        by_size.setdefault(row["traces"], []).append(row)
    for size, rows in by_size.items():
        parts = []
        for row in rows:
            name = _NAMES.get(row["mode"], f"`{row['mode']}`")
            text = f"{name}: {row['seconds']:.2f} s wall, {row['cpu']:.2f} CPU s"
            text += f", {row['peak_mb']:.0f} MB peak"
            if row["helper_mb"]:
                text += f" and {row['helper_mb']:.0f} MB in the helper"
            base = row.get("baseline")
            if base is not None:
                text += f" (baseline: {base['seconds']:.2f} s, {base['cpu']:.2f} CPU s"
                text += f", {base['peak_mb']:.0f} MB)"
            parts.append(text)
        lines[str(size)] = (
            f"{size:,} traces ({rows[0]['file_mb']:.1f} MB of JSONL): " + "; ".join(parts) + "."
        )
    return lines


def _run(
    mode: str, path: Path, size: int, baseline: Optional[str], helper_from: Optional[int] = None
) -> dict[str, float]:
    """One measurement in a fresh process (this code's, or with ``baseline`` first on its path)."""
    env = dict(os.environ)
    if baseline:
        env["PYTHONPATH"] = baseline
    helper = [] if helper_from is None else ["--helper-from", str(helper_from)]
    done = subprocess.run(
        [sys.executable, __file__, *helper, "--measure", mode, str(path), str(size)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return json.loads(done.stdout.splitlines()[-1])


if __name__ == "__main__":
    main(sys.argv[1:])
