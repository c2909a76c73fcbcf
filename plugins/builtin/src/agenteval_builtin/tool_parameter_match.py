"""``tool_parameter_match`` (experimental): ADK's proposed argument-level score, PR #6726.

ADK has not shipped it (google/adk-python PR #6726, open since 2026-08-14); this follows the
PR's code so that if it merges, our numbers already agree. For a richer, configurable
score use ``tool_trajectory_match_v2`` (``args.mode: "partial"``).
"""

from __future__ import annotations

from typing import Optional

from agenteval import EvaluationContext, Evaluator, EvaluatorInfo, InvocationScore, Score
from agenteval.models import FunctionCall
from agenteval.plugins import ArgDiff, TrajectoryRow, row_text

from ._summary import summarise

__all__ = ["ToolParameterMatch"]


def _call_score(actual: FunctionCall, expected: FunctionCall) -> tuple[float, tuple[ArgDiff, ...]]:
    """The share of the expected arguments the actual call gives with equal values
    (``{}`` or no ``args`` expected: 1.0), and the expected keys that were not matched."""
    want = expected.args or {}
    got = actual.args or {}
    diffs = tuple(
        ArgDiff(key, "changed", value, got[key], "exact", 0.0)
        if key in got
        else ArgDiff(key, "missing", value)
        for key, value in want.items()
        if not (key in got and got[key] == value)
    )
    return ((len(want) - len(diffs)) / len(want) if want else 1.0), diffs


class ToolParameterMatch(Evaluator):
    """EXPERIMENTAL (ADK PR #6726, not merged): the share of expected arguments the agent got right.

    Score: in [0, 1], higher is better. Per invocation, each expected call in order takes
    the next actual call with the same tool name after the previous match (greedy, by name
    only); its score is the share of its expected argument keys whose values are equal
    (Python equality, as ADK) in that actual call: extra actual keys are ignored, an
    expected call with no arguments scores 1.0, an expected call that found no actual call
    scores 0.0. The invocation scores the mean over its expected calls; the case, the mean
    over scored invocations.

    Edge cases: an invocation with no expected calls is not scored (reason code
    ``no_expected_calls``), whatever the agent called; a case with no scored invocation
    is NOT_EVALUATED (``no_scored_invocations``). Calls not expected never cost points.

    ``reason`` (below 1.0): the expected calls that found no call, and the arguments that
    differ. ``details``: ``expected_calls``, ``actual_calls``, ``call_scores`` and
    ``alignment`` (trajectory rows, as ``tool_trajectory_match_v2``'s).
    """

    info = EvaluatorInfo(
        description="EXPERIMENTAL (ADK PR #6726): share of expected tool arguments matched, by tool name.",
        default_threshold=1.0,
        requires_expected=True,
        shows_trajectory=True,
        reads=frozenset({"tool_calls"}),
    )

    def evaluate(self, ctx: EvaluationContext) -> Score:
        scores = []
        for got, want in ctx.pairs():
            expected, actual = want.tool_calls(), got.tool_calls()
            if not expected:
                scores.append(
                    InvocationScore(
                        score=None,
                        reason="no tool call is expected in this invocation, so it is not scored",
                        reason_code="no_expected_calls",
                        details={"expected_calls": 0, "actual_calls": len(actual)},
                    )
                )
                continue
            scores.append(_invocation(actual, expected))
        return summarise(scores, ctx.threshold, experimental="ADK PR #6726")


def _invocation(actual: list[FunctionCall], expected: list[FunctionCall]) -> InvocationScore:
    rows: list[TrajectoryRow] = []
    call_scores: list[float] = []
    start = 0
    for j, want in enumerate(expected):
        found: Optional[int] = next(
            (i for i in range(start, len(actual)) if actual[i].name == want.name), None
        )
        if found is None:
            call_scores.append(0.0)
            rows.append(TrajectoryRow("missing", want.name, j, None, want.args, None))
            continue
        rows.extend(
            TrajectoryRow("extra", actual[i].name, None, i, None, actual[i].args) for i in range(start, found)
        )
        score, diffs = _call_score(actual[found], want)
        call_scores.append(score)
        op = "match" if score == 1.0 else "args_differ"
        rows.append(
            TrajectoryRow(op, want.name, j, found, want.args, actual[found].args, diffs, similarity=score)
        )
        start = found + 1
    rows.extend(
        TrajectoryRow("extra", actual[i].name, None, i, None, actual[i].args)
        for i in range(start, len(actual))
    )
    details = {"expected_calls": len(expected), "actual_calls": len(actual), "call_scores": call_scores}
    if any(row.op != "match" or row.arg_diffs for row in rows):
        details["alignment"] = [row.to_json() for row in rows]
    # What cost points, as the report writes it: expected calls unmatched or partly matched.
    reason = "; ".join(row_text(row) for row in rows if row.op in ("missing", "args_differ"))
    return InvocationScore(score=sum(call_scores) / len(call_scores), reason=reason or None, details=details)
