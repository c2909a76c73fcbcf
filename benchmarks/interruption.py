"""Interrupt a run half-way and resume it: nothing finished is lost or redone.

A 500-case eval set and a Python agent that takes 0.1 s per turn (4 cases at a time). The
run is started, sent SIGINT when about half of its cases are recorded, then continued with
``--resume``. Prints how long the interrupted process took to stop after the signal, how many
cases it had recorded, how many agent calls the resume made (it must equal the unfinished
cases, plus nothing), and the final state of the run.

With ``--sizes`` it prints the signal table instead: for each size, one eval file of that
many cases, the signal sent once ``--after`` cases are recorded, and the time from the
signal to the process's exit (the interrupted run's report included), with its exit code,
the cases recorded (no resume), the CPU time the process spent after the signal, and
whether the exit came within the 2 s goal.

    python benchmarks/interruption.py [--cases 500] [--delay 0.1] [--signal SIGTERM]
    python benchmarks/interruption.py --sizes 20000 100000 [--after 1000] [--delay 0.005]
        [--format json]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

#: the signal table's goal: from the signal to the exit (the partial report written)
GOAL_SECONDS = 2.0

AGENT = """
import os, time

def respond(message, history):
    with open(os.environ["AGENT_CALLS"], "a", encoding="utf-8") as calls:
        calls.write(message + "\\n")
    time.sleep(float(os.environ["AGENT_DELAY"]))
    return "ok " + message
"""


def _lines(path: Path) -> int:
    return path.read_text(encoding="utf-8").count("\n") if path.exists() else 0


def _write_inputs(folder: Path, count: int) -> None:
    cases = [
        {
            "eval_id": f"case_{i:04d}",
            "conversation": [
                {
                    "user_content": {"role": "user", "parts": [{"text": f"q{i}"}]},
                    "final_response": {"role": "model", "parts": [{"text": f"ok q{i}"}]},
                }
            ],
        }
        for i in range(count)
    ]
    (folder / "big.evalset.json").write_text(json.dumps({"eval_set_id": "big", "eval_cases": cases}))
    (folder / "agent.py").write_text(AGENT)


def _command(folder: Path, output_format: str = "table") -> list[str]:
    return [
        sys.executable, "-m", "agenteval", "run", str(folder / "big.evalset.json"),
        "--agent", f"{folder / 'agent.py'}:respond", "--criteria", "tool_trajectory_avg_score",
        "--runs-dir", str(folder / "runs"), "--quiet", "--format", output_format,
    ]  # fmt: skip


def _interrupt(
    folder: Path, env: dict[str, str], after: int, signal_name: str, output_format: str = "table"
) -> tuple[float, float, int, Optional[float]]:
    """Start the run, send the signal once ``after`` cases are recorded; return when it
    was sent (seconds after the start), how long the process took to exit after it, the
    exit code, and the CPU seconds the process spent after the signal (``None`` where
    ``/proc`` is missing: on a shared machine, the steadier figure)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        _command(folder, output_format), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    while _recorded(folder) < after and process.poll() is None:
        time.sleep(0.01)
    before = _cpu_seconds(process.pid)
    sent = time.perf_counter()
    process.send_signal(getattr(signal, signal_name))
    _, status, usage = os.wait4(process.pid, 0)
    stopped = time.perf_counter() - sent
    process.returncode = os.waitstatus_to_exitcode(status)
    after_signal = usage.ru_utime + usage.ru_stime - before if before is not None else None
    return sent - started, stopped, process.returncode, after_signal


def _cpu_seconds(pid: int) -> Optional[float]:
    """User + system CPU seconds of a running process, from ``/proc``."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _recorded(folder: Path) -> int:
    return sum(_lines(p) for p in (folder / "runs").glob("*/results.jsonl"))


def signal_table(sizes: list[int], after: int, delay: float, signal_name: str, output_format: str) -> None:
    """Time from the signal to the exit, one row per size."""
    print(
        f"{'cases':>8} {'recorded':>9} {'signal at s':>12} {'exit after s':>13} {'exit':>5} "
        f"{'CPU after s':>12} {'< 2 s':>6}  ({signal_name}, --format {output_format}; "
        "the goal: exit within 2 s at any size)"
    )
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="agenteval-interrupt-") as tmp:
            folder = Path(tmp)
            _write_inputs(folder, size)
            env = {**os.environ, "AGENT_CALLS": str(folder / "calls.txt"), "AGENT_DELAY": str(delay)}
            sent, stopped, code, cpu = _interrupt(
                folder, env, min(after, size // 2), signal_name, output_format
            )
            shown = f"{cpu:.2f}" if cpu is not None else "-"
            print(
                f"{size:>8} {_recorded(folder):>9} {sent:>12.1f} {stopped:>13.2f} {code:>5} {shown:>12} "
                f"{'yes' if stopped < GOAL_SECONDS else 'NO':>6}",
                flush=True,
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--delay", type=float, default=0.1)
    parser.add_argument("--signal", default="SIGINT", choices=["SIGINT", "SIGTERM", "SIGHUP"])
    parser.add_argument("--sizes", type=int, nargs="+", help="print the signal table for these sizes")
    parser.add_argument("--after", type=int, default=1000, help="cases recorded before the signal (table)")
    parser.add_argument(
        "--format", default="table", choices=["table", "json"], help="the run's report (signal table)"
    )
    args = parser.parse_args()
    if args.sizes:
        signal_table(args.sizes, args.after, args.delay, args.signal, args.format)
        return 0
    with tempfile.TemporaryDirectory(prefix="agenteval-interrupt-") as tmp:
        folder = Path(tmp)
        _write_inputs(folder, args.cases)
        calls = folder / "calls.txt"
        env = {**os.environ, "AGENT_CALLS": str(calls), "AGENT_DELAY": str(args.delay)}
        command = _command(folder)
        sent, stopped, code, _ = _interrupt(folder, env, args.cases // 2, args.signal)
        recorded = _recorded(folder)
        calls_before = _lines(calls)
        lost = calls_before - recorded
        print(
            f"interrupted run: {args.signal} after {sent:.1f} s; stopped {stopped:.2f} s later "
            f"with exit {code}; {recorded} of {args.cases} cases recorded "
            f"({lost} agent call(s) were in flight and lost)"
        )
        started = time.perf_counter()
        done = subprocess.run([*command, "--resume"], env=env, capture_output=True, text=True)
        resumed_in = time.perf_counter() - started
        made = _lines(calls) - calls_before
        manifest = json.loads(next((folder / "runs").glob("*/manifest.json")).read_text())
        unfinished = args.cases - recorded
        verdict = "equal" if made == unfinished else "DIFFERENT"
        print(
            f"resume: exit {done.returncode} in {resumed_in:.1f} s; {made} agent call(s) for "
            f"{unfinished} unfinished case(s) -> {verdict}; "
            f"run state {manifest['state']}, {_recorded(folder)} records"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
