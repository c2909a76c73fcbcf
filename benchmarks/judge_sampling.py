"""Judge sampling: calls made and verdicts with full majority, curtailed majority and the
sequential mode, at several judge leanings.

Scores ``--invocations`` invocations (default 200) with ``final_response_match_v2`` and
``num_samples=5`` through the real google-genai client against the loopback fake Gemini
server of the tests (``tests/fixtures/fake_llm_servers.py``). The fake judge *leans*: for a
leaning p, the k-th answer it gives to a prompt is "valid" when a hash of (prompt, k) falls
below p, so every mode sees the same vote sequence per invocation, whatever the order in
which concurrent calls arrive. For each leaning it prints, per mode, the judge calls made
(against 5 per invocation), the verdicts (valid invocations) and the share of invocations
whose verdict follows the judge's leaning (at p = 0.5 there is none). Then a check line:
full and curtailed majority must give identical verdicts, invocation by invocation.
Beside the measured calls, ``exact`` is the expected number from agenteval._stats'
dynamic programme, for comparison.

A second table groups the same invocations into cases of ``--per-case`` invocations (default
5) at ``--threshold`` (default 0.8, ADK's) and compares curtailed majority with and without
pivotal-only sampling (``judge_sampling: {"pivotal": true}``): the calls of each, the share
saved, the invocations that were not pivotal, and whether every case's point verdict is the
same.

    python benchmarks/judge_sampling.py
    python benchmarks/judge_sampling.py --invocations 40 --leanings 0.6 0.9
    python benchmarks/judge_sampling.py --per-case 10 --threshold 1.0
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODES = {
    "full": {"curtail": False},
    "curtailed": {},
    "sequential": {"mode": "sequential"},
}


def _load_fake_servers():
    path = ROOT / "tests" / "fixtures" / "fake_llm_servers.py"
    spec = importlib.util.spec_from_file_location("_fake_llm_servers", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["_fake_llm_servers"] = module
    spec.loader.exec_module(module)
    return module


def _eval_set(count: int, per_case: int = 1):
    """``count`` invocations, ``per_case`` to a case."""
    from agenteval.models import Content, EvalCase, EvalSet, Invocation

    invocations = [
        Invocation(
            invocation_id=f"inv-{index}",
            user_content=Content.from_text(f"What is {index} plus {index}?"),
            final_response=Content.from_text(f"{index} plus {index} is {2 * index}.", role="model"),
        )
        for index in range(count)
    ]
    cases = [
        EvalCase(eval_id=f"case_{start:04d}", conversation=invocations[start : start + per_case])
        for start in range(0, count, per_case)
    ]
    return EvalSet(eval_set_id="judge_sampling", eval_cases=cases)


class LeaningJudge:
    """A responder whose k-th answer to a prompt is valid with probability ``leaning``."""

    def __init__(self, leaning: float) -> None:
        self.leaning = leaning
        self.asked: dict[str, int] = {}

    def __call__(self, request) -> str:
        prompt = json.dumps(request.body.get("contents"), sort_keys=True)
        k = self.asked.get(prompt, 0)
        self.asked[prompt] = k + 1
        digest = hashlib.sha256(f"{prompt}\x1f{k}".encode()).digest()
        uniform = int.from_bytes(digest[:8], "big") / 2**64
        verdict = "valid" if uniform < self.leaning else "invalid"
        return json.dumps({"reasoning": f"sample {k}", "verdict": verdict})


def _run(eval_set, sampling: dict, server, leaning: float, concurrency: int, threshold: float = 0.5):
    import agenteval
    from agenteval import JudgeService

    server.responder = LeaningJudge(leaning)
    before = len(server.requests)
    criteria = {
        "final_response_match_v2": {
            "threshold": threshold,
            "judge_model_options": {"judge_model": "gemini-2.5-flash", "num_samples": 5},
            "judge_sampling": sampling,
        }
    }
    result = agenteval.evaluate(eval_set, eval_set, criteria, judge=JudgeService(concurrency=concurrency))
    verdicts = []
    not_pivotal = 0
    for case in result.cases():
        (criterion,) = case.criteria.values() if isinstance(case.criteria, dict) else case.criteria
        verdicts.append(criterion.score if threshold == 0.5 else criterion.status)
        not_pivotal += sum(1 for i in criterion.per_invocation or () if i.details.get("pivotal") is False)
    return len(server.requests) - before, verdicts, not_pivotal


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--invocations", type=int, default=200)
    parser.add_argument("--leanings", type=float, nargs="+", default=[0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
    parser.add_argument("--judge-concurrency", type=int, default=16)
    parser.add_argument("--per-case", type=int, default=5, help="invocations per case (pivotal table)")
    parser.add_argument("--threshold", type=float, default=0.8, help="the threshold (pivotal table)")
    args = parser.parse_args(argv)

    from agenteval_llm_judges._stopping import (
        curtailed_operating_characteristics,
        sprt_operating_characteristics,
    )

    servers = _load_fake_servers()
    eval_set = _eval_set(args.invocations)
    n = args.invocations
    print(
        f"judge sampling benchmark: {n} invocations x final_response_match_v2, num_samples=5 "
        f"(sequential: barrier 3, cap 15), fake Gemini server on 127.0.0.1"
    )
    header = f"{'leaning':>7}  {'mode':<10} {'calls':>6} {'per inv':>7} {'exact':>6} {'vs N=5':>7}"
    print(f"{header}  {'valid':>5}  {'follows leaning':>15}")
    identical = True
    with servers.FakeGeminiServer() as server:
        os.environ.update({"GOOGLE_API_KEY": "benchmark-key", "GOOGLE_GEMINI_BASE_URL": server.base_url})
        os.environ.pop("GOOGLE_GENAI_USE_VERTEXAI", None)
        for leaning in args.leanings:
            seen = {}
            for mode, sampling in MODES.items():
                calls, verdicts, _ = _run(eval_set, sampling, server, leaning, args.judge_concurrency)
                seen[mode] = verdicts
                if mode == "full":
                    exact = 5.0
                elif mode == "curtailed":
                    exact = curtailed_operating_characteristics(leaning, 5)[1]
                else:
                    exact = sprt_operating_characteristics(leaning, 3, 15)[3]
                valid = sum(1 for v in verdicts if v == 1.0)
                if leaning == 0.5:
                    follows = "-"
                else:
                    want = 1.0 if leaning > 0.5 else 0.0
                    follows = f"{sum(1 for v in verdicts if v == want) / n:.1%}"
                saved = 1 - calls / (5 * n)
                print(
                    f"{leaning:>7.2f}  {mode:<10} {calls:>6} {calls / n:>7.2f} {exact:>6.2f} "
                    f"{saved:>7.1%}  {valid:>5}  {follows:>15}"
                )
            same = seen["full"] == seen["curtailed"]
            identical &= same
            if not same:
                print(f"   leaning {leaning}: full and curtailed verdicts DIFFER")
        print(f"check: full and curtailed majority verdicts identical: {'yes' if identical else 'NO'}")
        same_cases = _pivotal_table(args, servers, server)
    print(
        "check: case verdicts with and without pivotal-only sampling identical: "
        + ("yes" if same_cases else "NO")
    )
    return 0 if identical and same_cases else 1


def _pivotal_table(args, servers, server) -> bool:
    """Curtailed majority with and without pivotal-only sampling, cases of several invocations."""
    per_case, threshold = args.per_case, args.threshold
    eval_set = _eval_set(args.invocations, per_case)
    cases = len(eval_set.eval_cases)
    print()
    print(
        f"pivotal-only sampling: the same {args.invocations} invocations as {cases} cases of {per_case}, "
        f"threshold {threshold}, curtailed majority of 5"
    )
    print(
        f"{'leaning':>7}  {'curtailed':>9}  {'pivotal':>7}  {'saved':>6}  {'not pivotal':>11}  "
        f"{'cases passed':>12}  {'verdicts identical':>18}"
    )
    identical = True
    for leaning in args.leanings:
        calls, verdicts, _ = _run(eval_set, {}, server, leaning, args.judge_concurrency, threshold)
        p_calls, p_verdicts, skipped = _run(
            eval_set, {"pivotal": True}, server, leaning, args.judge_concurrency, threshold
        )
        same = verdicts == p_verdicts
        identical &= same
        passed = sum(1 for v in verdicts if v.value == "PASSED")
        print(
            f"{leaning:>7.2f}  {calls:>9}  {p_calls:>7}  {1 - p_calls / calls:>6.1%}  {skipped:>11}  "
            f"{passed:>5} of {cases:<3}  {'yes' if same else 'NO':>18}"
        )
    return identical


if __name__ == "__main__":
    raise SystemExit(main())
