"""An eval set's verdict over its cases, with the error it controls stated.

A set of C cases asks C questions at once. Its PASS needs every case to PASS, so a wrong
PASS of the set needs a wrong PASS of some case: at most (1 - level) / 2, whatever C
(an intersection-union test needs no correction). Its FAIL needs only one case to FAIL,
so with each case at (1 - level) / 2 a set of C cases sitting at their thresholds is
wrongly FAILed up to C times as often. The ``rule`` says what the set verdict controls:

* ``holm`` (the default): a case FAILs the set only when it FAILs at Holm's step-down
  levels over the set's C cases (the first step is Bonferroni's, 1 - (1 - level) / C), so
  a wrong FAIL of the set is at most (1 - level) / 2 too;
* ``any-case``: the set FAILs when any case FAILs at the case's own level (no
  correction); the error is controlled per case only;
* ``mean``: the verdict of the mean over cases (the case the unit, ``case_verdict`` with
  ``unit="case"``): "is the average case at the threshold?", a different question.

A case NOT_EVALUATED fails the set under every rule; a FAIL that is not the verdict of an
interval over runs (one run's point verdict, a zero-failure or identical-runs FAIL, a
judge's settled votes) is not corrected: no level would change it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

from ._interval import _percent
from ._verdict import Basis, Verdict, case_verdict, combine_verdicts

__all__ = ["SET_VERDICT_RULES", "SetVerdict", "set_verdict"]

#: The rules an eval set's verdict can follow (``statistics.set_verdict``).
SET_VERDICT_RULES = ("holm", "any-case", "mean")
#: Verdicts on one observation: one run, or runs that gave identical outputs.
_POINT_BASES = (Basis.SINGLE_RUN.value, Basis.IDENTICAL_RUNS.value)
#: Each verdict by its value (looked up once per case: faster than ``Verdict(value)``).
_VERDICTS = {v.value: v for v in Verdict}


@dataclass(frozen=True)
class SetVerdict:
    """An eval set's verdict for one criterion.

    ``rule`` is one of ``SET_VERDICT_RULES``; ``reason`` says why in one sentence (for
    INCONCLUSIVE: which cases keep it open, or which per-case FAILs the correction does
    not keep); ``guarantee`` states the error the verdict controls; ``failing`` are the
    indices of the cases that FAIL the set (after the correction under ``holm``).
    """

    verdict: Verdict
    rule: str
    reason: str
    guarantee: str
    failing: tuple[int, ...] = ()


def _names(ids: Sequence[str], indices: Sequence[int], limit: int = 3) -> str:
    shown = ", ".join(ids[i] for i in indices[:limit])
    return shown + (f" and {len(indices) - limit} more" if len(indices) > limit else "")


def set_verdict(
    runs_by_case: Sequence[Sequence[Optional[float]]],
    verdicts: Sequence[tuple[str, str]],
    threshold: float,
    *,
    lo: float = 0.0,
    hi: float = 1.0,
    higher_is_better: bool = True,
    level: float = 0.95,
    rule: str = "holm",
    seeds: Optional[Sequence[int]] = None,
    mean_seed: int = 0,
    case_ids: Optional[Sequence[str]] = None,
) -> SetVerdict:
    """The set's verdict from its cases: each case's run scores (``None`` a missing run)
    and its own (verdict, basis), as ``case_verdict`` gave them at ``level``. ``seeds``
    (one per case) re-seed the BCa intervals that Holm's levels recompute, ``mean_seed``
    the mean's under ``mean``; ``case_ids`` name the cases in ``reason``."""
    if rule not in SET_VERDICT_RULES:
        raise ValueError(f"rule must be one of {', '.join(SET_VERDICT_RULES)}, got {rule!r}")
    n = len(verdicts)
    ids = case_ids if case_ids is not None else [f"case {i + 1}" for i in range(n)]
    side = f"{(1.0 - level) / 2:.1%}"
    if rule == "mean":
        means = [_mean(runs) for runs in runs_by_case]
        pooled = case_verdict(
            means,
            threshold,
            lo=lo,
            hi=hi,
            higher_is_better=higher_is_better,
            level=level,
            unit="case",
            seed=mean_seed,
            hint=False,
        )
        return SetVerdict(
            pooled.verdict,
            rule,
            f"the mean over {n} cases: {pooled.reason}",
            f"on the mean over {n} cases, not on each case: a wrong PASS or FAIL at most {side}",
        )
    own = [_VERDICTS[v] if v in _VERDICTS else Verdict(v) for v, _ in verdicts]
    missing = [i for i, v in enumerate(own) if v is Verdict.NOT_EVALUATED]
    if rule == "any-case":
        failing = [i for i, v in enumerate(own) if v in (Verdict.FAIL, Verdict.NOT_EVALUATED)]
        verdict = combine_verdicts(own)
        guarantee = (
            f"per case only, no correction: a set of {n} cases at their thresholds is wrongly "
            f"FAILed up to {n} x {side} of the time"
        )
        return SetVerdict(
            verdict, rule, _reason(verdict, own, failing, ids, n, ""), guarantee, tuple(failing)
        )
    # holm: certain FAILs first, then the interval FAILs step by step.
    certain: list[int] = []
    candidates: list[int] = []
    runs_basis = Basis.RUNS.value
    for i, (v, b) in enumerate(verdicts):
        if v == "FAIL":
            (candidates if b == runs_basis else certain).append(i)
    failing = sorted(set(missing) | set(certain))
    alpha = 1.0 - level
    remaining = n - len(failing)
    while candidates and remaining > 0:
        step = 1.0 - alpha / remaining
        found = [
            i
            for i in candidates
            if case_verdict(
                runs_by_case[i],
                threshold,
                lo=lo,
                hi=hi,
                higher_is_better=higher_is_better,
                level=step,
                seed=seeds[i] if seeds else 0,
                hint=False,
            ).verdict
            is Verdict.FAIL
        ]
        if not found:
            break
        failing.extend(found)
        candidates = [i for i in candidates if i not in found]
        remaining -= len(found)
    failing.sort()
    if failing:
        verdict = Verdict.FAIL
    elif all(v is Verdict.PASS for v in own):
        verdict = Verdict.PASS
    else:
        verdict = Verdict.INCONCLUSIVE
    kept_open = ""
    if candidates and verdict is not Verdict.FAIL:
        kept_open = (
            f"; {_names(ids, candidates)} FAIL{'s' if len(candidates) == 1 else ''} at {_percent(level)} "
            f"but not at Holm's {_percent(1.0 - alpha / max(remaining, 1))} over {n} cases"
        )
    guarantee = f"per set, Holm over {n} cases: a wrong FAIL at most {side}, a wrong PASS at most {side}"
    points = sum(1 for _, b in verdicts if b in _POINT_BASES)
    if points == n:
        guarantee = (
            "none beyond the point verdicts: every case was decided on one observation "
            "(one run or identical runs)"
        )
    elif points:
        guarantee += f" ({points} case(s) decided on one observation keep their point verdict)"
    return SetVerdict(
        verdict, rule, _reason(verdict, own, failing, ids, n, kept_open), guarantee, tuple(failing)
    )


def _mean(runs: Sequence[Optional[float]]) -> Optional[float]:
    scored = [s for s in runs if s is not None]
    return math.fsum(scored) / len(scored) if scored else None


def _reason(
    verdict: Verdict,
    own: Sequence[Verdict],
    failing: Sequence[int],
    ids: Sequence[str],
    n: int,
    kept_open: str,
) -> str:
    if verdict is Verdict.FAIL:
        return f"{len(failing)} of {n} cases fail the set: {_names(ids, failing)}"
    if verdict is Verdict.PASS:
        return f"all {n} cases PASS"
    open_ = [i for i, v in enumerate(own) if v is not Verdict.PASS]
    return f"{len(open_)} of {n} cases are not shown to PASS: {_names(ids, open_)}{kept_open}"
