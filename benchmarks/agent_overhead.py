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
    python benchmarks/agent_overhead.py --write                       # docs/agents.md's rows:
    python benchmarks/agent_overhead.py --write --turn-seconds 0.05 --cases 50 --criteria response_match_score

``--write`` merges the rows measured into ``agent_overhead_figures.json`` (beside this
script; a row replaces the one of the same criterion, size and agent speed) and prints the
lines docs/agents.md quotes (``doc_lines``); ``tests/docs/test_row_figures.py`` keeps the
two equal.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from _figures import machine, measured_on, table_row, write, write_option
from _phases import timed_phases

HERE = Path(__file__).resolve().parent
JSON_PATH = HERE / "agent_overhead_figures.json"
#: What a recorded row is known by (``--write`` replaces the row with the same values).
KEY = ("criterion", "cases", "turn_seconds")
_TRAJECTORY, _ROUGE = "tool_trajectory_avg_score", "response_match_score"

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
    parser.add_argument("--criteria", nargs="+", default=[_TRAJECTORY, _ROUGE])
    parser.add_argument(
        "--turn-seconds",
        type=float,
        default=0.0,
        help="how long the agent takes per turn (0: a no-op agent; try 0.05 for a fast real one)",
    )
    write_option(parser, JSON_PATH, "docs/agents.md")
    args = parser.parse_args()
    agent = "a no-op agent" if not args.turn_seconds else f"an agent taking {args.turn_seconds:g} s per turn"
    print(f"{agent} through `agenteval run --agent`; median of {args.repeat} runs per size")
    print(
        f"{'criterion':<26} {'cases':>6} {'total s':>8} {'start-up s':>10} {'exit s':>7} "
        f"{'fixed s':>8} {'per case ms':>12}"
    )
    rows = []
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
                rows.append(
                    {
                        "criterion": criterion,
                        "cases": cases,
                        "turn_seconds": args.turn_seconds,
                        "repeat": args.repeat,
                        **median,
                        "per_case_ms": per_case,
                        **machine(),
                    }
                )
    print("fixed = start-up to the first agent call + last agent call to exit (goal < 1 s)")
    if args.write:
        write(args.write, rows, KEY, doc_lines, "docs/agents.md")


def doc_lines(rows: list[dict]) -> dict[str, str]:
    """The lines docs/agents.md quotes from the recorded rows, by name: the table's rows of a
    no-op agent (each criterion: start-up and exit at every size, per case at the largest)
    and of an agent that takes time per turn, and the sentence saying how they were measured."""
    lines = {}
    noop = [row for row in rows if not row["turn_seconds"]]
    for criterion, label in (
        (_TRAJECTORY, f"a no-op Python function, `{_TRAJECTORY}`"),
        (_ROUGE, f"the same with `{_ROUGE}`"),
    ):
        found = sorted((row for row in noop if row["criterion"] == criterion), key=lambda row: row["cases"])
        if not found:
            continue
        sizes = " / ".join(f"{row['cases']:,}" for row in found)
        if criterion == _TRAJECTORY:
            label += f", {sizes} cases"
        startup = " / ".join(f"{row['startup']:.2f}" for row in found)
        exit_ = " / ".join(f"{row['exit']:.2f}" for row in found)
        per_case = f"{found[-1]['per_case_ms']:.1f} ms"
        lines[criterion] = table_row([label, f"{startup} s", f"{exit_} s", per_case])
    for row in rows:
        if row["turn_seconds"]:
            speed = f"{row['turn_seconds'] * 1000:g} ms per turn"
            label = f"a Python function taking {speed}, `{row['criterion']}`"
            lines[f"{row['criterion']} {row['turn_seconds']:g} s"] = table_row(
                [f"{label}, {row['cases']:,} cases", f"{row['startup']:.2f} s", f"{row['exit']:.2f} s"]
                + ["(the agent's own time)"]
            )
    if rows:
        lines["machine"] = f"Python agents: `benchmarks/agent_overhead.py`, {measured_on(rows)}."
    return lines


if __name__ == "__main__":
    main()
