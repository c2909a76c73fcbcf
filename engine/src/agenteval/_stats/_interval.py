"""The interval record every method returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

__all__ = ["Interval"]


@dataclass(frozen=True)
class Interval:
    """A two-sided confidence interval ``[low, high]`` for a mean (or a rate).

    ``estimate`` is the point value (the mean of the scored values; ``None`` with no data);
    ``method`` is ``clopper-pearson``, ``betting``, ``bca`` or ``no-data`` (the whole
    range); ``level`` the two-sided confidence level; ``n`` the values used (missing
    ones excluded); ``n_missing`` the values that were missing, which widened the bounds
    (Manski) when ``missing == "bound"``; ``seed`` and ``resamples`` are set for the
    resampling method (BCa) only, so the interval can be recomputed exactly.
    """

    low: float
    high: float
    estimate: Optional[float]
    method: str
    level: float
    n: int
    seed: Optional[int] = None
    resamples: Optional[int] = None
    n_missing: int = 0
    missing: str = "none"

    @property
    def width(self) -> float:
        return self.high - self.low

    def contains(self, value: float) -> bool:
        """``low <= value <= high``."""
        return self.low <= value <= self.high

    def text(self, digits: int = 2) -> str:
        """``"95% interval [0.27, 1.00]"``."""
        return f"{_percent(self.level)} interval [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def _percent(level: float) -> str:
    value = level * 100
    return f"{value:.0f}%" if abs(value - round(value)) < 1e-9 else f"{value:g}%"
