"""Partial-credit trajectory criteria: ``trajectory_precision``, ``trajectory_recall`` and
``trajectory_single_tool_use`` (named and defined after Vertex AI's Gen AI evaluation
metrics of the same names)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, Optional

from agenteval import EvaluationContext, Evaluator, EvaluatorInfo, InvocationScore, Score
from agenteval import Params as ParamsBase
from agenteval.models import FunctionCall, Invocation
from pydantic import Field

from ._format import format_calls
from ._matching import pair_calls
from ._summary import summarise

__all__ = ["TrajectoryPrecision", "TrajectoryRecall", "TrajectorySingleToolUse"]


class _MatchParams(ParamsBase):
    """``ignore_args``: compare tool names only (default false: names and arguments)."""

    ignore_args: bool = Field(default=False, description="Match calls by tool name only.")


def _pair(
    got: Invocation, want: Invocation, ignore_args: bool
) -> tuple[list[FunctionCall], list[FunctionCall], list[Optional[int]], dict[str, int]]:
    actual, expected = got.tool_calls(), want.tool_calls()
    pairing = pair_calls(actual, expected, ignore_args=ignore_args)
    matched = sum(1 for j in pairing if j is not None)
    details = {"matched": matched, "actual_calls": len(actual), "expected_calls": len(expected)}
    return actual, expected, pairing, details


def _precision(got: Invocation, want: Invocation, ignore_args: bool) -> InvocationScore:
    actual, expected, pairing, details = _pair(got, want, ignore_args)
    if not actual:
        if not expected:
            return InvocationScore(score=1.0, details=details)
        listed = format_calls(expected, with_args=not ignore_args)
        reason = f"no tool calls were made while {len(expected)} were expected: {listed}"
        return InvocationScore(score=0.0, reason=reason, details=details)
    used = {j for j in pairing if j is not None}
    unexpected = [j for j in range(len(actual)) if j not in used]
    reason = None
    if unexpected:
        listed = format_calls([actual[j] for j in unexpected], with_args=not ignore_args, numbered=unexpected)
        reason = f"{len(used)} of {len(actual)} calls made were expected; unexpected: {listed}"
    return InvocationScore(score=len(used) / len(actual), reason=reason, details=details)


def _recall(got: Invocation, want: Invocation, ignore_args: bool) -> InvocationScore:
    _, expected, pairing, details = _pair(got, want, ignore_args)
    if not expected:
        return InvocationScore(score=1.0, details=details)
    missing = [i for i, j in enumerate(pairing) if j is None]
    matched = len(expected) - len(missing)
    reason = None
    if missing:
        listed = format_calls([expected[i] for i in missing], with_args=not ignore_args, numbered=missing)
        reason = f"{matched} of {len(expected)} expected calls were made; missing: {listed}"
    return InvocationScore(score=matched / len(expected), reason=reason, details=details)


class _PartialCredit(Evaluator):
    """Precision and recall: a per-invocation measure of matched calls, averaged."""

    Params = _MatchParams
    params: _MatchParams
    #: ``(actual, expected, ignore_args) -> InvocationScore``, set by each subclass.
    _score_invocation: ClassVar[Callable[[Invocation, Invocation, bool], InvocationScore]]

    def evaluate(self, ctx: EvaluationContext) -> Score:
        ignore_args = self.params.ignore_args
        scores = [self._score_invocation(got, want, ignore_args) for got, want in ctx.pairs()]
        return summarise(scores, ctx.threshold, ignore_args=ignore_args)


class TrajectoryPrecision(_PartialCredit):
    """The share of the agent's tool calls that were expected (partial credit).

    Score: in [0, 1], higher is better; per invocation ``matched / actual calls``,
    where calls are paired one-to-one with expected calls (multiset matching by name and
    arguments under ADK's equality, or by name only with ``ignore_args``), so a repeated
    call earns credit only as often as it is expected. Case score: mean over invocations.

    Edge cases: no call made and none expected: 1.0. No call made but some expected:
    0.0 (an agent that does nothing gets no credit; see the docs). Calls made, none
    expected: 0.0. No invocations: NOT_EVALUATED.

    ``reason`` (below 1.0): how many calls were expected, and the unexpected ones.
    ``details``: ``matched``, ``actual_calls``, ``expected_calls``.
    """

    info = EvaluatorInfo(
        description="Share of the agent's tool calls that match an expected call (partial credit).",
        default_threshold=1.0,
        requires_expected=True,
        shows_trajectory=True,
        reads=frozenset({"tool_calls"}),
    )

    _score_invocation = staticmethod(_precision)


class TrajectoryRecall(_PartialCredit):
    """The share of the expected tool calls that the agent made (partial credit).

    Score: in [0, 1], higher is better; per invocation ``matched / expected calls``, with
    the same one-to-one pairing as ``trajectory_precision``. Case score: mean over
    invocations. Recall is 1.0 exactly when ``tool_trajectory_avg_score`` with
    ``ANY_ORDER`` (and the same ``ignore_args``) passes.

    Edge cases: nothing expected: 1.0, whatever the agent did (as ADK's ANY_ORDER).
    No invocations: NOT_EVALUATED.

    ``reason`` (below 1.0): how many expected calls were made, and the missing ones.
    ``details``: ``matched``, ``actual_calls``, ``expected_calls``.
    """

    info = EvaluatorInfo(
        description="Share of the expected tool calls that the agent made (partial credit).",
        default_threshold=1.0,
        requires_expected=True,
        shows_trajectory=True,
        reads=frozenset({"tool_calls"}),
    )

    _score_invocation = staticmethod(_recall)


class TrajectorySingleToolUse(Evaluator):
    """1.0 per invocation when the agent called the tool ``tool_name`` at least once.

    Score: in [0, 1], higher is better; per invocation 1.0 or 0.0 (arguments and call
    count do not matter), case score the mean, so with the default threshold 1.0 every
    invocation must call the tool. Reference-free: expected invocations are not read.
    No invocations: NOT_EVALUATED.

    ``reason`` (0.0 only): the tools that were called instead, or that none was.
    ``details``: ``calls`` (how many times the tool was called).
    """

    info = EvaluatorInfo(
        description="1.0 when the agent called the tool named by tool_name at least once.",
        default_threshold=1.0,
        shows_trajectory=True,
        reads=frozenset({"tool_calls"}),
    )

    class Params(ParamsBase):
        """``tool_name``: the tool that must be called (required)."""

        tool_name: str = Field(min_length=1, description="The tool that must be called (exact name).")

    params: Params

    def evaluate(self, ctx: EvaluationContext) -> Score:
        tool = self.params.tool_name
        scores = []
        for invocation in ctx.actual:
            calls = invocation.tool_calls()
            count = sum(1 for call in calls if call.name == tool)
            reason = None
            if not calls:
                reason = f"{tool!r} was not called; no tool calls were made"
            elif not count:
                reason = (
                    f"{tool!r} was not called; tools called: {format_calls(_by_name(calls), with_args=False)}"
                )
            scores.append(InvocationScore(score=float(count > 0), reason=reason, details={"calls": count}))
        return summarise(scores, ctx.threshold, tool_name=tool)


def _by_name(calls: Sequence[FunctionCall]) -> list[FunctionCall]:
    """One call per distinct name, in first-call order."""
    seen, distinct = set(), []
    for call in calls:
        if call.name not in seen:
            seen.add(call.name)
            distinct.append(call)
    return distinct
