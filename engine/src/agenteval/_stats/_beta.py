"""The regularized incomplete beta function and its inverse, in plain Python.

Clopper–Pearson bounds are quantiles of beta distributions. ``scipy.special`` has them, but
importing it costs 0.3–0.5 s, more than a whole deterministic run; these few lines give
the same values (checked against scipy in the tests) at no import cost.

``betainc(a, b, x)`` evaluates the continued fraction of I_x(a, b) (modified Lentz),
on the side of the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where it converges quickly;
``betaincinv(a, b, p)`` bisects it (it is increasing in x) to the last bit of a float.
"""

from __future__ import annotations

import math

__all__ = ["betainc", "betaincinv"]

_TINY = 1e-300
_EPS = 1e-16
_MAX_TERMS = 10_000


def _fraction(a: float, b: float, x: float) -> float:
    """The continued fraction 1 / (1 + d1 / (1 + d2 / (1 + ...))) of I_x(a, b)."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    value = d
    for m in range(1, _MAX_TERMS):
        two_m = 2 * m
        for term in (
            m * (b - m) * x / ((a + two_m - 1.0) * (a + two_m)),  # even step
            -(a + m) * (a + b + m) * x / ((a + two_m) * (a + two_m + 1.0)),  # odd step
        ):
            d = 1.0 + term * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + term / c
            c = c if abs(c) > _TINY else _TINY
            value *= c * d
        if abs(c * d - 1.0) < _EPS:
            break
    return value


def betainc(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function, for a, b > 0 and x in [0, 1]."""
    if a <= 0 or b <= 0:
        raise ValueError(f"need a > 0 and b > 0, got {a!r}, {b!r}")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _fraction(b, a, 1.0 - x) / b


def betaincinv(a: float, b: float, p: float) -> float:
    """The x in [0, 1] with I_x(a, b) = p (bisection until the bracket cannot shrink)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be in [0, 1], got {p!r}")
    if p == 0.0:
        return 0.0
    if p == 1.0:
        return 1.0
    low, high = 0.0, 1.0
    while True:
        middle = 0.5 * (low + high)
        if middle <= low or middle >= high:
            return middle
        if betainc(a, b, middle) < p:
            low = middle
        else:
            high = middle
