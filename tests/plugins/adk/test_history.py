"""A case that starts with history (an Agent Platform dataset's ``conversation_history``):
the ADK adapter appends it to the new session as the events ADK records, so the model sees
the conversation it would have seen had the agent had those turns (``_history``)."""

from __future__ import annotations

import asyncio

import pytest
from agenteval._agents import run_agent
from agenteval.models import IntermediateData
from agenteval.testing import make_case, make_invocation
from agenteval_adk import AdkAgent

FIRST, THEN = "What's the weather in Paris?", "Thanks!"


@pytest.fixture
def requests(monkeypatch):
    """The contents of every model request the team's scripted models get, as JSON."""
    from weather_team.scripted_llm import ScriptedLlm

    seen: list[list[dict]] = []
    answer = ScriptedLlm.generate_content_async

    def recording(self, llm_request, stream=False):
        seen.append([c.model_dump(mode="json", exclude_none=True) for c in llm_request.contents])
        return answer(self, llm_request, stream)

    monkeypatch.setattr(ScriptedLlm, "generate_content_async", recording)
    return seen


def _run(agent: AdkAgent, case):
    async def go():
        try:
            return await run_agent(agent, [case])
        finally:
            await agent.aclose()

    [outcome] = asyncio.run(go())
    assert isinstance(outcome, list), outcome
    return outcome


def _without_ids(contents: list[dict]) -> list[dict]:
    for content in contents:
        for part in content.get("parts", []):
            for key in ("function_call", "function_response"):
                part.get(key, {}).pop("id", None)
    return contents


@pytest.mark.parametrize("form", ["events", "legacy"])
def test_the_model_sees_the_history_as_if_the_agent_had_had_those_turns(agents_on_path, requests, form):
    conversation = [make_invocation(FIRST, "x"), make_invocation(THEN, "y")]
    live = _run(AdkAgent("weather_team", intermediate_form=form), make_case(conversation))
    live_request = requests[-1]  # the one model call of the second turn, after the first turn's
    requests.clear()

    # the first turn as recorded becomes the history; only the second is played
    case = make_case([live[0], make_invocation(THEN, "y")], context_turns=1)
    turns = _run(AdkAgent("weather_team", intermediate_form=form), case)
    [request] = requests
    assert turns[0] == live[0] and turns[1].final_text() == "You're welcome!"
    assert [c["role"] for c in request] == ["user", "model", "user", "model", "user"]
    assert request[0]["parts"] == [{"text": FIRST}] and request[-1]["parts"] == [{"text": THEN}]
    assert _without_ids(request) == _without_ids(live_request)


def test_history_events_are_in_the_session_in_order_before_the_judged_turn(agents_on_path):
    first = make_invocation(FIRST, "It is 18°C and sunny in Paris.").model_copy(
        update={
            "intermediate_data": IntermediateData(
                tool_uses=[{"name": "get_weather", "args": {"city": "Paris"}}],
                tool_responses=[{"name": "get_weather", "response": {"temperature": 18}}],
            )
        }
    )
    case = make_case([first, make_invocation(THEN, "y")], context_turns=1)

    async def go():
        agent = AdkAgent("weather_team")
        session = await agent.session(case)
        await session.turn(case.conversation[1].user_content)
        sessions = agent._run.sessions
        where = {"app_name": "EvaluationGenerator", "user_id": "test_user_id"}
        [listed] = (await sessions.list_sessions(**where)).sessions
        full = await sessions.get_session(**where, session_id=listed.id)
        await agent.aclose()
        return full.events

    events = asyncio.run(go())
    described = []
    for event in events:
        part = event.content.parts[0]
        what = part.text or (part.function_call or part.function_response).name
        described.append((event.author, event.content.role, what))
    assert described == [
        ("user", "user", FIRST),
        ("weather_coordinator", "model", "get_weather"),
        ("weather_coordinator", "user", "get_weather"),
        ("weather_coordinator", "model", "It is 18°C and sunny in Paris."),
        ("user", "user", THEN),
        ("weather_coordinator", "model", "You're welcome!"),
    ]
    call, answer = events[1].content.parts[0].function_call, events[2].content.parts[0].function_response
    assert call.id and call.id.startswith("adk-") and answer.id == call.id  # paired as ADK pairs them
    assert len({e.invocation_id for e in events[:4]}) == 1  # the history's turn, under one id
    assert events[4].invocation_id != events[0].invocation_id


def test_steps_keep_authors_of_the_tree_and_others_become_the_agent_under_evaluation(agents_on_path):
    from agenteval.models import InvocationEvents
    from agenteval_adk._history import history_events
    from weather_team.agent import root_agent

    def said(author: str, text: str) -> dict:
        return {"author": author, "content": {"role": "model", "parts": [{"text": text}]}}

    recorded = make_invocation("Plan my trip", "Pack an umbrella.").model_copy(
        update={
            "intermediate_data": InvocationEvents.model_validate(
                {"invocation_events": [said("shop_agent", "elsewhere"), said("forecast_reader", "rain")]}
            )
        }
    )
    events = history_events([recorded, make_invocation("Hi", "Hello.")], root_agent)
    assert [(e.author, e.content.parts[0].text) for e in events] == [
        ("user", "Plan my trip"),
        ("weather_coordinator", "elsewhere"),  # recorded by an agent this tree does not have
        ("forecast_reader", "rain"),  # a sub-agent's step stays its own
        ("forecast_reader", "Pack an umbrella."),  # the final response: the last step's author
        ("user", "Hi"),
        ("weather_coordinator", "Hello."),  # no steps: the agent under evaluation
    ]
    assert all(e.content.role == ("user" if e.author == "user" else "model") for e in events)


def test_agenteval_run_on_a_dataset_with_history_and_an_adk_agent(agents_on_path, requests, tmp_path):
    import json

    from agenteval.cli import main
    from click.testing import CliRunner

    pytest.importorskip("agenteval_agent_platform")

    def content(role: str, text: str) -> dict:
        return {"role": role, "parts": [{"text": text}]}

    dataset = tmp_path / "weather-dataset.json"
    case = {
        "eval_case_id": "thanks_after_paris",
        "conversation_history": [
            {"turn_id": "t1", "author": "user", "content": content("user", FIRST)},
            {"turn_id": "t1", "content": content("model", "It is 18°C and sunny in Paris.")},
        ],
        "prompt": content("user", THEN),
        "reference": {"response": content("model", "You're welcome!")},
    }
    dataset.write_text(json.dumps({"eval_cases": [case]}))
    result = CliRunner().invoke(
        main,
        ["run", str(dataset), "--agent", "weather_team", "--agent-type", "adk"]
        + ["--criteria", "response_match_score", "--format", "json", "--no-record", "-q"],
    )
    assert result.exit_code == 0, result.output
    [criterion] = json.loads(result.stdout)["eval_sets"][0]["cases"][0]["criteria"]
    assert (criterion["status"], [p["index"] for p in criterion["per_invocation"]]) == ("PASSED", [1])
    [request] = requests  # the history is in the session, not played: one model call
    assert [(c["role"], c["parts"][0].get("text")) for c in request] == [
        ("user", FIRST),
        ("model", "It is 18°C and sunny in Paris."),
        ("user", THEN),
    ]
