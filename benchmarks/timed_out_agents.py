"""What a timed-out in-process agent costs the rest of the run.

Runs ``agenteval run examples/travel --agent FILE:respond --agent-timeout 2`` (three cases,
``--no-record``) for agents that answer at once, spin (``while True: pass``), spin and
swallow the exception that stops them, and block their ``async def`` event loop; and the
spinning one with ``--agent-isolation process``. Prints, per agent, the wall-clock seconds
and the CPU seconds of the command (its own process and its worker processes): a spinning
agent whose call is stopped should cost about what an answering one does::

    python benchmarks/timed_out_agents.py [REPEAT]

On a loaded machine compare the rows with each other, not with another machine's.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EVALSET = Path(__file__).resolve().parents[1] / "examples" / "travel" / "travel.evalset.json"

AGENTS = {
    "answers": "def respond(message, history):\n    return 'hi'\n",
    "spins": "def respond(message, history):\n    while True:\n        pass\n",
    "spins, swallows the stop": (
        "def respond(message, history):\n    while True:\n        try:\n            while True:\n"
        "                pass\n        except BaseException:\n            continue\n"
    ),
    "async, blocks its loop": (
        "import time\nasync def respond(message, history):\n    while True:\n        time.sleep(0.6)\n"
    ),
}


def _timed(folder: Path, source: str, *options: str) -> tuple[float, float]:
    (folder / "agent.py").write_text(source)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "agenteval", "run", str(EVALSET), "--agent", "agent.py:respond",
         "--agent-timeout", "2", "--no-record", "-q", "--format", "json", *options],
        cwd=folder, capture_output=True, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(repeat: int = 1) -> None:
    rows = [(name, source, ()) for name, source in AGENTS.items()]
    rows.append(("spins, --agent-isolation process", AGENTS["spins"], ("--agent-isolation", "process")))
    print(f"{'agent':36} {'wall s':>8} {'cpu s':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for name, source, options in rows:
            wall, cpu = min(_timed(Path(folder), source, *options) for _ in range(repeat))
            print(f"{name:36} {wall:8.1f} {cpu:8.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
