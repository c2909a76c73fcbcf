"""An ADK agent under `agenteval run --agent` and under ADK's own `adk eval`: the same agent
folder, the same eval set, the time each tool adds around the agent.

The agent is a real google-adk ``LlmAgent`` whose model is a no-op ``BaseLlm`` (it answers
at once with a fixed sentence and writes a timestamp at its first and last call), so every
second measured is the tool's own: start-up to the first model call, the agent phase, and
the last model call to exit. Needs the agenteval-adk plugin in this interpreter; with
``--adk-cli PATH`` (an ``adk`` executable, e.g. from a venv with ``google-adk==2.13.0``) the
same folder also runs under ``adk eval``.

    python benchmarks/adk_agent_overhead.py
    python benchmarks/adk_agent_overhead.py --adk-cli /tmp/adkvenv/bin/adk --cases 20 200
    python benchmarks/adk_agent_overhead.py --adk-cli "$(dirname "$(which python)")/adk" --write

``--write`` merges the rows measured into ``adk_agent_overhead_figures.json`` (beside this
script; a row replaces the one of the same tool and size) and prints the lines
docs/agents.md quotes (``doc_lines``); ``tests/docs/test_row_figures.py`` keeps the two
equal.
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
JSON_PATH = HERE / "adk_agent_overhead_figures.json"
#: What a recorded row is known by (``--write`` replaces the row with the same values).
KEY = ("tool", "cases")
AGENTEVAL, ADK_EVAL = "agenteval run --agent", "adk eval"

AGENT_PY = """
import os, time
from typing import AsyncGenerator

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types


class NoOpModel(BaseLlm):
    model: str = "no-op"

    async def generate_content_async(self, llm_request, stream=False) -> AsyncGenerator[LlmResponse, None]:
        stamp = repr(time.time())
        first = os.environ["AGENTEVAL_BENCH_FIRST"]
        if not os.path.exists(first):
            with open(first, "w") as handle:
                handle.write(stamp)
        with open(os.environ["AGENTEVAL_BENCH_LAST"], "w") as handle:
            handle.write(stamp)
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="It is sunny.")]))


root_agent = LlmAgent(name="weather", model=NoOpModel(), instruction="Answer about the weather.")
"""


def _eval_set(count: int) -> dict:
    turn = {
        "user_content": {"role": "user", "parts": [{"text": "Weather?"}]},
        "final_response": {"role": "model", "parts": [{"text": "It is sunny."}]},
        "intermediate_data": {"tool_uses": [], "tool_responses": [], "intermediate_responses": []},
    }
    return {
        "eval_set_id": "overhead",
        "eval_cases": [
            {"eval_id": f"case_{i:05d}", "conversation": [{**turn, "invocation_id": f"inv-{i}"}]}
            for i in range(count)
        ],
    }


def _agent_folder(workdir: Path, cases: int) -> tuple[Path, Path]:
    folder = workdir / "noop_weather"
    folder.mkdir(exist_ok=True)
    (folder / "__init__.py").write_text("from . import agent\n")
    (folder / "agent.py").write_text(AGENT_PY)
    (folder / "test_config.json").write_text(
        json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}})
    )
    evalset = folder / f"overhead_{cases}.evalset.json"
    evalset.write_text(json.dumps(_eval_set(cases)))
    return folder, evalset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, nargs="+", default=[20, 200])
    parser.add_argument("--repeat", type=int, default=3, help="runs per size; the median is shown")
    parser.add_argument("--adk-cli", help="an `adk` executable to compare with (google-adk 2.13)")
    write_option(parser, JSON_PATH, "docs/agents.md")
    args = parser.parse_args()
    agenteval = Path(sys.executable).with_name("agenteval")
    tools = {}
    tools[AGENTEVAL] = lambda folder, evalset: [
        str(agenteval),
        "run",
        str(evalset),
        "--agent",
        str(folder),
        "--format",
        "json",
        "--output",
        str(folder.parent / "result.json"),
    ]
    if args.adk_cli:
        tools[ADK_EVAL] = lambda folder, evalset: [args.adk_cli, "eval", str(folder), str(evalset)]
    print(f"a no-op ADK agent (LlmAgent + no-op BaseLlm); median of {args.repeat} runs")
    print(
        f"{'tool':<22} {'cases':>6} {'total s':>8} {'start-up s':>10} {'agent s':>8} {'exit s':>7} "
        f"{'fixed s':>8} {'per case ms':>12}"
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for cases in args.cases:
            folder, evalset = _agent_folder(workdir, cases)
            totals = {}
            for name, command in tools.items():
                runs = [timed_phases(command(folder, evalset), workdir) for _ in range(args.repeat)]
                m = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
                totals[name] = m
                per_case_ms = m["agent_phase"] / max(cases - 1, 1) * 1000
                print(
                    f"{name:<22} {cases:>6} {m['total']:>8.2f} {m['startup']:>10.2f} "
                    f"{m['agent_phase']:>8.2f} {m['exit']:>7.2f} {m['startup'] + m['exit']:>8.2f} "
                    f"{per_case_ms:>12.2f}"
                )
                version = _version(args.adk_cli) if name == ADK_EVAL else None
                rows.append(
                    {"tool": name, "cases": cases, "repeat": args.repeat, **m, "per_case_ms": per_case_ms}
                    | {"adk_version": version, **machine()}
                )
            if len(totals) == 2:
                ours, adk = totals[AGENTEVAL], totals[ADK_EVAL]
                print(
                    f"{'':<22} {cases:>6} adk eval / agenteval: total {adk['total'] / ours['total']:.1f}x, "
                    f"start-up {adk['startup'] / ours['startup']:.1f}x"
                )
    print("fixed = start-up to the first model call + last model call to exit")
    if args.write:
        write(args.write, rows, KEY, doc_lines, "docs/agents.md")


def _version(command: str) -> str:
    """google-adk's version beside the ``adk`` executable (its venv's), as a doc names it."""
    import subprocess

    python = Path(command).with_name("python")
    found = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('google-adk'))"],
        capture_output=True,
        text=True,
    )
    return found.stdout.strip() or "unknown"


def doc_lines(rows: list[dict]) -> dict[str, str]:
    """The lines docs/agents.md quotes from the recorded rows, by name: the table's row for
    each tool (start-up and exit at every size, per case at the largest) and the sentence
    saying how they were measured."""
    lines = {}
    for tool, label in (
        (AGENTEVAL, "a no-op ADK agent (LlmAgent on a no-op `BaseLlm`)"),
        (ADK_EVAL, "the same agent under `adk eval`"),
    ):
        found = sorted((row for row in rows if row["tool"] == tool), key=lambda row: row["cases"])
        if not found:
            continue
        if tool == AGENTEVAL:
            label += ", " + " / ".join(f"{row['cases']:,}" for row in found) + " cases"
        else:
            label += f" (google-adk {found[0]['adk_version']})"
        startup = " / ".join(f"{row['startup']:.1f}" for row in found)
        exit_ = " / ".join(f"{row['exit']:.1f}" for row in found)
        lines[tool] = table_row([label, f"{startup} s", f"{exit_} s", f"{found[-1]['per_case_ms']:.0f} ms"])
    if rows:
        lines["machine"] = f"ADK agents: `benchmarks/adk_agent_overhead.py`, {measured_on(rows)}."
    return lines


if __name__ == "__main__":
    main()
