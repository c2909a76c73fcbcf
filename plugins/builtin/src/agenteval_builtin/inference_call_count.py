"""``inference_call_count_v1``: how many model calls each invocation made (informational)."""

from __future__ import annotations

from agenteval import EvaluationContext, Evaluator, EvaluatorInfo, InvocationScore, Score

from ._efficiency import model_call_events

__all__ = ["InferenceCallCount"]

#: ``reason_code`` of a turn whose model calls were not recorded.
NO_MODEL_CALLS_RECORDED = "no_model_calls_recorded"


class InferenceCallCount(Evaluator):
    """The number of model calls per invocation, as ADK 2.13's ``inference_call_count_v1``.

    Score: a count (0 or more, no upper bound), reported, never passed or failed
    (informational: a threshold is an error). Per invocation: the events that carry
    usage metadata or a model version (ADK's model-call events: every agent and sub-agent
    of the turn). A turn in the legacy ``tool_uses`` form records no model calls: it is
    NOT_EVALUATED with ``reason_code`` ``no_model_calls_recorded`` (never 0); the ``adk``
    adapter records them, the ``python`` adapter when the function reports
    ``model_calls``, the ``http`` adapter when the answer has ``usage``. Case score: the
    mean over the turns that have a count. Reference-free. No invocations: NOT_EVALUATED.
    """

    info = EvaluatorInfo(
        description="Model calls per invocation (mean over the case); informational, as ADK.",
        min_score=0.0,
        max_score=None,
        higher_is_better=False,
        default_threshold=None,
        informational=True,
        reads=frozenset(),
    )

    def evaluate(self, ctx: EvaluationContext) -> Score:
        scores = []
        for invocation in ctx.actual:
            events = model_call_events(invocation)
            if events is None:
                reason = "the turn is in the legacy tool_uses form, which records no model calls"
                scores.append(InvocationScore(score=None, reason=reason, reason_code=NO_MODEL_CALLS_RECORDED))
            else:
                scores.append(InvocationScore(score=float(len(events))))
        result = Score.mean_of(scores)
        if result.value is None and scores:
            return result.model_copy(
                update={"reason": "no turn recorded its model calls", "reason_code": NO_MODEL_CALLS_RECORDED}
            )
        return result
