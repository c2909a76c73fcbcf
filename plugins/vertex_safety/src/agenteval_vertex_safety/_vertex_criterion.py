"""What the Vertex AI evaluation service's criteria share: parameters, the judge-model spec,
one call and the reading of its answer.

An answer becomes an ``InvocationScore``: the service's score (``no_score`` when it gave
none), ``details.explanation`` (the service's explanation), ``details.rubrics`` (its rubric
verdicts, ``rubric_id`` / ``verdict`` yes or no / ``score`` 1 or 0 / ``rationale``; the
explanation and any error are never among them) and ``details.cached``. A failed call is
NOT_EVALUATED with the judge service's reason code.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, ClassVar, Optional

from agenteval import EvaluationContext, Evaluator, InvocationScore, JudgeOptions, JudgeRequest
from agenteval import Params as ParamsBase
from agenteval.errors import JudgeUnavailable
from pydantic import Field

from .provider import model_name

__all__ = ["VertexCallOptions", "VertexCriterion", "VertexParams"]


class VertexCallOptions(ParamsBase):
    """How the evaluation service is called (the ``judge_model_options`` keys that apply:
    the metric is fixed, so there is no ``judge_model`` and no ``num_samples``)."""

    concurrency: Optional[int] = Field(
        default=None,
        ge=1,
        description="A cap on this criterion's calls in flight, within --judge-concurrency.",
    )
    timeout_seconds: float = Field(
        default=60.0, gt=0, description="Per-call timeout (as the engine's judges)."
    )
    max_retries: int = Field(
        default=3, ge=0, le=20, description="Retries on 429, 5xx, timeouts (as the engine's judges)."
    )
    parallelism_limit: Optional[int] = Field(
        default=None, ge=1, description="Accepted for ADK compatibility; --judge-concurrency governs."
    )


class VertexParams(ParamsBase):
    """ADK's Vertex metrics take only a threshold; these are agenteval's additions."""

    project: Optional[str] = Field(
        default=None, description="Google Cloud project (default: GOOGLE_CLOUD_PROJECT)."
    )
    location: Optional[str] = Field(
        default=None, description="Vertex AI location (default: GOOGLE_CLOUD_LOCATION)."
    )
    judge_model_options: VertexCallOptions = Field(
        default_factory=VertexCallOptions, description="Call settings (timeout, retries, concurrency)."
    )


class VertexCriterion(Evaluator):
    """Base of the criteria scored by one metric of the service (``METRIC``)."""

    METRIC: ClassVar[str]
    #: How a score is named in a reason ("safety score 0").
    SCORE_LABEL: ClassVar[str]

    Params = VertexParams
    params: VertexParams

    @property
    def options(self) -> JudgeOptions:
        call = self.params.judge_model_options
        return JudgeOptions(
            judge_model=self.model_spec,
            num_samples=1,
            concurrency=call.concurrency,
            timeout_seconds=call.timeout_seconds,
            max_retries=call.max_retries,
        )

    @property
    def model_spec(self) -> str:
        params = self.params
        if params.project or params.location:
            # One of the two may come from the environment (checked in preflight).
            project = params.project or (os.environ.get("GOOGLE_CLOUD_PROJECT") or "").strip()
            location = params.location or (os.environ.get("GOOGLE_CLOUD_LOCATION") or "").strip()
            return f"vertex_safety:{self.METRIC}@{project}/{location}"
        return model_name(metric=self.METRIC)

    def judge_models(self) -> list[str]:
        return [self.model_spec]

    async def ask(self, ctx: EvaluationContext, instance: str) -> InvocationScore:
        """One call with ``instance`` (a ``build_*instance`` text), read as a score."""
        options = self.options
        request = JudgeRequest(prompt=instance, config={"timeout_seconds": options.timeout_seconds})
        try:
            answer = await ctx.judge.generate(request, options)
        except JudgeUnavailable as exc:
            return InvocationScore(score=None, reason=str(exc), reason_code=exc.code)
        try:
            data = json.loads(answer.text)
            raw, explanation = data.get("score"), str(data.get("explanation") or "")
            score = None if raw is None else float(raw)
            verdicts = [
                {
                    "rubric_id": str(v["rubric_id"]),
                    "verdict": "yes" if v["verdict"] else "no",
                    "score": 1.0 if v["verdict"] else 0.0,
                    "rationale": str(v.get("reasoning") or ""),
                }
                for v in data.get("rubric_verdicts") or ()
            ]
        except (ValueError, TypeError, AttributeError, KeyError):
            return InvocationScore(
                score=None,
                reason=f"the {self.METRIC} answer could not be read: {answer.text[:200]!r}",
                reason_code="judge_unparseable",
            )
        details: dict[str, Any] = {"explanation": explanation, "cached": answer.cached}
        if verdicts:
            details["rubrics"] = verdicts
        if score is None or not math.isfinite(score):
            why = f": {explanation}" if explanation else ""
            return InvocationScore(
                score=None,
                reason=f"the evaluation service gave no score{why}",
                reason_code="no_score",
                details=details,
            )
        threshold = ctx.threshold
        reason = None
        if threshold is not None and score < threshold:
            reason = f"{self.SCORE_LABEL} {score:g}" + (f": {explanation}" if explanation else "")
        return InvocationScore(score=score, reason=reason, details=details)
