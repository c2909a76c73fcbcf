"""ADK parity of the adapter beyond the turns themselves: the credentials preflight,
``agent_name``, the parent-folder ``.env``, ADK's retry attempts, ADK's logs kept per
conversation, and the model/tool split of each turn's duration."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from agenteval.errors import ConfigError
from agenteval_adk._loading import nearest_env_file
from agenteval_adk._preflight import check_credentials
from agenteval_adk.adk_agent import AdkAgent

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "adk_weather"
CREDENTIALS = (
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GROQ_API_KEY",
)


@pytest.fixture
def no_credentials(monkeypatch):
    for name in CREDENTIALS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ADK_DISABLE_LOAD_DOTENV", "1")


def _agent(model):
    from google.adk.agents import Agent

    helper = Agent(name="helper", instruction="help")  # inherits the root's model
    return Agent(name="root", model=model, instruction="x", sub_agents=[helper])


def _problem(agent) -> str:
    with pytest.raises(ConfigError) as raised:
        check_credentials("t", agent)
    return str(raised.value)


def test_a_gemini_agent_without_credentials_is_refused_naming_what_to_set(no_credentials, monkeypatch):
    message = _problem(_agent("gemini-2.5-flash"))
    assert "the agent 'root' uses the Gemini model 'gemini-2.5-flash'" in message
    assert "GOOGLE_API_KEY" in message and "GOOGLE_GENAI_USE_VERTEXAI=true" in message
    monkeypatch.setenv("GEMINI_API_KEY", "k")
    check_credentials("t", _agent("gemini-2.5-flash"))
    monkeypatch.delenv("GEMINI_API_KEY")
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "p")
    assert "GOOGLE_CLOUD_LOCATION is not set" in _problem(_agent("gemini-2.5-flash"))
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
    check_credentials("t", _agent("gemini-2.5-flash"))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", "/nowhere/key.json")
    assert "'/nowhere/key.json', which is not a file" in _problem(_agent("gemini-2.5-flash"))


def test_a_sub_agent_inheriting_the_model_is_checked_and_custom_models_are_not(no_credentials):
    from google.adk.agents import Agent

    root = Agent(name="root", model=_offline_model(), instruction="x")
    root_with_gemini_helper = Agent(
        name="root",
        model=_offline_model(),
        sub_agents=[Agent(name="helper", model="gemini-2.5-pro", instruction="y")],
    )
    check_credentials("t", root)
    assert "the agent 'helper' uses the Gemini model 'gemini-2.5-pro'" in _problem(root_with_gemini_helper)


def test_a_litellm_agent_is_checked_with_litellms_own_rule(no_credentials, monkeypatch):
    pytest.importorskip("litellm")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from google.adk.models.lite_llm import LiteLlm

    message = _problem(_agent(LiteLlm(model="groq/llama-3.3-70b-versatile")))
    assert "the LiteLLM model 'groq/llama-3.3-70b-versatile'" in message and "GROQ_API_KEY" in message
    monkeypatch.setenv("GROQ_API_KEY", "k")
    check_credentials("t", _agent(LiteLlm(model="groq/llama-3.3-70b-versatile")))


def _offline_model():
    sys.path.insert(0, str(EXAMPLE.parent))
    try:
        from adk_weather.offline_model import OfflineWeatherModel
    finally:
        sys.path.remove(str(EXAMPLE.parent))
    return OfflineWeatherModel(role="assistant")


def _run_example_without_a_key(tmp_path) -> tuple[subprocess.CompletedProcess, float, float]:
    """The run, its wall time and the CPU time it used (user + system)."""
    import resource

    env = {k: v for k, v in os.environ.items() if k not in CREDENTIALS}
    env.update(ADK_EXAMPLE_MODEL="gemini-2.5-flash", ADK_DISABLE_LOAD_DOTENV="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "agenteval", "run", str(EXAMPLE), "--agent", str(EXAMPLE)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done, wall, cpu


def test_the_example_without_a_key_exits_2_fast_with_one_message(tmp_path):
    # The bar: exit 2 in under 3 s with one message (it printed ~620 lines of ADK
    # tracebacks and exited 1). Most of the time is importing google-adk for the agent
    # itself. The machine running the suite is shared, so wall time is unreliable: the
    # bar is checked on the CPU time the run used (the wall time on an idle machine),
    # best of three.
    measured = []
    for _ in range(3):
        done, wall, cpu = _run_example_without_a_key(tmp_path)
        assert done.returncode == 2, done.stdout + done.stderr
        lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
        assert len(lines) == 1, lines
        assert "the agent 'weather_assistant' uses the Gemini model 'gemini-2.5-flash'" in lines[0]
        assert "GOOGLE_API_KEY" in lines[0] and "Traceback" not in lines[0]
        measured.append((cpu, wall))
        if cpu < 3.0:
            break
    assert min(cpu for cpu, _ in measured) < 3.0, f"(cpu, wall) seconds: {measured}"


def test_agent_name_evaluates_one_sub_agent(team, team_evalset, converse):
    assert AdkAgent.claims(f"{team}#trip_planner")
    agent = AdkAgent(f"{team}#forecast_reader")
    assert (agent.agent_path, agent.agent_name) == (str(team), "forecast_reader")
    agent.check_ready()
    [trip] = [c for c in team_evalset.eval_cases if c.eval_id == "trip_then_thanks"]
    first_turn = trip.model_copy(update={"conversation": trip.conversation[:1]})
    turns = asyncio.run(converse(agent, first_turn))
    authors = {e.author for t in turns for e in t.intermediate_data.invocation_events}
    assert authors <= {"forecast_reader"}
    with pytest.raises(ConfigError, match="no agent named 'nobody'; its agents: weather_coordinator"):
        AdkAgent(f"{team}#nobody").check_ready()


def test_the_nearest_env_file_above_the_agent_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("ADK_DISABLE_LOAD_DOTENV", raising=False)
    inner = tmp_path / "project" / "agents" / "mine"
    inner.mkdir(parents=True)
    (tmp_path / "project" / ".env").write_text("X=1\n")
    assert nearest_env_file(inner) == tmp_path / "project" / ".env"
    (inner / ".env").write_text("X=2\n")
    assert nearest_env_file(inner) == inner / ".env"
    monkeypatch.setenv("ADK_DISABLE_LOAD_DOTENV", "true")
    assert nearest_env_file(inner) is None
    # ADK's own lookup finds the same file.
    from google.adk.cli.utils import envs

    assert envs._walk_to_root_until_found(str(inner.parent), ".env") == str(tmp_path / "project" / ".env")


def test_retries_are_adks_eval_retries():
    from agenteval_adk._plugins import _RETRY
    from google.adk.evaluation._retry_options_utils import _DEFAULT_HTTP_RETRY_OPTIONS as adk

    assert _RETRY.model_dump() == adk.model_dump()


def test_adk_warnings_in_a_turn_go_to_that_conversations_log(team, team_evalset, capsys):
    agent = AdkAgent(str(team))
    agent.check_ready()
    case = team_evalset.eval_cases[0]
    adk_logger = logging.getLogger("google_adk.google.adk.test")

    async def go():
        session = await agent.session(case)
        from agenteval_adk import _logs

        with _logs.captured(session.log, 1):
            adk_logger.warning("inside %s", "the turn")
        turn = await session.turn(case.conversation[0].user_content)
        await agent.aclose()
        return session, turn

    session, turn = asyncio.run(go())
    assert session.log[0] == {
        "turn": 1,
        "level": "WARNING",
        "logger": "google_adk.google.adk.test",
        "message": "inside the turn",
    }
    assert "inside the turn" not in capsys.readouterr().err
    # ADK's instrumentation split the turn's duration, as adk eval records it.
    assert turn.duration is not None and turn.model_duration is not None and turn.tool_duration is not None
    assert turn.model_duration + turn.tool_duration <= turn.duration + 0.01


ECHO_AGENT = """
from google.adk.agents import Agent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types


class Echo(BaseLlm):
    model: str = "echo"

    async def generate_content_async(self, llm_request, stream=False):
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="ok")]))


resets = []
reset_data = RESET
root_agent = Agent(name="echo_agent", model=Echo(), instruction="x")
"""


def _echo_folder(tmp_path, reset: str) -> Path:
    folder = tmp_path / "echo_agent"
    folder.mkdir()
    (folder / "__init__.py").write_text("from . import agent\n")
    (folder / "agent.py").write_text(ECHO_AGENT.replace("RESET", reset))
    return folder


def test_reset_data_is_called_before_each_case_as_adk_does(tmp_path, converse):
    from agenteval.testing import make_case, make_invocation

    folder = _echo_folder(tmp_path, "lambda: resets.append(1)")
    agent = AdkAgent(str(folder))
    agent.check_ready()
    case = make_case([make_invocation("hi", "ok")])

    async def two_cases():
        for _ in range(2):
            await converse(agent, case, close=False)
        await agent.aclose()

    asyncio.run(two_cases())
    module = sys.modules[agent._loaded.source.rsplit(".", 1)[0]]
    assert module.resets == [1, 1]


def test_a_reset_data_that_is_not_a_function_is_refused(tmp_path):
    folder = _echo_folder(tmp_path, "42")
    with pytest.raises(ConfigError, match="reset_data is a int; ADK calls it before each case"):
        AdkAgent(str(folder)).check_ready()


def test_adks_error_logs_of_a_failing_case_stay_off_stderr(team_copy, tmp_path):
    import json

    case = {
        "eval_id": "atlantis",
        "conversation": [
            {
                "user_content": {"role": "user", "parts": [{"text": "And the forecast for Atlantis?"}]},
                "final_response": {"role": "model", "parts": [{"text": "x"}]},
            }
        ],
    }
    evalset = tmp_path / "atlantis.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "atlantis", "eval_cases": [case]}))
    (tmp_path / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.5}}))
    env = {**os.environ, "ADK_DISABLE_LOAD_DOTENV": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "agenteval", "run", str(evalset), "--agent", str(team_copy)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 case: 1 errored" in done.stdout
    assert "google_adk" not in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_adks_logs_reach_the_cases_output_through_the_engine(team):
    from agenteval._agents import run_agent
    from agenteval.testing import make_case, make_invocation

    agent = AdkAgent(str(team))
    failing = make_case([make_invocation("And the forecast for Atlantis?", "x")], eval_id="atlantis")

    async def go():
        try:
            return await run_agent(agent, [failing])
        finally:
            await agent.aclose()

    [outcome] = asyncio.run(go())
    lines = outcome.output.splitlines()
    assert any(line.startswith("turn 1: ERROR google_adk.") for line in lines), outcome.output
    assert "Traceback" not in outcome.output
