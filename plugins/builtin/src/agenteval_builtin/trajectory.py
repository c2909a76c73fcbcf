"""``tool_trajectory_avg_score``: ADK 2.13's TrajectoryEvaluator, to the letter."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from agenteval import EvaluationContext, Evaluator, EvaluatorInfo, InvocationScore, Score
from agenteval import Params as ParamsBase
from pydantic import Field, field_validator

from ._matching import MatchType, match_trajectory, parse_match_type
from ._summary import summarise

if TYPE_CHECKING:
    from .trajectory_v2 import ToolTrajectoryMatchV2

__all__ = ["MatchType", "ToolTrajectoryAvgScore"]


class ToolTrajectoryAvgScore(Evaluator):
    """1.0 per invocation when the agent's tool calls match the expected ones, else 0.0.

    Score: in [0, 1], higher is better; each invocation scores 1.0 or 0.0 and the case
    score is their mean. Calls are ``Invocation.tool_calls()`` on both sides (legacy
    ``tool_uses`` or every ``function_call`` of ``invocation_events``; none = ``[]``).
    Two calls are equal when names match and, unless ``ignore_args``, ``args`` are equal
    under Python equality (``3 == 3.0``, ``True == 1``, ``"3" != 3``, ``None != {}``;
    ``id`` ignored).

    ``match_type``: ``EXACT`` (same calls, same order, nothing extra), ``IN_ORDER``
    (expected calls appear as a subsequence; extra calls allowed), ``ANY_ORDER``
    (expected calls all appear, as a multiset; extra calls allowed).

    Edge cases: an empty expected list passes ``IN_ORDER`` and ``ANY_ORDER`` whatever
    the agent did, but under ``EXACT`` only when no call was made (ADK's asymmetry).
    Duplicates need duplicates. No invocations: NOT_EVALUATED.

    ``reason`` (failed invocations only): the first mismatch position or the missing
    expected call(s), with a hint (same tool called with other arguments, called out of
    order, called too few times, never called). ``details``: ``actual_calls``,
    ``expected_calls`` and, for a failed invocation, ``alignment``: trajectory rows
    (``agenteval.plugins.TrajectoryRow`` JSON, as ``tool_trajectory_match_v2`` in its
    binary setting aligns them: pairs, ``missing`` and ``extra`` calls, arguments that differ).
    """

    info = EvaluatorInfo(
        description="1.0 when the tool calls match the expected ones (EXACT, IN_ORDER, ANY_ORDER), as ADK.",
        default_threshold=1.0,
        requires_expected=True,
        shows_trajectory=True,
        reads=frozenset({"tool_calls"}),
    )

    class Params(ParamsBase):
        """``match_type`` (default ``EXACT``) and ``ignore_args`` (default false), as in ADK."""

        match_type: MatchType = Field(
            default=MatchType.EXACT,
            description="EXACT, IN_ORDER or ANY_ORDER (any case, '-' or ' ' for '_'; or ADK's 0, 1, 2).",
        )
        ignore_args: bool = Field(default=False, description="Compare tool names only.")

        @field_validator("match_type", mode="before")
        @classmethod
        def _read_match_type(cls, value: Any) -> MatchType:
            return parse_match_type(value)

    params: Params
    _explaining: Optional[ToolTrajectoryMatchV2] = None

    def _explainer(self) -> ToolTrajectoryMatchV2:
        """``tool_trajectory_match_v2`` in the setting that gives this criterion's scores
        (made on the first failure, then kept)."""
        if self._explaining is None:
            self._explaining = self._make_explainer()
        return self._explaining

    def _make_explainer(self) -> ToolTrajectoryMatchV2:
        from .trajectory_v2 import ToolTrajectoryMatchV2  # imported on the first failure only

        p = self.params
        return ToolTrajectoryMatchV2(
            ToolTrajectoryMatchV2.Params(
                match_type=p.match_type.value,
                score="binary",
                empty="adk",
                args={"mode": "ignore" if p.ignore_args else "exact"},
            )
        )

    def evaluate(self, ctx: EvaluationContext) -> Score:
        match_type, ignore_args = self.params.match_type, self.params.ignore_args
        scores = []
        for got, want in ctx.pairs():
            actual, expected = got.tool_calls(), want.tool_calls()
            result = match_trajectory(match_type, actual, expected, ignore_args=ignore_args)
            details: dict[str, Any] = {"actual_calls": len(actual), "expected_calls": len(expected)}
            if not result.passed:  # why it failed, row by row (built for failures only)
                rows = self._explainer().alignment_of(actual, expected)
                if rows is not None:
                    details["alignment"] = rows
            scores.append(
                InvocationScore(score=1.0 if result.passed else 0.0, reason=result.reason, details=details)
            )
        return summarise(scores, ctx.threshold, match_type=match_type.value, ignore_args=ignore_args)
