"""Votes over judge samples: ADK's majority (a tie fails), when to stop sampling, the means.

How many samples a question takes (the ``judge_sampling`` criterion parameter):

* ``mode: fixed`` (default), ``curtail: true`` (default): majority of ``num_samples``,
  drawn in batches that stop as soon as the remaining samples cannot change the majority.
  The verdict is always that of all ``num_samples``; it takes fewer calls (a unanimous
  judge: 3 of 5). ``curtail: false`` asks all ``num_samples`` at once, as ADK does.
* ``mode: sequential``: Wald's SPRT on #YES - #NO, stopping at ±h with
  h = ceil(ln((1 - α) / α) / ln((½ + δ) / (½ - δ))) (α 0.05, δ 0.3: h = 3), or at
  ``max_samples`` calls (then the majority so far, a tie NO, marked unsettled).
* ``pivotal: true`` (either mode; default false): a criterion whose case score is the mean
  of its invocations judges them in turn, and once the case's point verdict can no longer
  change whatever the remaining invocations score, each remaining one gets a single sample
  (see ``_pivotal``).

A sample that failed or could not be read costs a call and does not vote. A batch never
holds more samples than the fewest any outcome could still need, so curtailment never
overshoots what one-at-a-time sampling would ask. The stopping rules themselves are the
``_stopping``'s, which also analyses them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Optional

from agenteval import Params
from pydantic import Field

from ._stopping import majority_settled, sprt_barrier

__all__ = ["JudgeSampling", "VoteDecision", "majority", "majority_settled", "mean"]


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


def _majority_needs(yes: int, no: int, remaining: int) -> int:
    """The fewest further samples after which the majority could be settled: all YES
    settles it after m with yes + m > no + remaining - m; all NO (each also shrinking what
    remains) after m with yes + remaining - m <= no + m."""
    return min((no + remaining - yes) // 2 + 1, -(-(yes + remaining - no) // 2))


#: ``--judge-sampling`` values and what each sets.
_RUN_MODES: dict[str, dict[str, Any]] = {
    "majority": {"mode": "fixed", "curtail": False, "pivotal": False},
    "curtailed": {"mode": "fixed", "curtail": True, "pivotal": False},
    "sequential": {"mode": "sequential", "pivotal": False},
    "pivotal": {"mode": "fixed", "curtail": True, "pivotal": True},
}


@dataclass(frozen=True)
class VoteDecision:
    """One question's (or one rubric's) decision: ``score`` 1.0 / 0.0 (``None`` without a
    usable vote), and ``settled`` (False only when the sequential cap stopped it)."""

    score: Optional[float]
    settled: bool = True


class JudgeSampling(Params):
    """How many judge samples a question takes: see the module docstring.

    ``mode``: ``fixed`` (majority of ``judge_model_options.num_samples``) or ``sequential``
    (SPRT). ``curtail`` (fixed mode): stop once the majority is decided (same verdicts,
    fewer calls). ``alpha`` and ``delta`` (sequential, both in (0, 0.5)): the error rate
    and the indifference zone around ½ that set the barrier; ``max_samples`` (1-100):
    the cap on calls per question. ``pivotal``: only invocations that can still change the
    case's point verdict get the full sampling; the others one sample each.
    """

    mode: Literal["fixed", "sequential"] = "fixed"
    curtail: bool = True
    alpha: float = Field(default=0.05, gt=0.0, lt=0.5)
    delta: float = Field(default=0.3, gt=0.0, lt=0.5)
    max_samples: int = Field(default=15, ge=1, le=100)
    pivotal: bool = False

    @property
    def barrier(self) -> int:
        """The SPRT's h on #YES - #NO."""
        return sprt_barrier(self.alpha, self.delta)

    def budget(self, num_samples: int) -> int:
        """The most calls one question may take."""
        return self.max_samples if self.mode == "sequential" else num_samples

    def overridden(self, run_mode: Optional[str]) -> JudgeSampling:
        """This sampling under the run's ``--judge-sampling`` (``majority``: all samples,
        ``curtailed``: curtailed majority, ``sequential``: the SPRT with this criterion's
        alpha, delta and cap, ``pivotal``: curtailed majority of the pivotal invocations
        only); unchanged for ``None``."""
        if run_mode is None:
            return self
        if run_mode not in _RUN_MODES:
            raise ValueError(f"judge sampling must be one of {', '.join(_RUN_MODES)}, not {run_mode!r}")
        return self.model_copy(update=_RUN_MODES[run_mode])

    def label(self) -> str:
        if self.mode == "sequential":
            return "sequential"
        return "curtailed" if self.curtail else "full"

    def decide(self, votes: Sequence[bool]) -> VoteDecision:
        """The decision from one question's usable votes, in draw order."""
        if not votes:
            return VoteDecision(None)
        if self.mode == "fixed":
            return VoteDecision(majority(1.0 if v else 0.0 for v in votes))
        h, lead = self.barrier, 0
        for vote in votes:
            lead += 1 if vote else -1
            if abs(lead) >= h:
                return VoteDecision(1.0 if lead > 0 else 0.0)
        return VoteDecision(1.0 if lead > 0 else 0.0, settled=False)

    def next_batch(self, votes: Sequence[Sequence[bool]], drawn: int, num_samples: int) -> int:
        """How many samples to ask for now (0: stop), given each item's usable votes so far
        (one list per rubric, or one list) and the samples ``drawn`` (failed ones too)."""
        remaining = self.budget(num_samples) - drawn
        if remaining <= 0:
            return 0
        if self.mode == "fixed" and not self.curtail:
            return remaining
        needs = []
        for item in votes:
            yes = sum(1 for v in item if v)
            no = len(item) - yes
            if self.mode == "fixed":
                if majority_settled(yes, no, remaining) is None:
                    needs.append(_majority_needs(yes, no, remaining))
            elif not self.decide(item).settled or not item:
                needs.append(self.barrier - abs(yes - no))
        return min(max(needs), remaining) if needs else 0

    def details(self, drawn: int, num_samples: int, decisions: Sequence[VoteDecision]) -> dict[str, Any]:
        """What ``details`` records: ``sampling`` (``full``, ``curtailed`` or
        ``sequential``), ``calls_used``, ``calls_saved`` (against the budget: ``num_samples``,
        or ``max_samples`` in sequential mode) and, sequentially, ``unsettled`` items."""
        out: dict[str, Any] = {
            "sampling": self.label(),
            "calls_used": drawn,
            "calls_saved": max(0, self.budget(num_samples) - drawn),
        }
        if self.mode == "sequential":
            out["barrier"] = self.barrier
            out["unsettled"] = sum(1 for d in decisions if not d.settled)
        return out
