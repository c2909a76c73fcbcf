"""How much judge samples agree (and Cohen's κ between two raters).

Votes are ``True`` (YES / valid), ``False`` (NO) or ``None`` (a sample that failed or
could not be read). When to stop sampling is the judge plugin's (``agenteval-llm-judges``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

__all__ = [
    "cohen_kappa",
    "JudgeAgreement",
    "judge_agreement",
    "krippendorff_alpha",
]


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
