"""Reading OpenTelemetry traces as actual invocations (agenteval-otel), at 1k/10k/100k traces.

What it does: for each size, writes a seeded OTLP JSONL file (one export request per line,
one trace per request) of that many ADK-v2-style traces, each one turn of about 50 spans
(a workflow, an agent, and 24 model calls each followed by a tool call, with messages and
tool arguments as JSON text), then times ``OtelReader.read_actual`` on it for as many cases
(matched by ``agenteval.case_id``) and prints traces and spans per second, the file's size
and the process's peak memory (``ru_maxrss``; the file is read whole, so memory grows with it).

    python benchmarks/otel_import.py                     # 1k and 10k traces
    python benchmarks/otel_import.py --sizes 1000,10000,100000
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

from agenteval.models import EvalCase, Invocation
from agenteval_otel import OtelReader

PAIRS = 24  # model call + tool call pairs per trace: 2 + 2 * 24 = 50 spans


def _attrs(values: dict) -> list[dict]:
    out = []
    for key, value in values.items():
        if isinstance(value, int):
            out.append({"key": key, "value": {"intValue": str(value)}})
        else:
            text = value if isinstance(value, str) else json.dumps(value)
            out.append({"key": key, "value": {"stringValue": text}})
    return out


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
                    "gen_ai.output.messages": [{"role": "assistant", "parts": [call]}],
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


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated numbers of traces")
    args = parser.parse_args(argv)
    rng = random.Random(7)
    columns = ("traces", "spans", "file MB", "seconds", "traces/s", "spans/s", "peak MB")
    print(" ".join(f"{name:>9}" for name in columns))
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "traces.jsonl"
            with path.open("w", encoding="utf-8") as handle:
                for index in range(size):
                    handle.write(_trace(index, rng) + "\n")
            user = Invocation.model_validate({"user_content": {"role": "user", "parts": [{"text": "q"}]}})
            cases = [EvalCase(eval_id=f"c{i}", conversation=[user]) for i in range(size)]
            started = time.perf_counter()
            eval_set = OtelReader().read_actual(path, cases)
            seconds = time.perf_counter() - started
            assert len(eval_set.eval_cases) == size
            spans = size * (2 + 2 * PAIRS)
            megabytes = path.stat().st_size / 1e6
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"{size:>9} {spans:>9} {megabytes:>9.1f} {seconds:>9.2f} {size / seconds:>9.0f} "
            f"{spans / seconds:>9.0f} {peak:>9.0f}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
