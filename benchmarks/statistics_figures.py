"""Every figure docs/statistics.md quotes, computed from agenteval._stats (and the judge sampling
figures from agenteval-llm-judges' stopping rules).

    python benchmarks/statistics_figures.py            # print the figures and the doc lines they fill
    python benchmarks/statistics_figures.py --write    # also write benchmarks/statistics_figures.json

Exact figures (binomial sums, dynamic programming, intervals) are computed whole each time;
the two simulated ones (per-set wrong FAILs) are seeded. ``tests/docs/test_statistics_figures.py``
checks that each ``doc`` line below appears in docs/statistics.md as printed here and that the
JSON is current, so a figure in the doc cannot drift from the code.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
JSON_PATH = HERE / "statistics_figures.json"


def _binom_tail(n: int, p: float, at_least: int) -> float:
    return math.fsum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(at_least, n + 1))


def adk_coin_flip() -> dict:
    """0/1 runs, threshold 0.8, true pass rate 0.7, 5 runs: ADK's mean-of-runs rule says PASS."""
    return {"p_pass": _binom_tail(5, 0.7, 4)}


def settle_counts() -> dict:
    """At threshold 0.8 with 0/1 runs: passing runs in a row for a PASS, failing for a FAIL."""
    from agenteval._stats import case_verdict

    def first(value: float, verdict: str) -> int:
        n = 2
        while case_verdict([value] * n, 0.8, hint=False).verdict.value != verdict:
            n += 1
        return n

    return {"pass_runs": first(1.0, "PASS"), "fail_runs": first(0.0, "FAIL")}


def zero_failure_bounds() -> dict:
    """Threshold at the best value: the pass rate's 95% lower bound after k perfect runs."""
    from agenteval._stats import clopper_pearson

    return {f"k{k}": clopper_pearson(k, k, 0.95).low for k in (5, 17)}


def betting_example() -> dict:
    from agenteval._stats import betting_interval

    found = betting_interval([1.0, 0.667, 1.0, 1.0, 0.667], 0.0, 1.0, 0.95)
    return {"low": found.low, "high": found.high}


def pass_rate_example() -> dict:
    from agenteval._stats import clopper_pearson

    found = clopper_pearson(32, 40, 0.95)
    return {"low": found.low, "high": found.high}


def mcnemar_example() -> dict:
    from agenteval._stats import sign_flip_test

    differences = [1.0] * 3 + [-1.0] * 11
    one_sided = min(
        sign_flip_test(differences, "less").p_value, sign_flip_test(differences, "greater").p_value
    )
    return {"p": min(1.0, 2 * one_sided)}


def mde_example() -> dict:
    from agenteval._stats import minimum_detectable_effect

    return {"mde": minimum_detectable_effect(0.2, 30)}


def case_flags() -> dict:
    from agenteval._stats import flag_min_runs, smallest_case_p

    return {
        "p2": smallest_case_p(2, 2),
        "p3": smallest_case_p(3, 3),
        "p4": smallest_case_p(4, 4),
        "min_runs": flag_min_runs(0.10),
    }


def curtailment() -> dict:
    from agenteval_llm_judges._stopping import curtailed_operating_characteristics

    saving = {p: 1.0 - curtailed_operating_characteristics(p, 5)[1] / 5 for p in (0.5, 1.0)}
    return {"saving_at_half": saving[0.5], "saving_unanimous": saving[1.0]}


def sequential_error() -> dict:
    """Wrong-verdict rates at a judge leaning of 0.7: the SPRT (h = 3, cap 15; an unsettled
    invocation keeps its majority, a tie NO) and the majority of 5."""
    from agenteval_llm_judges._stopping import sprt_barrier

    h, cap, p = sprt_barrier(0.05, 0.3), 15, 0.7
    walk, wrong = {0: 1.0}, 0.0
    for calls in range(cap + 1):
        nxt: dict[int, float] = {}
        for d, prob in walk.items():
            if abs(d) >= h or calls == cap:
                wrong += prob if d <= 0 else 0.0
                continue
            nxt[d + 1] = nxt.get(d + 1, 0.0) + prob * p
            nxt[d - 1] = nxt.get(d - 1, 0.0) + prob * (1 - p)
        walk = nxt
    return {"barrier": h, "sprt_wrong": wrong, "majority_wrong": 1.0 - _binom_tail(5, p, 3)}


def identical_runs() -> dict:
    """k identical runs: the lower bound on how often the agent gives that output."""
    from agenteval._stats import clopper_pearson

    bounds = {f"k{k}": clopper_pearson(k, k, 0.95).low for k in (3, 5, 10)}
    # a random agent, one perfect answer 75% of the time: 5 identical perfect runs
    return {**bounds, "repeats_at_075": 0.75**5}


def _set_wrong_fail(
    rule: str, p: float, cases: int, runs: int, threshold: float, sets: int, seed: int
) -> float:
    """The share of ``sets`` simulated eval sets wrongly FAILed: every case has 0/1 runs
    with pass rate ``p`` >= ``threshold``, so no case truly misses it."""
    import numpy as np
    from agenteval._stats import case_verdict, set_verdict

    rng = np.random.default_rng(seed)
    verdict_of: dict[int, tuple[str, str]] = {}  # by passes: 0/1 runs depend on nothing else
    failed = 0
    for _ in range(sets):
        passes = rng.binomial(runs, p, size=cases)
        runs_by_case = [[1.0] * int(k) + [0.0] * (runs - int(k)) for k in passes]
        verdicts = []
        for k, scores in zip(passes, runs_by_case, strict=False):
            if int(k) not in verdict_of:
                found = case_verdict(scores, threshold, hint=False)
                verdict_of[int(k)] = (found.verdict.value, found.basis.value)
            verdicts.append(verdict_of[int(k)])
        if set_verdict(runs_by_case, verdicts, threshold, rule=rule).verdict.value == "FAIL":
            failed += 1
    return failed / sets


def set_errors(sets: int = 20000) -> dict:
    """10 cases of 5 runs each, threshold 0.8: sets wrongly FAILed, cases at 0.85 and at 0.8."""
    out = {"sets": sets}
    for rule in ("any-case", "holm"):
        for p in (0.85, 0.8):
            out[f"{rule}@{p}"] = _set_wrong_fail(rule, p, 10, 5, 0.8, sets, seed=25)
    return out


FIGURES: dict[str, Callable[[], dict]] = {
    "adk_coin_flip": adk_coin_flip,
    "settle_counts": settle_counts,
    "zero_failure_bounds": zero_failure_bounds,
    "betting_example": betting_example,
    "pass_rate_example": pass_rate_example,
    "mcnemar_example": mcnemar_example,
    "mde_example": mde_example,
    "case_flags": case_flags,
    "curtailment": curtailment,
    "sequential_error": sequential_error,
    "identical_runs": identical_runs,
    "set_errors": set_errors,
}


def _pct(value: float, digits: int = 1) -> str:
    return f"{value * 100:.{digits}f}%"


def doc_lines(f: dict) -> dict[str, str]:
    """The text each figure takes in docs/statistics.md (checked by the docs test)."""
    s = f["set_errors"]
    return {
        "adk_coin_flip": (
            "ADK's rule (the mean of 5 runs ≥ the threshold) says PASS "
            f"{_pct(f['adk_coin_flip']['p_pass'], 0)} of the time"
        ),
        "settle_counts": (
            f"a PASS needs {f['settle_counts']['pass_runs']} passing runs in a row, "
            f"a FAIL {f['settle_counts']['fail_runs']} failing ones"
        ),
        "zero_failure_bounds": (
            f"5 perfect runs: at least {_pct(f['zero_failure_bounds']['k5'])}; "
            f"17: at least {_pct(f['zero_failure_bounds']['k17'])}"
        ),
        "betting_example": (
            f"Five runs scoring [1, .667, 1, 1, .667] give **[{f['betting_example']['low']:.2f}, "
            f"{f['betting_example']['high']:.2f}]**"
        ),
        "pass_rate_example": (
            f"(32 of 40: [{f['pass_rate_example']['low']:.3f}, {f['pass_rate_example']['high']:.3f}])"
        ),
        "mcnemar_example": f"3 cases improved and 11 regressed give p = {f['mcnemar_example']['p']:.6f}",
        "mde_example": f"(30 cases with sd(d) = 0.2: {f['mde_example']['mde']:.3f})",
        "case_flags": (
            f"the smallest p a case can reach is {f['case_flags']['p2']:.3f} with 2 runs a side, "
            f"{f['case_flags']['p3']:.3f} with 3 and {f['case_flags']['p4']:.3f} with 4, so a case is "
            f"tested only from **{f['case_flags']['min_runs']} runs a side**"
        ),
        "curtailment": (
            f"the expected saving at N = 5 is {_pct(f['curtailment']['saving_at_half'])} (a judge leaning "
            f"0.5) to {_pct(f['curtailment']['saving_unanimous'], 0)} (a unanimous one)"
        ),
        "sequential_error": (
            f"At a judge leaning of 0.7 it is wrong {_pct(f['sequential_error']['sprt_wrong'])} of the time "
            f"against {_pct(f['sequential_error']['majority_wrong'])} for majority-of-5"
        ),
        "identical_runs": (
            f"at least {_pct(f['identical_runs']['k3'])} of runs after 3 identical runs, "
            f"{_pct(f['identical_runs']['k5'])} after 5, {_pct(f['identical_runs']['k10'])} after 10"
        ),
        "identical_runs_random": (
            f"repeats the perfect one in 5 runs {_pct(f['identical_runs']['repeats_at_075'])} of the time"
        ),
        "set_errors": (
            f"| `any-case` | {_pct(s['any-case@0.85'])} | {_pct(s['any-case@0.8'])} |\n"
            f"| `holm` | {_pct(s['holm@0.85'])} | {_pct(s['holm@0.8'])} |"
        ),
    }


def compute(names: tuple[str, ...] = tuple(FIGURES)) -> dict:
    return {name: FIGURES[name]() for name in names}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {JSON_PATH.name}")
    args = parser.parse_args(argv)
    figures = compute()
    for name, value in figures.items():
        print(f"{name}: {json.dumps(value)}")
    print()
    for name, line in doc_lines(figures).items():
        print(f"[{name}] {line}")
    if args.write:
        JSON_PATH.write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
