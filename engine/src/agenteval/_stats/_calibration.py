"""A judge against people: how its pass/fail verdicts agree with human labels of the same items.

* Cohen's κ = (p_o − p_e) / (1 − p_e), p_e from the two raters' own pass rates, with a
  seeded BCa bootstrap interval over the labelled items (the asymptotic interval of
  Fleiss, Cohen & Everitt covers as little as 73% at 20 labels; BCa covers ≥ 95% in the
  settings of ``tests/engine/stats/test_calibration.py``). κ is low when the base rate is
  extreme even at high accuracy (Feinstein & Cicchetti 1990): read it with the base rate.
* accuracy, sensitivity P(judge pass | human pass) and specificity P(judge fail | human
  fail), each a Clopper–Pearson interval;
* for graded judge scores, Kendall's τ-b between the judge's score and the human label
  (or the human ``score`` when given).

numpy and scipy are imported inside the functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

from ._interval import Interval
from ._intervals import clopper_pearson
from ._judges import cohen_kappa

__all__ = ["JudgeCalibration", "judge_calibration", "kappa_interval"]

#: Bootstrap resamples of the κ interval.
KAPPA_RESAMPLES = 2000


@dataclass(frozen=True)
class JudgeCalibration:
    """How a judge's verdicts agree with human labels over ``n`` items.

    ``kappa`` is Cohen's κ (``None`` when undefined: both raters give one and the same
    label throughout) and ``kappa_interval`` its interval (method ``bca``, or ``no-data``
    over [−1, 1] when resampling cannot give one); ``accuracy``, ``sensitivity`` and
    ``specificity`` are Clopper–Pearson intervals (``no-data`` with no human pass or
    fail); ``base_rate`` the share of items people passed, ``judge_rate`` the share the
    judge passed; ``rank_correlation`` Kendall's τ-b of graded judge scores against the
    human labels or scores (``None`` for 0/1 judge scores or when undefined)."""

    n: int
    kappa: Optional[float]
    kappa_interval: Interval
    accuracy: Interval
    sensitivity: Interval
    specificity: Interval
    base_rate: float
    judge_rate: float
    rank_correlation: Optional[float] = None


def _kappa(judge, human, axis: int = -1):
    """κ of 0/1 arrays along ``axis`` (0 where undefined, for the resampler)."""
    import numpy as np

    p_o = (judge == human).mean(axis)
    a, b = judge.mean(axis), human.mean(axis)
    p_e = a * b + (1 - a) * (1 - b)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(p_e < 1, (p_o - p_e) / np.where(p_e < 1, 1 - p_e, 1), 0.0)


def kappa_interval(judge: Sequence[bool], human: Sequence[bool], level: float, seed: int) -> Interval:
    """The BCa bootstrap interval of Cohen's κ over the paired items (seeded; percentile
    when BCa's acceleration is undefined; [−1, 1] ``no-data`` when neither is)."""
    import math
    import warnings

    import numpy as np
    from scipy.stats import bootstrap

    n = len(judge)
    found = _kappa_of(judge, human)
    whole = Interval(-1.0, 1.0, found, "no-data", level, n, seed=seed, resamples=KAPPA_RESAMPLES)
    if n < 2:
        return whole
    data = (np.asarray(judge, dtype=float), np.asarray(human, dtype=float))
    for method in ("BCa", "percentile"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = bootstrap(
                data,
                _kappa,
                paired=True,
                vectorized=True,
                n_resamples=KAPPA_RESAMPLES,
                confidence_level=level,
                method=method,
                random_state=np.random.default_rng(seed),
            )
        low, high = (float(x) for x in result.confidence_interval)
        if not (math.isnan(low) or math.isnan(high)):
            low, high = max(-1.0, low), min(1.0, high)
            return Interval(low, high, found, method.lower(), level, n, seed=seed, resamples=KAPPA_RESAMPLES)
    return whole


def _kappa_of(judge: Sequence[bool], human: Sequence[bool]) -> Optional[float]:
    return cohen_kappa(list(judge), list(human)) if judge else None


def judge_calibration(
    judge: Sequence[bool],
    human: Sequence[bool],
    *,
    level: float = 0.95,
    seed: int = 0,
    judge_scores: Optional[Sequence[float]] = None,
    human_scores: Optional[Sequence[Optional[float]]] = None,
) -> JudgeCalibration:
    """The agreement of ``judge`` verdicts with ``human`` labels of the same items (see
    ``JudgeCalibration``). ``judge_scores`` (the judge's graded scores) give the rank
    correlation, against ``human_scores`` where every item has one, else the labels."""
    if len(judge) != len(human):
        raise ValueError("the judge's verdicts and the human labels must be as many")
    n = len(judge)
    agree = sum(j == h for j, h in zip(judge, human, strict=True))
    passed = [j for j, h in zip(judge, human, strict=True) if h]
    failed = [j for j, h in zip(judge, human, strict=True) if not h]
    return JudgeCalibration(
        n=n,
        kappa=_kappa_of(judge, human),
        kappa_interval=kappa_interval(judge, human, level, seed),
        accuracy=clopper_pearson(agree, n, level),
        sensitivity=clopper_pearson(sum(passed), len(passed), level),
        specificity=clopper_pearson(len(failed) - sum(failed), len(failed), level),
        base_rate=sum(human) / n if n else 0.0,
        judge_rate=sum(judge) / n if n else 0.0,
        rank_correlation=_rank_correlation(judge_scores, human, human_scores),
    )


def _rank_correlation(
    judge_scores: Optional[Sequence[float]],
    human: Sequence[bool],
    human_scores: Optional[Sequence[Optional[float]]],
) -> Optional[float]:
    """Kendall's τ-b of graded judge scores against the human scores (all given) or labels."""
    if judge_scores is None or len(judge_scores) < 2 or all(s in (0.0, 1.0) for s in judge_scores):
        return None
    import math

    from scipy.stats import kendalltau

    if human_scores is not None and all(s is not None for s in human_scores):
        reference = [float(s) for s in human_scores]  # type: ignore[arg-type]
    else:
        reference = [float(h) for h in human]
    tau = float(kendalltau(list(judge_scores), reference).statistic)
    return None if math.isnan(tau) else tau
