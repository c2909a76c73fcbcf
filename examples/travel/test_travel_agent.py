"""A hand-written test: ADK's `AgentEvaluator.evaluate(agent_module, path, num_runs)`, with
agenteval's verdicts (`pytest examples/travel` also collects the eval file's cases)."""

from __future__ import annotations

from pathlib import Path

from pytest_agenteval import assert_agent_passes

HERE = Path(__file__).resolve().parent


def test_the_travel_agent_passes_its_eval_set():
    result = assert_agent_passes(f"{HERE / 'agent.py'}:respond", HERE / "travel.evalset.json", num_runs=2)
    assert [case.eval_id for case in result.cases()] == [
        "weather_paris",
        "flight_then_currency",
        "hotel_tokyo_ja",
    ]


def test_only_the_response_criterion_for_one_case():
    assert_agent_passes(
        str(HERE),  # the folder's agent.py:respond
        f"{HERE / 'travel.evalset.json'}:hotel_tokyo_ja",
        criteria={"response_match_score": 0.6},
    )
