"""Case-level summaries shared by the criteria: the mean, with a reason naming the
invocations that scored below the threshold."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from agenteval import InvocationScore, Score, explain_scores

__all__ = ["summarise"]


def summarise(per_invocation: Sequence[InvocationScore], threshold: Optional[float], **details: Any) -> Score:
    """``Score.mean_of(per_invocation)`` with ``details`` and, when some invocation
    scored below ``threshold``, a reason listing them and quoting the first one's."""
    return Score.mean_of(per_invocation, reason=explain_scores(per_invocation, threshold), details=details)
