"""``example_response_length``: is each final response between ``min_words`` and ``max_words``?"""

from __future__ import annotations

from agenteval import EvaluationContext, Evaluator, EvaluatorInfo, InvocationScore, Score
from agenteval import Params as ParamsBase
from pydantic import Field, model_validator

__all__ = ["ResponseLength"]


class ResponseLength(Evaluator):
    """Scores 1.0 for a final response whose word count is within bounds, else 0.0.

    Words are the whitespace-separated pieces of the final response's text (every text
    part, joined with newlines), so a sentence in a script written without spaces, such
    as Japanese, counts as one word. Each actual invocation scores 1.0 when
    ``min_words <= words <= max_words`` and 0.0 otherwise; the case score is the mean,
    in [0, 1], higher is better. The default threshold is 1.0: every turn must fit.

    Edge cases:
        * an invocation without a final response counts as 0 words, so it fails unless
          ``min_words`` is 0;
        * a case with no actual invocations is NOT_EVALUATED (``no_invocations``);
        * expected invocations are not used, so conversation-scenario cases work too.

    Reason: for a failing case, how many turns were out of bounds and the first of them
    (``"1 of 3 responses out of bounds; turn 2 has 140 words (max_words=100)"``);
    ``None`` when every turn fits. Each invocation's ``details`` hold ``{"words": n}``.
    """

    class Params(ParamsBase):
        """The accepted word-count range (inclusive at both ends)."""

        max_words: int = Field(default=100, ge=0, description="Most words a response may have.")
        min_words: int = Field(default=1, ge=0, description="Fewest words a response may have.")

        @model_validator(mode="after")
        def _ordered(self) -> ResponseLength.Params:
            if self.min_words > self.max_words:
                msg = (
                    f"min_words ({self.min_words}) is greater than max_words ({self.max_words}); "
                    "no response could pass"
                )
                raise ValueError(msg)
            return self

    info = EvaluatorInfo(
        description="1.0 when the final response's word count is within [min_words, max_words].",
        min_score=0.0,
        max_score=1.0,
        default_threshold=1.0,
    )

    params: Params

    def evaluate(self, ctx: EvaluationContext) -> Score:
        """Score each actual invocation, then take the mean."""
        low, high = self.params.min_words, self.params.max_words
        scores = []
        misses = []
        for turn, invocation in enumerate(ctx.actual, start=1):
            words = len(invocation.final_text().split())
            if words < low:
                why = f"turn {turn} has {words} words (min_words={low})"
            elif words > high:
                why = f"turn {turn} has {words} words (max_words={high})"
            else:
                why = None
            if why is not None:
                misses.append(why)
            scores.append(InvocationScore(score=0.0 if why else 1.0, reason=why, details={"words": words}))
        reason = None
        if misses:
            reason = f"{len(misses)} of {len(scores)} responses out of bounds; {misses[0]}"
        return Score.mean_of(scores, reason=reason)
