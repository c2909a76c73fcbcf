"""Judge sampling: when to stop asking, and how much the samples agree.

Votes are ``True`` (YES / valid), ``False`` (NO) or ``None`` (a sample that failed or
could not be read: it costs a call and does not vote). ADK's rule: the majority of the
usable votes, **a tie is NO**.

* Curtailed majority of N: stop as soon as the remaining samples cannot change the
  majority; the verdict is always that of all N.
* SPRT (Wald): walk on D = #YES - #NO, stop at D = +h (YES) or -h (NO), or at the cap
  (unsettled: the majority so far, a tie NO); h = ceil(ln((1 - β) / α) / ln((½ + δ) / (½ - δ))).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

__all__ = [
    "cohen_kappa",
    "JudgeAgreement",
    "SampledVote",
    "curtailed_operating_characteristics",
    "judge_agreement",
    "krippendorff_alpha",
    "majority_settled",
    "sprt_barrier",
    "sprt_operating_characteristics",
]


@dataclass(frozen=True)
class SampledVote:
    """The outcome of one sampled question: ``verdict`` (``None`` when no usable vote),
    ``calls`` made, ``yes`` / ``no`` usable votes among them, and ``settled`` (False
    only for an SPRT stopped by its cap)."""

    verdict: Optional[bool]
    calls: int
    yes: int
    no: int
    settled: bool = True


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


def cohen_kappa(first: Sequence[object], second: Sequence[object]) -> Optional[float]:
    """Cohen's κ between two raters' labels of the same items (p_o - p_e) / (1 - p_e);
    ``None`` when undefined (both raters use one and the same label throughout)."""
    if len(first) != len(second) or not first:
        raise ValueError("Cohen's kappa needs two equally long, non-empty label lists")
    n = len(first)
    p_o = sum(1 for x, y in zip(first, second, strict=True) if x == y) / n
    labels = set(first) | set(second)
    p_e = math.fsum((list(first).count(c) / n) * (list(second).count(c) / n) for c in labels)
    if p_e == 1.0:
        return None
    return (p_o - p_e) / (1.0 - p_e)


def _pair_disagreement(values: Sequence[float], level: str) -> float:
    """Σ over ordered pairs i ≠ j of δ²(v_i, v_j)."""
    m = len(values)
    if level == "nominal":
        counts: dict[float, int] = {}
        for v in values:
            counts[v] = counts.get(v, 0) + 1
        return float(m * m - sum(c * c for c in counts.values()))
    total = math.fsum(values)
    squares = math.fsum(v * v for v in values)
    return 2.0 * (m * squares - total * total)


def krippendorff_alpha(units: Sequence[Sequence[Optional[float]]], level: str = "nominal") -> Optional[float]:
    """Krippendorff's α over ``units`` (one list of values per invocation, e.g. its judge
    samples; ``None`` is a missing value), at the ``nominal`` or ``interval`` level.
    Units with fewer than 2 values are not pairable and are skipped. α = 1 - D_o / D_e;
    ``None`` when it is undefined (fewer than 2 pairable values, or no variation at all)."""
    if level not in ("nominal", "interval"):
        raise ValueError(f"level must be 'nominal' or 'interval', got {level!r}")
    pairable = [[float(v) for v in unit if v is not None] for unit in units]
    pairable = [u for u in pairable if len(u) >= 2]
    n = sum(len(u) for u in pairable)
    if n < 2:
        return None
    observed = math.fsum(_pair_disagreement(u, level) / (len(u) - 1) for u in pairable) / n
    expected = _pair_disagreement([v for u in pairable for v in u], level) / (n * (n - 1))
    if expected == 0.0:
        return None
    return 1.0 - observed / expected


@dataclass(frozen=True)
class JudgeAgreement:
    """A judge's self-agreement over the invocations with at least 2 usable votes
    (``n_items``): ``unanimity`` (share with every vote alike), ``fragile`` (count whose
    vote margin |#YES - #NO| is at most 1), ``pairwise_agreement`` (mean share of agreeing
    vote pairs) and Krippendorff's nominal α (``None`` when undefined: e.g. all votes
    alike). All ``None`` / 0 when ``n_items`` is 0."""

    n_items: int
    unanimity: Optional[float]
    fragile: int
    pairwise_agreement: Optional[float]
    krippendorff_alpha: Optional[float]


def judge_agreement(votes: Sequence[Sequence[Optional[bool]]]) -> JudgeAgreement:
    """Self-agreement of the votes of each invocation (see ``JudgeAgreement``)."""
    items = [[v for v in unit if v is not None] for unit in votes]
    items = [u for u in items if len(u) >= 2]
    if not items:
        return JudgeAgreement(0, None, 0, None, None)
    unanimous = fragile = 0
    pairwise = []
    for unit in items:
        k, m = sum(unit), len(unit)
        unanimous += k in (0, m)
        fragile += abs(2 * k - m) <= 1
        pairwise.append((k * (k - 1) + (m - k) * (m - k - 1)) / (m * (m - 1)))
    alpha = krippendorff_alpha([[float(v) for v in u] for u in items], "nominal")
    count = len(items)
    return JudgeAgreement(count, unanimous / count, fragile, math.fsum(pairwise) / count, alpha)
