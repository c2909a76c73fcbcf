"""Adjusted p-values: Holm (family-wise error) and Benjamini–Hochberg (false discovery rate)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["benjamini_hochberg", "holm"]


def _check(p_values: Sequence[float]) -> list[float]:
    out = [float(p) for p in p_values]
    for p in out:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p-values must be in [0, 1], got {p!r}")
    return out


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment, in the input order: the i-th smallest p times
    (K - i + 1), made non-decreasing in rank, capped at 1. Each adjusted p >= its raw p."""
    ps = _check(p_values)
    k = len(ps)
    order = sorted(range(k), key=lambda i: ps[i])
    adjusted = [0.0] * k
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (k - rank) * ps[i]))
        adjusted[i] = running
    return adjusted


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini–Hochberg q-values, in the input order: the i-th smallest p times K / i,
    made non-decreasing in rank from the top, capped at 1. Never above Holm's."""
    ps = _check(p_values)
    k = len(ps)
    order = sorted(range(k), key=lambda i: ps[i])
    adjusted = [0.0] * k
    running = 1.0
    for rank in range(k - 1, -1, -1):
        i = order[rank]
        running = min(running, ps[i] * k / (rank + 1))
        adjusted[i] = min(1.0, max(ps[i], running))
    return adjusted
