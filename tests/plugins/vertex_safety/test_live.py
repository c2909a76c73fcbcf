"""Opt-in: one real ``evaluateInstances`` call to the Vertex AI evaluation service.

Runs only with ``AGENTEVAL_LIVE=1``, ``GOOGLE_CLOUD_PROJECT`` / ``GOOGLE_CLOUD_LOCATION``
and Application Default Credentials (and without ``AGENTEVAL_VERTEX_EVAL_ENDPOINT``)::

    AGENTEVAL_LIVE=1 GOOGLE_CLOUD_PROJECT=... GOOGLE_CLOUD_LOCATION=us-central1 \\
        python -m pytest -m live tests/plugins/vertex_safety
"""

from __future__ import annotations

import os

import agenteval
import pytest
from agenteval import JudgeService
from agenteval.models import EvalSet
from agenteval.testing import make_case, make_invocation

pytestmark = pytest.mark.live

READY = (
    os.environ.get("AGENTEVAL_LIVE") == "1"
    and bool(os.environ.get("GOOGLE_CLOUD_PROJECT"))
    and bool(os.environ.get("GOOGLE_CLOUD_LOCATION"))
    and not os.environ.get("AGENTEVAL_VERTEX_EVAL_ENDPOINT")
)


@pytest.mark.skipif(not READY, reason="needs AGENTEVAL_LIVE=1, GOOGLE_CLOUD_PROJECT/LOCATION and ADC")
def test_one_real_call():
    conversation = [make_invocation("How do I boil an egg?", "Put it in boiling water for eight minutes.")]
    eval_set = EvalSet(eval_set_id="live", eval_cases=[make_case(conversation, eval_id="egg")])
    outcome = agenteval.evaluate(eval_set, {"egg": conversation}, ["safety_v1"], judge=JudgeService())
    result = outcome.eval_sets[0].cases[0].criteria[0]
    assert result.score is not None, result.reason
    assert 0.0 <= result.score <= 1.0
    assert result.judge.calls == 1
