"""The plain-Python incomplete beta function (Clopper–Pearson without scipy) against scipy."""

from __future__ import annotations

import math

import pytest
from agenteval._stats._beta import betainc, betaincinv
from hypothesis import given, settings
from hypothesis import strategies as st

shapes = st.one_of(st.integers(1, 5000).map(float), st.floats(0.2, 200.0))


@settings(deadline=None, max_examples=200)
@given(a=shapes, b=shapes, x=st.floats(0.0, 1.0))
def test_betainc_matches_scipy(a, b, x):
    from scipy.special import betainc as oracle

    ours, theirs = betainc(a, b, x), float(oracle(a, b, x))
    if ours == pytest.approx(theirs, abs=1e-11):
        return
    # Where the function is steep (x next to 0 or 1 with a shape below 1: the slope grows
    # like 1/sqrt(1 - x)), one unit in the last place of x moves the value by more than the
    # tolerance, and scipy's own rounding shows: then ours must lie within the values at the
    # neighbouring floats.
    around = [float(oracle(a, b, min(1.0, max(0.0, math.nextafter(x, t))))) for t in (0.0, 1.0)]
    assert min(around) - 1e-11 <= ours <= max(around) + 1e-11


@settings(deadline=None, max_examples=100)
@given(a=st.integers(1, 3000), b=st.integers(1, 3000), p=st.floats(1e-6, 1 - 1e-6))
def test_betaincinv_matches_scipy_and_inverts(a, b, p):
    from scipy.special import betaincinv as oracle

    x = betaincinv(a, b, p)
    assert 0.0 <= x <= 1.0
    assert x == pytest.approx(float(oracle(a, b, p)), abs=1e-9)  # p in the tails Clopper–Pearson uses


def test_edges_and_errors():
    assert betainc(2, 3, 0.0) == 0.0 and betainc(2, 3, 1.0) == 1.0
    assert betaincinv(2, 3, 0.0) == 0.0 and betaincinv(2, 3, 1.0) == 1.0
    assert betaincinv(17, 4, 0.025) == pytest.approx(0.62107317345, abs=1e-10)
    with pytest.raises(ValueError):
        betainc(0, 1, 0.5)
    with pytest.raises(ValueError):
        betaincinv(1, 1, 1.5)


def test_clopper_pearson_imports_no_scipy():
    import subprocess
    import sys

    code = (
        "import sys; from agenteval._stats import clopper_pearson; clopper_pearson(17, 20); "
        "print(any(m.split('.')[0] == 'scipy' for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
