"""Fixtures for the ADK adapter's tests: the scripted, offline test team in
``tests/fixtures/adk_agents/weather_team`` (an ADK agent folder with its eval set), and a
helper that talks to an agent the way the engine does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from agenteval._loading import read_eval_file
from agenteval.models import EvalCase, EvalSet, Invocation

ADK_AGENTS = Path(__file__).resolve().parents[2] / "fixtures" / "adk_agents"
TEAM = ADK_AGENTS / "weather_team"


@pytest.fixture
def team() -> Path:
    """The test team's folder (``root_agent`` in its ``agent.py``)."""
    return TEAM


@pytest.fixture
def team_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the test team's folder, for a test that runs it through the CLI: a run of an
    ADK agent writes ADK's eval history into the agent's folder (``.adk``), which must not
    land in the repository's fixtures."""
    copy = tmp_path_factory.mktemp("adk_agents") / TEAM.name
    return Path(shutil.copytree(TEAM, copy, ignore=shutil.ignore_patterns(".adk", "__pycache__")))


@pytest.fixture
def team_evalset() -> EvalSet:
    """The team's eval set: a plain case, one with session state, a two-turn trip."""
    return read_eval_file(TEAM / "weather_team.evalset.json").eval_set


@pytest.fixture
def agents_on_path(monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tests/fixtures/adk_agents`` on ``sys.path``, so ``weather_team`` is importable by
    its dotted name (as ``AgentEvaluator`` imports ``agent_module``)."""
    monkeypatch.syspath_prepend(str(ADK_AGENTS))
    return ADK_AGENTS


async def talk(agent, case: EvalCase, *, close: bool = True) -> list[Invocation]:
    """Every expected user turn of ``case`` sent to ``agent``, as the engine does."""
    session = await agent.session(case)
    try:
        return [await session.turn(expected.user_content) for expected in case.conversation]
    finally:
        await session.aclose()
        if close:
            await agent.aclose()


@pytest.fixture
def converse():
    """``talk`` (see above) as a fixture, since test modules cannot import this file."""
    return talk
