"""Judge throughput: effective concurrency of LLM-judge calls, the cache, and a 429 storm.

Scores ``--invocations`` invocations (default 200) with ``final_response_match_v2`` and
``num_samples=5`` (1,000 judge calls) through the real google-genai client against a fake
Gemini server of ours on 127.0.0.1 that answers every call after ``--latency`` seconds
(default 0.2). The server runs in its own process, as a real one would: in-process it would
compete with the client for the interpreter lock. Prints:

* wall time and effective concurrency = calls x latency / wall, at the default
  ``--judge-concurrency`` (16) unless told otherwise (goal: at least 90% of it; ADK 2.13
  runs these calls one at a time by default), and the same over the judging span the
  server saw (its first call to its last answer), which leaves out the start of the run
  (imports, planning) before the first call; then where the slots' time went over that
  span: the judge slots held on average (a call holds its slots while its provider call
  runs), and a call's time in its slots against the server's own time per call;
* a second, identical run served from the answer cache: its judge calls (goal: zero) and
  wall time (goal: under 2 s);
* a 429 storm: a server that serves at most ``--storm-capacity`` calls at once (default 6)
  and answers every call beyond that with HTTP 429 and ``Retry-After: 0.2``. With the
  adaptive per-endpoint limit (halved on 429, grown back by one per window of successes)
  the effective concurrency should approach the capacity, with few 429s and no failed
  calls; printed: answered calls, 429s, retries, failures, effective concurrency and the
  limit the service settled on;
* the judge service alone (an in-process provider, no SDK or HTTP) at 100, 300 and 1,000
  calls: effective concurrency at the default limit and under the same 429 storm, so the
  cost of the limits themselves is told apart from the SDK's CPU per call;
* case admission (an in-process provider through the whole run, no SDK or HTTP): the same
  invocations with a unanimous judge (curtailed sampling asks 3 of 5) and one that says no
  once (3, then a 4th: the case waits for the first answers before asking again), at limits
  16, 32 and 64: calls used and saved, and the judge calls in flight over the judging span.
  A run admits enough cases for every judge slot to have one (``EvalRun.units_in_flight``),
  so the limit stays full while curtailment still saves its calls.

The fake server answers on kept-alive connections with Nagle's algorithm off, as real HTTP
servers do (Go's net/http, nginx's ``tcp_nodelay``). Python's ``http.server`` writes an
answer's headers and its body in two sends; with Nagle on, the body of an answer on a
kept-alive connection waited for the client's delayed ACK (about 40 ms on Linux) - a stall
of the fake server, not of the client, which ``--server-nagle`` puts back to compare.

    python benchmarks/judge_concurrency.py
    python benchmarks/judge_concurrency.py --invocations 40 --judge-concurrency 16
    python benchmarks/judge_concurrency.py --only admission
    python benchmarks/judge_concurrency.py --only sdk --server-nagle
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
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


def _run(eval_set, concurrency: int, cache_dir: Path | None):
    import agenteval
    from agenteval import JudgeCache, JudgeService

    cache = JudgeCache(cache_dir) if cache_dir is not None else None
    judge = JudgeService(concurrency=concurrency, cache=cache)
    _run.judge = judge
    criteria = {
        "final_response_match_v2": {
            "threshold": 0.5,
            "judge_model_options": {"judge_model": "gemini-2.5-flash", "num_samples": 5},
        }
    }
    started, cpu = time.perf_counter(), time.process_time()
    with _slots_timed() as _run.slots:
        result = agenteval.evaluate(eval_set, eval_set, criteria, judge=judge)
    _run.cpu_seconds = time.process_time() - cpu
    return result, time.perf_counter() - started


@contextlib.contextmanager
def _slots_timed():
    """The (start, end) on ``time.monotonic`` of every provider call the judge service makes
    (``JudgeService._bounded_call``, run while the call holds its judge slots)."""
    from agenteval._judging import _service

    held: list[tuple[float, float]] = []
    bounded = _service.JudgeService._bounded_call

    async def timed(model, request, options):
        start = time.monotonic()
        try:
            return await bounded(model, request, options)
        finally:
            held.append((start, time.monotonic()))

    _service.JudgeService._bounded_call = staticmethod(timed)
    try:
        yield held
    finally:
        _service.JudgeService._bounded_call = staticmethod(bounded)


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
latency, capacity, nagle = float(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "nagle"
throttled, started, answering = [], [], []
# No stall before an answer's body: TCP_NODELAY, as real servers set it (see the docstring).
servers._Handler.disable_nagle_algorithm = not nagle
dispatch = servers._Handler._dispatch
def timed(handler, method):
    received = time.monotonic()
    dispatch(handler, method)
    answering.append(time.monotonic() - received)  # request read to answer sent
servers._Handler._dispatch = timed
with servers.FakeGeminiServer() as server:
    server.keep_alive = True  # persistent connections, as a real endpoint keeps them
    def respond(request):
        if capacity and server.in_flight > capacity:
            throttled.append(1)
            return servers.Reply(status=429, retry_after=0.2)
        started.append(time.monotonic())
        return servers.Reply(text=answers.answer_for(request.body), delay=latency)
    server.responder = respond
    print(server.base_url, flush=True)
    sys.stdin.read()  # serve until the benchmark closes our standard input
    first = min(started) if started else 0.0
    span = max(started) + latency - first if started else 0.0
    took = sum(answering) / len(answering) if answering else 0.0
    print(len(server.requests), len(throttled), server.max_in_flight, first, span, took, flush=True)
"""


def _start_server(latency: float, capacity: int = 0, nagle: bool = False) -> tuple[subprocess.Popen, str]:
    fixtures = ROOT / "tests" / "fixtures"
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _SERVER,
            str(fixtures / "fake_llm_servers.py"),
            str(fixtures / "schema_answers.py"),
            str(latency),
            str(capacity),
            "nagle" if nagle else "nodelay",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    return process, process.stdout.readline().strip()


@dataclass(frozen=True)
class _Served:
    """What the fake server saw: requests, how many it answered 429, the most answered at
    once, the judging span (``first``, on ``time.monotonic``, the first call answered, to the
    last answer, ``span`` seconds later) and its mean seconds per request (read to sent)."""

    requests: int
    throttled: int
    most: int
    first: float
    span: float
    per_request: float


def _stop_server(process: subprocess.Popen) -> _Served:
    process.stdin.close()
    served = process.stdout.readline().split()
    process.wait(timeout=30)
    return _Served(int(served[0]), int(served[1]), int(served[2]), *map(float, served[3:6]))


def _slot_time(held: list[tuple[float, float]], served: _Served, concurrency: int, nagle: bool) -> None:
    """Where the judge slots' time went over the judging span: the slots held on average, and
    the slot time per call (held within the span, over the calls) against the server's time
    per request; effective concurrency = held x latency / slot time per call."""
    if not held or not served.span:
        return
    start, end = served.first, served.first + served.span
    in_span = sum(max(0.0, min(stop, end) - max(begin, start)) for begin, stop in held)
    per_call = in_span / len(held)
    print(
        f"            judge slots held over the span {in_span / served.span:.1f} of {concurrency}; "
        f"slot time per call {per_call * 1000:.1f} ms: the server's {served.per_request * 1000:.1f} ms "
        f"(request read to answer sent; Nagle {'on' if nagle else 'off'}) and "
        f"{(per_call - served.per_request) * 1000:.1f} ms in the client (SDK, HTTP, event loop) and "
        "between the processes"
    )


def _storm(eval_set, args) -> None:
    from agenteval._judging import DEFAULT_JUDGE_CONCURRENCY

    concurrency = args.judge_concurrency or DEFAULT_JUDGE_CONCURRENCY
    process, base_url = _start_server(args.latency, args.storm_capacity)
    try:
        os.environ["GOOGLE_GEMINI_BASE_URL"] = base_url
        result, wall = _run(eval_set, concurrency, None)
    finally:
        served = _stop_server(process)
    requests, throttled = served.requests, served.throttled
    judge = result.summary.judge
    failed = sum(judge.failures.values())
    answered = requests - throttled
    [limit] = _run.judge.progress().limits.values() or [0]
    print(
        f"429 storm:  server capacity {args.storm_capacity} calls at once, 429 + Retry-After 0.2 s beyond; "
        f"limit {concurrency}, adaptive"
    )
    print(
        f"            {answered} calls answered, {throttled} answered 429 ({judge.retries} retries), "
        f"{failed} failed for good, in {wall:.2f} s; effective concurrency "
        f"{answered * args.latency / wall:.1f} of a capacity of {args.storm_capacity}; "
        f"the endpoint's limit ended at {limit}"
    )


def _service_alone(latency: float, capacity: int) -> None:
    """The judge service with an in-process provider (no SDK, no HTTP): what the limits
    themselves allow, at several sizes."""
    import asyncio

    from agenteval import JudgeOptions, JudgeRequest, JudgeResponse, JudgeService
    from agenteval._judging import DEFAULT_JUDGE_CONCURRENCY
    from agenteval._registry import ProviderRegistry
    from agenteval.errors import JudgeCallError
    from agenteval.plugins import JudgeModel

    class Sleeper(JudgeModel):
        """Answers after ``latency``; with ``capacity``, a 429 beyond that many at once."""

        limit = 0
        in_flight = throttled = 0

        async def generate(self, request: JudgeRequest) -> JudgeResponse:
            cls = type(self)
            if cls.limit and cls.in_flight >= cls.limit:
                cls.throttled += 1
                await asyncio.sleep(0.005)
                raise JudgeCallError("rate limited", retryable=True, status=429, retry_after=latency)
            cls.in_flight += 1
            try:
                await asyncio.sleep(latency)
            finally:
                cls.in_flight -= 1
            return JudgeResponse(text="ok")

        def identity(self) -> dict:
            return {"provider": "sleeper", "model": self.model}

    async def measure(count: int, limit: int) -> tuple[float, int, int]:
        Sleeper.limit, Sleeper.throttled = limit, 0
        judges = JudgeService(providers=ProviderRegistry(classes={"sleeper": Sleeper}))
        options = JudgeOptions(judge_model="sleeper:m", max_retries=10)
        started = time.perf_counter()
        outcomes = await asyncio.gather(
            *(judges.generate("c", JudgeRequest(prompt=str(i)), options) for i in range(count)),
            return_exceptions=True,
        )
        wall = time.perf_counter() - started
        answered = sum(1 for outcome in outcomes if not isinstance(outcome, BaseException))
        [slots] = judges.progress().limits.values()
        return answered * latency / wall, Sleeper.throttled, slots

    print(
        f"service alone (in-process provider, {latency * 1000:.0f} ms per call, no SDK or HTTP): "
        f"effective concurrency at the default limit ({DEFAULT_JUDGE_CONCURRENCY}) and under a 429 storm "
        f"(capacity {capacity}, adaptive limit)"
    )
    print("   calls   default limit   429 storm   429s   limit at the end")
    for count in (100, 300, 1000):
        plain, _, _ = asyncio.run(measure(count, 0))
        storm, throttled, slots = asyncio.run(measure(count, capacity))
        print(f"   {count:5d}   {plain:13.1f}   {storm:9.1f}   {throttled:4d}   {slots:16d}")


def _load_fixture(name: str):
    spec = importlib.util.spec_from_file_location(f"_{name}", ROOT / "tests" / "fixtures" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _admission(invocations: int, latency: float) -> None:
    """Whole runs with an in-process judge (no SDK, no HTTP): whether the cases admitted keep
    the judge's limit full while curtailed sampling waits for each batch's answers."""
    from agenteval import JudgeResponse, JudgeService
    from agenteval._registry import ProviderRegistry
    from agenteval.plugins import JudgeModel

    instance_of = _load_fixture("schema_answers").instance_of
    budget = invocations * 5

    class Judge(JudgeModel):
        """Answers after ``latency``: always "valid" (unanimous), or, when ``split``, "invalid"
        to a question's second call (curtailed sampling asks 3, then a 4th, saving the 5th)."""

        split = False
        asked: dict[str, int] = {}
        calls: list[tuple[float, float]] = []

        async def generate(self, request):
            cls = type(self)
            count = cls.asked[request.prompt] = cls.asked.get(request.prompt, 0) + 1
            flip = cls.split and count == 2
            started = time.perf_counter()
            await asyncio.sleep(latency)
            cls.calls.append((started, time.perf_counter()))
            answer = instance_of(request.response_schema, lambda _path, options: options[flip % len(options)])
            return JudgeResponse(text=json.dumps(answer))

        def identity(self) -> dict:
            return {"provider": "in-process", "model": self.model}

    import agenteval

    eval_set = _eval_set(invocations)
    print(
        f"case admission (in-process judge, {latency * 1000:.0f} ms per call, no SDK or HTTP): "
        f"{invocations} invocations x final_response_match_v2, num_samples=5 ({budget} calls without "
        "curtailment); judge calls in flight over the judging span (first call to last answer)"
    )
    print("   judge      limit   calls   saved   wall s   in flight   of the limit")
    for split in (False, True):
        for limit in (16, 32, 64):
            Judge.split, Judge.asked, Judge.calls = split, {}, []
            judge = JudgeService(concurrency=limit, providers=ProviderRegistry(classes={"in-process": Judge}))
            criteria = {
                "final_response_match_v2": {
                    "threshold": 0.5,
                    "judge_model_options": {"judge_model": "in-process:judge", "num_samples": 5},
                }
            }
            started = time.perf_counter()
            agenteval.evaluate(eval_set, eval_set, criteria, judge=judge)
            wall = time.perf_counter() - started
            first, last = min(c[0] for c in Judge.calls), max(c[1] for c in Judge.calls)
            in_flight = sum(end - start for start, end in Judge.calls) / (last - first)
            calls, name = len(Judge.calls), "2 to 1" if split else "unanimous"
            print(
                f"   {name:9s}  {limit:5d}   {calls:5d}   {budget - calls:5d}   "
                f"{wall:6.2f}   {in_flight:9.1f}   {100 * in_flight / limit:11.0f}%"
            )


def main(argv=None) -> int:
    from agenteval._judging import DEFAULT_JUDGE_CONCURRENCY

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--invocations", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the fake server takes per call")
    parser.add_argument(
        "--judge-concurrency", type=int, default=0, help=f"default: agenteval's ({DEFAULT_JUDGE_CONCURRENCY})"
    )
    parser.add_argument(
        "--storm-capacity", type=int, default=6, help="calls the 429-storm server serves at once"
    )
    parser.add_argument(
        "--only",
        choices=("all", "sdk", "admission"),
        default="all",
        help="sdk: the runs through the google-genai SDK alone; admission: that table alone",
    )
    parser.add_argument(
        "--server-nagle",
        action="store_true",
        help="leave Nagle's algorithm on in the fake server (an answer's body waits for a delayed ACK)",
    )
    args = parser.parse_args(argv)
    concurrency = args.judge_concurrency or DEFAULT_JUDGE_CONCURRENCY
    if args.only == "admission":
        _admission(args.invocations, args.latency)
        return 0

    eval_set = _eval_set(args.invocations)
    os.environ.update({"GOOGLE_API_KEY": "benchmark-key", "AGENTEVAL_JUDGE_BACKOFF_SECONDS": "0.2"})
    os.environ.pop("GOOGLE_GENAI_USE_VERTEXAI", None)
    process, base_url = _start_server(args.latency, nagle=args.server_nagle)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["GOOGLE_GEMINI_BASE_URL"] = base_url
            first, wall = _run(eval_set, concurrency, Path(tmp))
            held = _run.slots
            calls = first.summary.judge.calls
            effective = calls * args.latency / wall
            passed = first.summary.cases
            print(
                f"judge benchmark: {args.invocations} invocations x final_response_match_v2, num_samples=5, "
                f"fake Gemini server (own process) with {args.latency * 1000:.0f} ms per call"
            )
            print(
                f"first run:  {calls} judge calls in {wall:.2f} s; effective concurrency {effective:.1f} "
                f"of {concurrency} configured ({100 * effective / concurrency:.0f}%); "
                f"cases: {', '.join(f'{n} {s.value.lower()}' for s, n in passed.items() if n)}"
            )
            per_call = _run.cpu_seconds / max(calls, 1)
            print(
                f"            client CPU {per_call * 1000:.1f} ms per call (SDK request/response handling "
                f"included): at most {args.latency / per_call:.0f} calls of {args.latency * 1000:.0f} ms "
                f"can be kept in flight by one process"
            )
            second, wall2 = _run(eval_set, concurrency, Path(tmp))
            judge = second.summary.judge
            print(
                f"second run: {judge.calls} judge calls ({judge.cache_hits} from the cache) in {wall2:.2f} s"
            )
            same = [c.status for c in first.cases()] == [c.status for c in second.cases()]
            print(f"same verdicts both runs: {'yes' if same else 'NO'}")
    finally:
        served = _stop_server(process)
    span = served.span
    print(f"the server answered {served.requests} requests in all, at most {served.most} at once")
    spanned = calls * args.latency / span if span else 0.0
    print(
        f"judging span (the server's first call to its last answer) {span:.2f} s of the first run's "
        f"{wall:.2f} s: effective concurrency over it {spanned:.1f} of {concurrency} "
        f"({100 * spanned / concurrency:.0f}%)"
    )
    _slot_time(held, served, concurrency, args.server_nagle)
    if args.only == "sdk":
        return 0
    if args.storm_capacity:
        _storm(eval_set, args)
    _service_alone(args.latency, args.storm_capacity or 6)
    _admission(args.invocations, args.latency)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
