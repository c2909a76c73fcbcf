"""Never a silent score: a criterion that reads an input a recorded turn lacks is NOT_EVALUATED.

A reader of lossy recordings (traces without message content) marks each turn with what it
lacks (``Invocation.mark_missing``); a criterion declares what it reads
(``EvaluatorInfo.reads``, ``None`` = everything). Before the criterion is called, the first
lacking input it reads becomes its NOT_EVALUATED result: the reason code is the finding's
code (``content_elided``...), the reason names the turn, the input, where and the fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from .._evaluator import EvaluatorInfo
from .._results import CriterionResult
from .._verdicts import not_evaluated
from ..models import INVOCATION_INPUTS, Invocation
from ..runs import CriterionEntry

__all__ = ["missing_input_result"]

_EVERY_INPUT = frozenset(INVOCATION_INPUTS)

_SAID = {
    "user_content": "the user's message",
    "final_response": "the final response",
    "tool_calls": "the tool calls (names and arguments)",
    "tool_results": "the tool results",
}


def missing_input_result(
    actual: Sequence[Invocation], info: EvaluatorInfo, entry: CriterionEntry, first: int = 0
) -> Optional[CriterionResult]:
    """NOT_EVALUATED when a turn of ``actual`` lacks an input the criterion reads; else ``None``.
    ``first``: the index of ``actual[0]`` in the case's turns (after its context turns)."""
    reads = _EVERY_INPUT if info.reads is None else info.reads
    if not reads:
        return None
    for number, invocation in enumerate(actual, start=first + 1):
        for missing in invocation.missing_inputs():
            if missing.input in reads:
                return not_evaluated(
                    entry,
                    f"{entry.name} reads {_SAID[missing.input]}, which turn {number} of the recording "
                    f"lacks ({missing.code}: {missing.detail}); not scored. Fix: {missing.fix}",
                    missing.code,
                )
    return None
