"""Conversations with an ADK agent: sessions seeded from ``session_input``, turns recorded
as ADK's inference records them (both intermediate-data forms), failures as ERRORED cases."""

from __future__ import annotations

import asyncio
import json

import pytest
from agenteval import evaluate, evaluate_agent
from agenteval._agents import AgentFailure, run_agent
from agenteval.models import EvalSet, IntermediateData, InvocationEvents, SessionInput
from agenteval.testing import make_case, make_invocation
from agenteval_adk import AdkAgent


def _run_all(agent: AdkAgent, eval_set: EvalSet) -> dict:
    async def go():
        try:
            return await run_agent(agent, eval_set.eval_cases)
        finally:
            await agent.aclose()

    return {case.eval_id: out for case, out in zip(eval_set.eval_cases, asyncio.run(go()), strict=True)}


def test_session_state_reaches_the_tools(team, converse):
    given = SessionInput(app_name="weather_team", user_id="tester", state={"unit": "F"})
    case = make_case([make_invocation("How warm is it in Cairo?", "x")], session_input=given)
    [turn] = asyncio.run(converse(AdkAgent(str(team)), case))
    assert turn.tool_responses()[0].response["unit"] == "F"
    assert turn.final_text() == "It is 95°F and sunny in Cairo."
    assert given.state == {"unit": "F"}  # the case is not modified


def test_sessions_use_adk_s_defaults_or_the_case_s_session_input(team):
    pinned = SessionInput(app_name="weather_team", user_id="tester", session_id="pinned-1", state={})

    async def go():
        agent = AdkAgent(str(team))
        await agent.session(make_case([]))
        await agent.session(make_case([], session_input=pinned))
        sessions = agent._run.sessions
        default = await sessions.list_sessions(app_name="EvaluationGenerator", user_id="test_user_id")
        given = await sessions.list_sessions(app_name="weather_team", user_id="tester")
        await agent.aclose()
        return [s.id for s in default.sessions], [s.id for s in given.sessions]

    default_ids, given_ids = asyncio.run(go())
    assert len(default_ids) == 1 and default_ids[0].startswith("adk-eval-session-")
    assert given_ids == ["pinned-1"]


def test_a_conversation_keeps_its_session(team, converse):
    case = make_case([make_invocation("Plan my trip to Tokyo", "x"), make_invocation("Thanks!", "y")])

    async def go():
        agent = AdkAgent(str(team))
        turns = await converse(agent, case, close=False)
        [session] = (
            await agent._run.sessions.list_sessions(app_name="EvaluationGenerator", user_id="test_user_id")
        ).sessions
        full = await agent._run.sessions.get_session(
            app_name="EvaluationGenerator", user_id="test_user_id", session_id=session.id
        )
        await agent.aclose()
        return turns, full

    turns, session = asyncio.run(go())
    assert [t.final_text() for t in turns] == ["Pack an umbrella and a light rain jacket.", "You're welcome!"]
    user_texts = [e.content.parts[0].text for e in session.events if e.author == "user"]
    assert user_texts == ["Plan my trip to Tokyo", "Thanks!"]
    ids = [t.invocation_id for t in turns]
    assert all(ids) and ids[0] != ids[1]


def test_sub_agents_and_transfer_to_agent_are_in_the_trajectory(team, converse):
    case = make_case([make_invocation("Plan my trip to Tokyo", "x")])
    [turn] = asyncio.run(converse(AdkAgent(str(team)), case))
    assert [(c.name, c.args) for c in turn.tool_calls()] == [
        ("transfer_to_agent", {"agent_name": "trip_planner"}),
        ("get_forecast", {"city": "Tokyo", "days": 3}),
    ]
    assert [r.name for r in turn.tool_responses()] == ["transfer_to_agent", "get_forecast"]
    assert turn.intermediate_texts() == [
        ("forecast_reader", "Rain is expected in Tokyo for the next 3 days.")
    ]
    events = turn.intermediate_data.invocation_events
    assert [e.author for e in events] == [
        "weather_coordinator",
        "weather_coordinator",
        "forecast_reader",
        "forecast_reader",
        "forecast_reader",
        "packing_advisor",
    ]
    final_event = events[-1]  # its text is the final response, so its content is dropped
    assert final_event.content is None and final_event.model_version == "packer-1"
    assert final_event.usage_metadata == {
        "prompt_token_count": 10,
        "candidates_token_count": 5,
        "total_token_count": 15,
    }
    assert turn.final_text() == "Pack an umbrella and a light rain jacket."
    details = turn.app_details.agent_details
    assert set(details) == {"weather_coordinator", "forecast_reader", "packing_advisor"}
    assert details["forecast_reader"].instructions.startswith("Read the forecast")
    declared = details["forecast_reader"].tool_declarations[0]["function_declarations"]
    assert [d["name"] for d in declared] == ["get_forecast"]
    assert turn.duration is not None and turn.duration == round(turn.duration, 3)


def test_the_legacy_form_records_the_same_turn(team, converse):
    case = make_case([make_invocation("Plan my trip to Tokyo", "x")])
    [events] = asyncio.run(converse(AdkAgent(str(team)), case))
    [legacy] = asyncio.run(converse(AdkAgent(str(team), intermediate_form="legacy"), case))
    assert isinstance(events.intermediate_data, InvocationEvents)
    assert isinstance(legacy.intermediate_data, IntermediateData)
    assert legacy.intermediate_data.intermediate_responses[0][0] == "forecast_reader"
    for read in ("tool_calls", "tool_responses"):
        assert [(x.name, x.model_dump(exclude={"id"})) for x in getattr(legacy, read)()] == [
            (x.name, x.model_dump(exclude={"id"})) for x in getattr(events, read)()
        ]
    assert legacy.intermediate_texts() == events.intermediate_texts()
    assert legacy.final_response == events.final_response


def _scores(result) -> dict:
    return {
        (case.eval_id, c.criterion): (c.score, c.status)
        for eval_set in result.eval_sets
        for case in eval_set.cases
        for c in case.criteria
    }


CRITERIA = {
    "tool_trajectory_avg_score": 1.0,
    "response_match_score": 0.8,
    "trajectory_precision": 1.0,
    "trajectory_recall": 1.0,
    "trajectory_single_tool_use": {"threshold": 1.0, "tool_name": "transfer_to_agent"},
    "tool_call_count_v1": {},
}


def test_both_forms_score_alike(team, team_evalset):
    by_form = {}
    for form in ("events", "legacy"):
        actual = _run_all(AdkAgent(str(team), intermediate_form=form), team_evalset)
        by_form[form] = _scores(evaluate(team_evalset, actual, CRITERIA))
    assert by_form["events"] == by_form["legacy"]
    assert len(by_form["events"]) == 3 * len(CRITERIA)
    assert by_form["events"][("trip_then_thanks", "tool_trajectory_avg_score")] == (1.0, "PASSED")
    assert by_form["events"][("cairo_in_fahrenheit", "response_match_score")] == (1.0, "PASSED")


def test_an_agent_error_is_that_case_s_error(team):
    failing = make_case(
        [
            make_invocation("What's the weather in Paris?", "x"),
            make_invocation("And the forecast for Atlantis?", "y"),
        ],
        eval_id="atlantis",
    )
    fine = make_case([make_invocation("What's the weather in Paris?", "x")], eval_id="paris")
    outcomes = _run_all(AdkAgent(str(team)), EvalSet(eval_set_id="s", eval_cases=[failing, fine]))
    failure = outcomes["atlantis"]
    assert isinstance(failure, AgentFailure) and failure.code == "agent_error"
    assert (
        failure.message
        == "turn 2: the agent raised ConnectionError: forecast service unreachable for Atlantis"
    )
    assert "get_forecast" in failure.traceback
    assert outcomes["paris"][0].final_text() == "It is 18°C and sunny in Paris."


def test_an_erroring_case_through_the_engine(team, tmp_path, team_evalset):
    failing = make_case([make_invocation("And the forecast for Atlantis?", "x")], eval_id="atlantis")
    eval_set = team_evalset.model_copy(update={"eval_cases": [*team_evalset.eval_cases, failing]})
    path = tmp_path / "with_atlantis.evalset.json"
    path.write_text(eval_set.to_json())
    result = evaluate_agent(AdkAgent(str(team)), path, ["tool_trajectory_avg_score"])
    statuses = {case.eval_id: case.status for case in result.eval_sets[0].cases}
    assert statuses == {
        "paris_weather": "PASSED",
        "cairo_in_fahrenheit": "PASSED",
        "trip_then_thanks": "PASSED",
        "atlantis": "ERRORED",
    }
    [atlantis] = [c for c in result.eval_sets[0].cases if c.eval_id == "atlantis"]
    assert atlantis.criteria[0].reason_code == "agent_error"
    assert json.loads(result.model_dump_json())  # the whole result stays JSON


def test_a_folder_target_string_resolves_to_this_adapter(team):
    result = evaluate_agent(str(team), team / "weather_team.evalset.json")
    assert result.passed
    assert {c.eval_id for c in result.eval_sets[0].cases} == {
        "paris_weather",
        "cairo_in_fahrenheit",
        "trip_then_thanks",
    }


@pytest.mark.parametrize("form", ["events", "legacy"])
def test_recorded_turns_round_trip_through_json(team, team_evalset, form):
    actual = _run_all(AdkAgent(str(team), intermediate_form=form), team_evalset)
    eval_set = EvalSet(
        eval_set_id="actual",
        eval_cases=[make_case(turns, eval_id=eval_id) for eval_id, turns in actual.items()],
    )
    again = EvalSet.model_validate_json(eval_set.to_json())
    assert again == eval_set


def test_each_case_has_its_own_memory_and_shares_sessions_and_artifacts(team):
    """As in ``adk eval``: what one case stores in memory cannot reach another."""

    async def go():
        agent = AdkAgent(str(team))
        first = await agent.session(make_case([]))
        second = await agent.session(make_case([]))
        await agent.aclose()
        return first._runner, second._runner

    first, second = asyncio.run(go())
    assert first is not second
    assert first.memory_service is not second.memory_service
    assert first.session_service is second.session_service
    assert first.artifact_service is second.artifact_service
