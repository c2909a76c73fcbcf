"""Majority votes over judge samples (ADK's rule: a tie fails) and the means built on them."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Optional

__all__ = ["majority", "mean"]


def majority(votes: Iterable[Optional[float]]) -> Optional[float]:
    """1.0 when more votes are 1.0 than 0.0, else 0.0 (**a tie is 0.0**, as in ADK);
    ``None`` when there is no vote. ``None`` entries (no vote) are ignored."""
    passed = failed = 0
    for vote in votes:
        if vote is None:
            continue
        if vote >= 0.5:
            passed += 1
        else:
            failed += 1
    if passed + failed == 0:
        return None
    return 1.0 if passed > failed else 0.0


def mean(values: Sequence[Optional[float]]) -> Optional[float]:
    """The mean of the non-``None`` values; ``None`` when there is none."""
    kept = [v for v in values if v is not None]
    return math.fsum(kept) / len(kept) if kept else None
