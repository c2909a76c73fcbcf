"""Interrupt a run half-way and resume it: nothing finished is lost or redone.

A 500-case eval set and a Python agent that takes 0.1 s per turn (4 cases at a time). The
run is started, sent SIGINT when about half of its cases are recorded, then continued with
``--resume``. Prints how long the interrupted process took to stop after the signal, how many
cases it had recorded, how many agent calls the resume made (it must equal the unfinished
cases, plus nothing), and the final state of the run.

    python benchmarks/interruption.py [--cases 500] [--delay 0.1] [--signal SIGTERM]
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--delay", type=float, default=0.1)
    parser.add_argument("--signal", default="SIGINT", choices=["SIGINT", "SIGTERM", "SIGHUP"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="agenteval-interrupt-") as tmp:
        folder = Path(tmp)
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
            for i in range(args.cases)
        ]
        (folder / "big.evalset.json").write_text(json.dumps({"eval_set_id": "big", "eval_cases": cases}))
        (folder / "agent.py").write_text(AGENT)
        calls = folder / "calls.txt"
        env = {**os.environ, "AGENT_CALLS": str(calls), "AGENT_DELAY": str(args.delay)}
        command = [
            sys.executable, "-m", "agenteval", "run", str(folder / "big.evalset.json"),
            "--agent", f"{folder / 'agent.py'}:respond", "--criteria", "tool_trajectory_avg_score",
            "--runs-dir", str(folder / "runs"), "--quiet",
        ]  # fmt: skip
        started = time.perf_counter()
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        results = lambda: sum(_lines(p) for p in (folder / "runs").glob("*/results.jsonl"))  # noqa: E731
        while results() < args.cases // 2 and process.poll() is None:
            time.sleep(0.01)
        sent = time.perf_counter()
        process.send_signal(getattr(signal, args.signal))
        process.wait()
        stopped = time.perf_counter() - sent
        recorded = results()
        calls_before = _lines(calls)
        lost = calls_before - recorded
        print(
            f"interrupted run: {args.signal} after {sent - started:.1f} s; stopped {stopped:.2f} s later "
            f"with exit {process.returncode}; {recorded} of {args.cases} cases recorded "
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
            f"run state {manifest['state']}, {results()} records"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
