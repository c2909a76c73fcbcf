"""Parity with ADK itself: ADK's own ``EvaluationGenerator`` runs the same scripted team on
the same eval set, in-process, and its invocations equal ours on everything but the
generated ids, timestamps and timings."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agenteval._agents import run_agent
from agenteval.models import Invocation
from agenteval_adk import AdkAgent

#: Keys whose values are generated per run (ids) or measured (times).
VOLATILE = {"id", "invocation_id", "creation_timestamp", "duration", "model_duration", "tool_duration"}


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _comparable(invocations: list[Invocation]) -> list[dict]:
    return [_stable(i.model_dump(mode="json", exclude_none=True)) for i in invocations]


def _adk_inferences(eval_set) -> dict[str, list[Invocation]]:
    from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet
    from google.adk.evaluation.evaluation_generator import EvaluationGenerator

    adk_set = AdkEvalSet.model_validate_json(eval_set.to_json())
    responses = asyncio.run(EvaluationGenerator.generate_responses(adk_set, "weather_team", repeat_num=1))
    return {
        r.eval_case.eval_id: [
            Invocation.model_validate(i.model_dump(mode="json", exclude_none=True)) for i in r.responses[0]
        ]
        for r in responses
    }


# ADK's generator builds its Runner with the deprecated ``plugins=`` argument and marks
# its simulator experimental; both warn.
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
def test_our_invocations_equal_adk_s(team, team_evalset, agents_on_path):
    agent = AdkAgent(str(team))

    async def ours():
        try:
            return await run_agent(agent, team_evalset.eval_cases)
        finally:
            await agent.aclose()

    mine = dict(zip([c.eval_id for c in team_evalset.eval_cases], asyncio.run(ours()), strict=True))
    theirs = _adk_inferences(team_evalset)
    assert set(theirs) == set(mine) == {"paris_weather", "cairo_in_fahrenheit", "trip_then_thanks"}
    for eval_id, invocations in theirs.items():
        assert _comparable(mine[eval_id]) == _comparable(invocations), eval_id
    # The comparison covers what matters: events, authors, calls, final responses, app details.
    trip = _comparable(theirs["trip_then_thanks"])[0]
    assert len(trip["intermediate_data"]["invocation_events"]) == 6
    assert set(trip["app_details"]["agent_details"]) == {
        "weather_coordinator",
        "forecast_reader",
        "packing_advisor",
    }


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
def test_efficiency_on_our_turns_equals_adks_evaluators_on_its_own(team, team_evalset, agents_on_path):
    from agenteval import EvaluationContext
    from agenteval_builtin.inference_call_count import InferenceCallCount
    from agenteval_builtin.token_usage import TokenUsage
    from google.adk.evaluation._efficiency_evaluators import (
        _InferenceCallCountV1Evaluator,
        _TokenUsageV1Evaluator,
    )
    from google.adk.evaluation.eval_case import Invocation as AdkInvocation

    agent = AdkAgent(str(team))

    async def ours():
        try:
            return await run_agent(agent, team_evalset.eval_cases)
        finally:
            await agent.aclose()

    mine = dict(zip([c.eval_id for c in team_evalset.eval_cases], asyncio.run(ours()), strict=True))
    theirs = _adk_inferences(team_evalset)
    pairs = [(InferenceCallCount, _InferenceCallCountV1Evaluator), (TokenUsage, _TokenUsageV1Evaluator)]
    for case in team_evalset.eval_cases:
        adk_turns = [AdkInvocation.model_validate_json(i.model_dump_json()) for i in theirs[case.eval_id]]
        for ours_cls, adk_cls in pairs:
            score = ours_cls().evaluate(EvaluationContext(case=case, actual=mine[case.eval_id]))
            adk = adk_cls().evaluate_invocations(adk_turns)
            assert score.value == adk.overall_score is not None, (case.eval_id, ours_cls.__name__)
            assert [s.score for s in score.per_invocation] == [r.score for r in adk.per_invocation_results]
