"""When to stop sampling a judge, and what each stopping rule costs and risks.

Votes are YES, NO, or none (a sample that failed or could not be read: it costs a call and
does not vote). ADK's rule: the majority of the usable votes, **a tie is NO**.

* Curtailed majority of N: stop as soon as the remaining samples cannot change the
  majority (``majority_settled``); the verdict is always that of all N.
* SPRT (Wald): walk on D = #YES - #NO, stop at D = +h (YES) or -h (NO), or at the cap
  (unsettled: the majority so far, a tie NO); h = ceil(ln((1 - β) / α) / ln((½ + δ) / (½ - δ)))
  (``sprt_barrier``).

The exact operating characteristics of both rules (P(verdict), expected calls, for a judge
voting YES with probability p) are computed here too, for the tests and
``benchmarks/judge_sampling.py`` that check the rules against them.
"""

from __future__ import annotations

import math
from typing import Optional

__all__ = [
    "curtailed_operating_characteristics",
    "majority_settled",
    "sprt_barrier",
    "sprt_operating_characteristics",
]


def majority_settled(yes: int, no: int, remaining: int) -> Optional[bool]:
    """The majority once it can no longer change with ``remaining`` samples to come
    (each may vote either way or fail), under ADK's tie rule; ``None`` while open."""
    if yes > no + remaining:
        return True
    if yes + remaining <= no:
        return False
    return None


def sprt_barrier(alpha: float = 0.05, delta: float = 0.3, beta: Optional[float] = None) -> int:
    """The SPRT's barrier h on #YES - #NO for H0: p = ½ - δ against H1: p = ½ + δ with
    error rates α and β (β = α by default); α = 0.05, δ = 0.3 gives 3."""
    beta = alpha if beta is None else beta
    if not (0 < alpha < 0.5 and 0 < beta < 0.5 and 0 < delta < 0.5):
        raise ValueError("need 0 < alpha, beta < 0.5 and 0 < delta < 0.5")
    step = math.log((0.5 + delta) / (0.5 - delta))
    return max(1, math.ceil(math.log((1 - beta) / alpha) / step - 1e-12))


def curtailed_operating_characteristics(p: float, n: int) -> tuple[float, float]:
    """(P(YES), expected calls) of curtailed majority-of-``n`` with a judge voting YES
    with probability ``p`` (no failures), by exact dynamic programming."""
    states = {(0, 0): 1.0}
    p_yes = expected = 0.0
    for calls in range(n + 1):
        nxt: dict[tuple[int, int], float] = {}
        for (yes, no), prob in states.items():
            decided = majority_settled(yes, no, n - calls)
            if decided is not None:
                p_yes += prob if decided else 0.0
                expected += prob * calls
                continue
            nxt[(yes + 1, no)] = nxt.get((yes + 1, no), 0.0) + prob * p
            nxt[(yes, no + 1)] = nxt.get((yes, no + 1), 0.0) + prob * (1 - p)
        states = nxt
    return p_yes, expected


def sprt_operating_characteristics(p: float, h: int, cap: int) -> tuple[float, float, float, float]:
    """(P(YES), P(NO), P(unsettled), expected calls) of the SPRT with barrier ``h`` and
    ``cap`` for a judge voting YES with probability ``p``, by exact dynamic programming."""
    walk = {0: 1.0}
    p_yes = p_no = expected = 0.0
    for calls in range(cap + 1):
        nxt: dict[int, float] = {}
        for d, prob in walk.items():
            if d >= h or d <= -h:
                p_yes += prob if d > 0 else 0.0
                p_no += prob if d < 0 else 0.0
                expected += prob * calls
            elif calls == cap:
                expected += prob * calls
            else:
                nxt[d + 1] = nxt.get(d + 1, 0.0) + prob * p
                nxt[d - 1] = nxt.get(d - 1, 0.0) + prob * (1 - p)
        walk = nxt
    unsettled = max(0.0, 1.0 - p_yes - p_no)
    return p_yes, p_no, unsettled, expected
