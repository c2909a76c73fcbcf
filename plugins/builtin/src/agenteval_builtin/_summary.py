"""Case-level summaries shared by the criteria: the mean, with a reason naming the
invocations that scored below the threshold."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from agenteval import InvocationScore, Score

from ._format import shorten

__all__ = ["summarise"]

_MAX_LISTED = 5


def summarise(per_invocation: Sequence[InvocationScore], threshold: Optional[float], **details: Any) -> Score:
    """``Score.mean_of(per_invocation)`` with ``details`` and, when some invocation
    scored below ``threshold``, a reason listing them and quoting the first one's."""
    low = [
        (i, s)
        for i, s in enumerate(per_invocation)
        if threshold is not None and s.score is not None and s.score < threshold
    ]
    reason = None
    if low:
        listed = ", ".join(f"#{i + 1} ({s.score:.3g})" for i, s in low[:_MAX_LISTED])
        if len(low) > _MAX_LISTED:
            listed += f", ... {len(low) - _MAX_LISTED} more"
        reason = f"{len(low)} of {len(per_invocation)} invocations scored below {threshold:g}: {listed}"
        first_index, first = low[0]
        if first.reason:
            reason += f". #{first_index + 1}: {shorten(first.reason, 400)}"
    return Score.mean_of(per_invocation, reason=reason, details=details)
