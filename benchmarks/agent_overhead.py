"""The cost agenteval adds around the agent under test: fixed start-up/exit and per case.

Runs ``agenteval run EVALSET --agent noop.py:respond`` as a subprocess, as a user would,
with a no-op agent (it answers at once) on generated eval sets of ``--cases`` single-turn
cases (default: 50 and 500). The agent writes a timestamp at its first and last call, so
the run splits into:

* fixed cost = start-up to the first agent call + the last agent call to process exit
  (goal: under 1 s; ``adk eval`` spends about 9 s before its first model call);
* per-case overhead = the time between the first and last agent call, per case (how
  much the engine spends around each agent turn: sessions, bookkeeping, scheduling; with
  ``--turn-seconds`` it includes the agent's own time).

Criteria set up in the background while the agent runs (``Evaluator.prepare``: ROUGE's
nltk import), so with a no-op agent that setup lands in the exit phase, and with an agent
that takes real time per turn (``--turn-seconds 0.05``) it disappears behind the turns.

Each size is run with a trajectory criterion and with ``response_match_score`` (ROUGE-1,
whose rouge-score dependency imports nltk: about half a second of start-up on its own).

    python benchmarks/agent_overhead.py
    python benchmarks/agent_overhead.py --cases 50 500 2000 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from _phases import timed_phases

NOOP_AGENT = """
import os, time

_first = True

def respond(message, history):
    global _first
    stamp = time.time()
    if _first:
        _first = False
        with open(os.environ["AGENTEVAL_BENCH_FIRST"], "w") as handle:
            handle.write(repr(stamp))
    with open(os.environ["AGENTEVAL_BENCH_LAST"], "w") as handle:
        handle.write(repr(stamp))
    time.sleep(float(os.environ["AGENTEVAL_BENCH_TURN_SECONDS"]))
    return "It is sunny."
"""


def _eval_set(count: int) -> dict:
    return {
        "eval_set_id": "overhead",
        "eval_cases": [
            {
                "eval_id": f"case_{index:05d}",
                "conversation": [
                    {
                        "invocation_id": f"inv-{index}",
                        "user_content": {"role": "user", "parts": [{"text": f"Weather in city {index}?"}]},
                        "final_response": {"role": "model", "parts": [{"text": "It is sunny."}]},
                    }
                ],
            }
            for index in range(count)
        ],
    }


def _agenteval() -> list[str]:
    """The installed console script beside this interpreter (what a user runs)."""
    script = Path(sys.executable).with_name("agenteval")
    return [str(script)] if script.exists() else [sys.executable, "-m", "agenteval"]


def measure(cases: int, criterion: str, workdir: Path, turn_seconds: float = 0.0) -> dict[str, float]:
    evalset = workdir / f"overhead_{cases}.evalset.json"
    evalset.write_text(json.dumps(_eval_set(cases)))
    agent = workdir / "noop_agent.py"
    agent.write_text(NOOP_AGENT)
    command = [
        *_agenteval(),
        "run",
        str(evalset),
        "--agent",
        f"{agent}:respond",
        "--criteria",
        criterion,
        "--format",
        "json",
        "--output",
        str(workdir / "result.json"),
    ]
    return timed_phases(command, workdir, {"AGENTEVAL_BENCH_TURN_SECONDS": repr(turn_seconds)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, nargs="+", default=[50, 500])
    parser.add_argument("--repeat", type=int, default=3, help="runs per size; the median is shown")
    parser.add_argument(
        "--criteria", nargs="+", default=["tool_trajectory_avg_score", "response_match_score"]
    )
    parser.add_argument(
        "--turn-seconds",
        type=float,
        default=0.0,
        help="how long the agent takes per turn (0: a no-op agent; try 0.05 for a fast real one)",
    )
    args = parser.parse_args()
    agent = "a no-op agent" if not args.turn_seconds else f"an agent taking {args.turn_seconds:g} s per turn"
    print(f"{agent} through `agenteval run --agent`; median of {args.repeat} runs per size")
    print(
        f"{'criterion':<26} {'cases':>6} {'total s':>8} {'start-up s':>10} {'exit s':>7} "
        f"{'fixed s':>8} {'per case ms':>12}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for criterion in args.criteria:
            for cases in args.cases:
                runs = [measure(cases, criterion, Path(tmp), args.turn_seconds) for _ in range(args.repeat)]
                median = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
                fixed = median["startup"] + median["exit"]
                per_case = median["agent_phase"] / max(cases - 1, 1) * 1000
                print(
                    f"{criterion:<26} {cases:>6} {median['total']:>8.2f} {median['startup']:>10.2f} "
                    f"{median['exit']:>7.2f} {fixed:>8.2f} {per_case:>12.3f}"
                )
    print("fixed = start-up to the first agent call + last agent call to exit (goal < 1 s)")


if __name__ == "__main__":
    main()
