"""Pivotal-only sampling: judge a case's invocations in turn, and stop sampling in full once
the case's point verdict is decided.

For a criterion whose case score is a weighted mean of its invocations' scores (each in
[0, 1]; ``final_response_match_v2`` weighs every invocation 1, the rubric criteria weigh an
invocation by its number of rubrics, since their case score is the mean over every rubric
verdict) and passes when the mean reaches the threshold, with S the weighted sum of the
scores settled so far, p the weight still to judge and T = (weight settled and scored) + p:

* the case PASSES whatever the rest score when S / T ≥ threshold (the rest can only add);
* it FAILS whatever the rest score when (S + p) / T < threshold (the rest add at most 1).

An invocation that ends with no usable sample leaves T; that only moves the mean further
the same way, so the verdict holds (S / (T − d) ≥ S / T, and (S + p − d) / (T − d) ≤
(S + p) / T since S ≤ T − p). From then on the remaining invocations are *not pivotal*:
each gets one sample (sample index 0, the one full sampling would draw first, so the answer
cache serves both) instead of its full majority, so every invocation still has a score and
a reason, and the point verdict is the one full sampling gives. The case's score is the
mean with single votes in place of majorities for those invocations: unbiased for the
judge's leaning, but not ADK's number, which is why pivotal sampling is opt in.

Invocations are judged one after the other (each one's samples still concurrently), so
a case takes longer; the run's other cases keep the judge busy meanwhile.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from typing import Optional, Union

from agenteval import InvocationScore

from ._judge import gather
from ._voting import JudgeSampling

__all__ = ["Judged", "decided", "score_pivotal", "single_sample"]

#: One invocation to score: a score already known (no judge call needed), or a function
#: that judges it, in full (``True``) or with one sample (``False``).
Judged = Union[InvocationScore, Callable[[bool], Awaitable[InvocationScore]]]


def decided(
    scores: Sequence[Optional[float]],
    pending: float,
    threshold: float,
    weights: Optional[Sequence[float]] = None,
) -> Optional[str]:
    """``"PASS"`` or ``"FAIL"`` when the weighted mean of ``scores`` (``None``: not scored,
    left out; ``weights`` default 1 each) and ``pending`` more weight of scores in [0, 1]
    passes or fails ``threshold`` (inclusive) whatever the pending ones score; ``None``
    while it could go either way."""
    weights = [1.0] * len(scores) if weights is None else weights
    known = [(s, w) for s, w in zip(scores, weights, strict=True) if s is not None]
    total = math.fsum(w for _, w in known) + pending
    if pending <= 0 or total <= 0:
        return None
    settled = math.fsum(s * w for s, w in known)
    if settled / total >= threshold:
        return "PASS"
    if (settled + pending) / total < threshold:
        return "FAIL"
    return None


async def score_pivotal(
    items: Sequence[Judged],
    threshold: Optional[float],
    *,
    enabled: bool,
    weights: Optional[Sequence[float]] = None,
) -> list[InvocationScore]:
    """Every invocation's score. Without ``enabled`` (or a threshold) all are judged in full
    at once; with it, in order until the case is ``decided`` (each invocation weighing its
    ``weights`` entry in the case's mean, 1 by default), and the rest with one sample each,
    their ``details`` saying ``pivotal: false`` and ``decided`` (``PASS``/``FAIL``)."""
    if not enabled or threshold is None:
        return await gather(
            [_known(item) if isinstance(item, InvocationScore) else item(True) for item in items]
        )
    weight = [1.0] * len(items) if weights is None else [float(w) for w in weights]
    results: list[Optional[InvocationScore]] = [i if isinstance(i, InvocationScore) else None for i in items]
    waiting = [index for index, result in enumerate(results) if result is None]
    for position, index in enumerate(waiting):
        settled = [i for i, r in enumerate(results) if r is not None]
        scores = [results[i].score for i in settled]  # type: ignore[union-attr]
        pending = math.fsum(weight[i] for i in waiting[position:])
        verdict = decided(scores, pending, threshold, [weight[i] for i in settled])
        if verdict is not None:
            rest = waiting[position:]
            singles = await gather([items[i](False) for i in rest])  # type: ignore[operator]
            for i, single in zip(rest, singles, strict=True):
                results[i] = single.model_copy(
                    update={"details": {**single.details, "pivotal": False, "decided": verdict}}
                )
            break
        results[index] = await items[index](True)  # type: ignore[operator]
    return [r for r in results if r is not None]


async def _known(score: InvocationScore) -> InvocationScore:
    return score


def single_sample(score: InvocationScore, sampling: JudgeSampling, num_samples: int) -> InvocationScore:
    """A non-pivotal invocation's score (decided by its one sample), its ``details`` saying
    ``sampling: single`` and the calls saved against ``sampling``'s full budget."""
    details = {
        **score.details,
        "sampling": "single",
        "calls_saved": max(0, sampling.budget(num_samples) - int(score.details.get("calls_used", 1))),
    }
    return score.model_copy(update={"details": details})
