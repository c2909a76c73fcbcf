"""``AdkAgent.check_ready``: importing the agent as ``adk eval`` / ``AgentEvaluator`` do,
and every way it can fail as a one-paragraph ``ConfigError``."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from agenteval.errors import ConfigError
from agenteval.testing import make_case, make_invocation
from agenteval_adk import AdkAgent

PARIS = make_case([make_invocation("What's the weather in Paris?", "x")])


def _agent_folder(tmp_path: Path, name: str, agent_py: str, init_py: str = "from . import agent\n") -> str:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "__init__.py").write_text(init_py)
    (folder / "agent.py").write_text(agent_py)
    return str(folder)


def _config_error(target: str) -> str:
    with pytest.raises(ConfigError) as raised:
        AdkAgent(target).check_ready()
    message = str(raised.value)
    assert "\n" not in message and "Traceback" not in message
    return message


def test_a_folder_loads_as_a_package_named_after_it(team, converse, monkeypatch):
    # the name is the folder's when no other folder's package holds it (other tests run copies)
    for name in [m for m in sys.modules if m == "weather_team" or m.startswith("weather_team.")]:
        monkeypatch.delitem(sys.modules, name)
    agent = AdkAgent(str(team))
    agent.check_ready()
    assert agent._loaded.source == "weather_team.agent.root_agent"
    assert agent._loaded.name == "weather_team"
    [turn] = asyncio.run(converse(agent, PARIS))
    assert turn.final_text() == "It is 18°C and sunny in Paris."


@pytest.mark.parametrize(
    ("target", "source"),
    [
        ("weather_team.agent", "weather_team.agent.root_agent"),
        ("weather_team", "weather_team.agent.root_agent"),
    ],
)
def test_dotted_modules_as_agent_evaluator_takes_them(agents_on_path, target, source):
    agent = AdkAgent(target)
    agent.check_ready()
    assert (agent._loaded.source, agent._loaded.name) == (source, "weather_team")


def test_an_app_brings_its_plugins(agents_on_path, converse):
    agent = AdkAgent("weather_team.app_variant")
    agent.check_ready()
    from weather_team import app_variant

    before = app_variant.counter.runs
    [turn] = asyncio.run(converse(agent, PARIS))
    assert turn.final_text() == "It is 18°C and sunny in Paris."
    assert app_variant.counter.runs == before + 1


def test_get_agent_async_is_awaited_in_the_run_and_its_exit_stack_closed(agents_on_path, converse):
    agent = AdkAgent("weather_team.factory_variant")
    agent.check_ready()
    from weather_team import factory_variant

    closed_before = len(factory_variant.closed)
    [turn] = asyncio.run(converse(agent, PARIS))
    assert turn.tool_calls()[0].name == "get_weather"
    assert len(factory_variant.closed) == closed_before + 1


def test_the_folder_s_env_file_is_read_without_overriding(tmp_path, monkeypatch):
    for name in ("ADK_TEST_FROM_DOTENV", "ADK_TEST_ALREADY_SET"):
        monkeypatch.setenv(name, "")  # so that teardown removes what .env sets
        monkeypatch.delenv(name)
    monkeypatch.setenv("ADK_TEST_ALREADY_SET", "from the shell")
    folder = _agent_folder(
        tmp_path,
        "env_agent",
        "import os\nfrom google.adk.agents import Agent\n"
        "root_agent = Agent(\n"
        "    name='env_agent', model='unused', instruction=os.environ['ADK_TEST_FROM_DOTENV']\n"
        ")\n",
    )
    Path(folder, ".env").write_text("ADK_TEST_FROM_DOTENV=from dotenv\nADK_TEST_ALREADY_SET=from dotenv\n")
    agent = AdkAgent(folder)
    agent.check_ready()
    assert agent._loaded.root_agent.instruction == "from dotenv"
    assert os.environ["ADK_TEST_ALREADY_SET"] == "from the shell"


def test_a_taken_module_name_gets_a_private_alias(tmp_path):
    folder = _agent_folder(
        tmp_path,
        "json",
        "from google.adk.agents import Agent\nroot_agent = Agent(name='j', model='unused')\n",
    )
    agent = AdkAgent(folder)
    agent.check_ready()
    assert agent._loaded.source.startswith("_agenteval_adk_json_")
    assert sys.modules["json"].__name__ == "json" and hasattr(sys.modules["json"], "dumps")


def test_google_adk_missing(team, monkeypatch):
    monkeypatch.setitem(sys.modules, "google.adk", None)
    message = _config_error(str(team))
    assert "needs google-adk" in message
    assert "pip install agenteval-adk" in message and "pip install -e plugins/adk" in message


def test_a_folder_without_agent_files(tmp_path):
    (tmp_path / "empty_folder").mkdir()
    assert "has neither agent.py nor __init__.py" in _config_error(str(tmp_path / "empty_folder"))


def test_a_folder_without_an_adk_agent(tmp_path):
    folder = _agent_folder(tmp_path, "plain_python", "def respond(message, history):\n    return 'hi'\n")
    message = _config_error(folder)
    assert "no ADK agent found in plain_python.agent, plain_python" in message
    assert "'app' (an ADK App), 'root_agent' or 'get_agent_async'" in message


def test_an_app_that_is_not_an_adk_app(tmp_path):
    folder = _agent_folder(tmp_path, "web_app", "class Web:\n    pass\n\n\napp = Web()\n")
    assert "(web_app.agent.app is a Web, not an ADK App)" in _config_error(folder)


def test_an_import_error_in_the_user_s_code(tmp_path):
    folder = _agent_folder(
        tmp_path, "needs_a_package", "import not_installed_dependency_xyz\nroot_agent = 1\n"
    )
    message = _config_error(folder)
    assert "importing the agent folder" in message
    assert "ModuleNotFoundError: No module named 'not_installed_dependency_xyz'" in message
    assert f"(at {Path(folder, 'agent.py')}:1)" in message
    assert "needs_a_package" not in sys.modules  # a failed import leaves nothing behind


def test_an_exception_while_building_the_agent(tmp_path):
    folder = _agent_folder(
        tmp_path,
        "no_key_agent",
        "import os\n\nraise RuntimeError('GOOGLE_API_KEY is not set')\nroot_agent = 1\n",
    )
    message = _config_error(folder)
    assert "RuntimeError: GOOGLE_API_KEY is not set" in message and "agent.py:3)" in message


def test_root_agent_that_is_not_an_agent(tmp_path):
    folder = _agent_folder(tmp_path, "wrong_type", "root_agent = 'hello'\n")
    message = _config_error(folder)
    assert "wrong_type.agent.root_agent is a str, not an ADK agent" in message


def test_a_file_or_an_unknown_module(tmp_path, team):
    assert "this is a file" in _config_error(str(team / "agent.py"))
    message = _config_error("no_such_package_xyz.agent")
    assert "no module named 'no_such_package_xyz'" in message


def test_an_unknown_intermediate_form():
    with pytest.raises(ValueError, match="'events' or 'legacy'"):
        AdkAgent("my_pkg.agent", intermediate_form="compact")
