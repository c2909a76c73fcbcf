"""Judge throughput: effective concurrency of LLM-judge calls, and the cache.

Scores ``--invocations`` invocations (default 200) with ``final_response_match_v2`` and
``num_samples=5`` (1,000 judge calls) through the real google-genai client against a fake
Gemini server of ours on 127.0.0.1 that answers every call after ``--latency`` seconds
(default 0.2). The server runs in its own process, as a real one would: in-process it would
compete with the client for the interpreter lock. Prints:

* wall time and effective concurrency = calls × latency / wall, against the configured
  ``--judge-concurrency`` (goal: at least 80% of it; ADK 2.13 runs these calls one at a
  time by default);
* a second, identical run served from the answer cache: its judge calls (goal: zero) and
  wall time (goal: under 2 s).

    python benchmarks/judge_concurrency.py
    python benchmarks/judge_concurrency.py --invocations 40 --judge-concurrency 16
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _eval_set(count: int):
    from agenteval.models import Content, EvalCase, EvalSet, Invocation

    cases = []
    for index in range(count):
        invocation = Invocation(
            invocation_id=f"inv-{index}",
            user_content=Content.from_text(f"What is {index} plus {index}?"),
            final_response=Content.from_text(f"{index} plus {index} is {2 * index}.", role="model"),
        )
        cases.append(EvalCase(eval_id=f"case_{index:04d}", conversation=[invocation]))
    return EvalSet(eval_set_id="judge_benchmark", eval_cases=cases)


def _run(eval_set, concurrency: int, cache_dir: Path):
    import agenteval
    from agenteval.judging import JudgeCache, JudgeService

    judge = JudgeService(concurrency=concurrency, cache=JudgeCache(cache_dir))
    criteria = {
        "final_response_match_v2": {
            "threshold": 0.5,
            "judge_model_options": {"judge_model": "gemini-2.5-flash", "num_samples": 5},
        }
    }
    started, cpu = time.perf_counter(), time.process_time()
    result = agenteval.evaluate(eval_set, eval_set, criteria, judge=judge)
    _run.cpu_seconds = time.process_time() - cpu
    return result, time.perf_counter() - started


_SERVER = """
import importlib.util, sys, time
def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
servers = load("_fake_llm_servers", sys.argv[1])
answers = load("_schema_answers", sys.argv[2])
with servers.FakeGeminiServer(latency=float(sys.argv[3])) as server:
    server.responder = lambda request: answers.answer_for(request.body)
    print(server.base_url, flush=True)
    sys.stdin.read()  # serve until the benchmark closes our standard input
    print(len(server.requests), flush=True)
"""


def _start_server(latency: float) -> tuple[subprocess.Popen, str]:
    fixtures = ROOT / "tests" / "fixtures"
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _SERVER,
            str(fixtures / "fake_llm_servers.py"),
            str(fixtures / "schema_answers.py"),
            str(latency),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    return process, process.stdout.readline().strip()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--invocations", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the fake server takes per call")
    parser.add_argument("--judge-concurrency", type=int, default=32)
    args = parser.parse_args(argv)

    eval_set = _eval_set(args.invocations)
    process, base_url = _start_server(args.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            os.environ.update({"GOOGLE_API_KEY": "benchmark-key", "GOOGLE_GEMINI_BASE_URL": base_url})
            os.environ.pop("GOOGLE_GENAI_USE_VERTEXAI", None)
            first, wall = _run(eval_set, args.judge_concurrency, Path(tmp))
            calls = first.summary.judge.calls
            effective = calls * args.latency / wall
            passed = first.summary.cases
            print(
                f"judge benchmark: {args.invocations} invocations x final_response_match_v2, num_samples=5, "
                f"fake Gemini server (own process) with {args.latency * 1000:.0f} ms per call"
            )
            print(
                f"first run:  {calls} judge calls in {wall:.2f} s; effective concurrency {effective:.1f} "
                f"of {args.judge_concurrency} configured ({100 * effective / args.judge_concurrency:.0f}%); "
                f"cases: {', '.join(f'{n} {s.value.lower()}' for s, n in passed.items() if n)}"
            )
            per_call = _run.cpu_seconds / max(calls, 1)
            print(
                f"            client CPU {per_call * 1000:.1f} ms per call (SDK request/response handling "
                f"included): at most {args.latency / per_call:.0f} calls of {args.latency * 1000:.0f} ms "
                f"can be kept in flight by one process"
            )
            second, wall2 = _run(eval_set, args.judge_concurrency, Path(tmp))
            judge = second.summary.judge
            print(
                f"second run: {judge.calls} judge calls ({judge.cache_hits} from the cache) in {wall2:.2f} s"
            )
            same = [c.status for c in first.cases()] == [c.status for c in second.cases()]
            print(f"same verdicts both runs: {'yes' if same else 'NO'}")
    finally:
        process.stdin.close()
        served = process.stdout.readline().strip()
        process.wait(timeout=30)
    print(f"the server answered {served} requests in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
