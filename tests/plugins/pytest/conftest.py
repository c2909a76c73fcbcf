"""The pytest plugin's tests: pytester, and a small project (eval file, agent, config) to run.

``pytest_plugins`` is refused in a conftest below the rootdir when the whole suite runs,
so pytester is registered from ``pytest_configure`` instead.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin("pytester"):
        config.pluginmanager.import_plugin("pytester")


@pytest.fixture(autouse=True, scope="session")
def _criteria_imported_once() -> None:
    """pytester's in-process runs drop the modules they import when they end, and some
    extension modules (numpy's, under rouge_score) cannot be imported twice in a process:
    import the engine and the built-in criteria and agents once, out here."""
    import agenteval._api  # noqa: F401
    import agenteval_builtin.partial_trajectory
    import agenteval_builtin.python_agent
    import agenteval_builtin.response_match
    import agenteval_builtin.tool_call_count
    import agenteval_builtin.trajectory  # noqa: F401
    import numpy  # noqa: F401  - intervals over repeated runs
    import scipy.special
    import scipy.stats  # noqa: F401  - BCa from 20 runs or cases


def _turn(user: str, response: str, *tools: dict) -> dict:
    return {
        "user_content": {"role": "user", "parts": [{"text": user}]},
        "final_response": {"role": "model", "parts": [{"text": response}]},
        "intermediate_data": {"tool_uses": list(tools)},
    }


#: One case per outcome: PASSED, FAILED, ERRORED (the agent raises), NOT_EVALUATED (no turns).
EVAL_SET = {
    "eval_set_id": "shop",
    "eval_cases": [
        {
            "eval_id": "weather",
            "conversation": [
                _turn(
                    "What's the weather in Paris?",
                    "It is sunny in Paris today.",
                    {"name": "get_weather", "args": {"city": "Paris"}},
                )
            ],
        },
        {
            "eval_id": "flight",
            "conversation": [
                _turn(
                    "Find a flight from Berlin to Tokyo.",
                    "There is a direct flight from Berlin to Tokyo at 09:40.",
                    {"name": "search_flights", "args": {"origin": "BER", "destination": "HND"}},
                ),
                _turn("And in yen?", "That is about 126,000 yen."),
            ],
        },
        {"eval_id": "crash", "conversation": [_turn("boom", "never answered")]},
        {"eval_id": "empty", "conversation": []},
    ],
}

#: Passes ``weather``; books the wrong airport in ``flight``; raises on ``boom``. Every
#: message it gets is appended to ``calls.log`` beside it.
AGENT = """
from pathlib import Path

LOG = Path(__file__).with_name("calls.log")


def respond(message, history):
    with LOG.open("a", encoding="utf-8") as log:
        log.write(message + "\\n")
    if message == "boom":
        raise ValueError("the agent broke")
    if "weather" in message:
        return {
            "text": "It is sunny in Paris today.",
            "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}}],
        }
    if "flight" in message:
        return {
            "text": "There is a direct flight from Berlin to Tokyo at 09:40.",
            "tool_calls": [{"name": "search_flights", "args": {"destination": "NRT", "origin": "BER"}}],
        }
    if "yen" in message:
        return "That is roughly 125,000 yen."
    return "I do not know."
"""

CONFTEST = """
from pathlib import Path


def pytest_agenteval_agent(path):
    return f"{Path(__file__).parent / 'agent.py'}:respond"
"""


class Project:
    """A pytester folder holding ``shop.evalset.json``, ``agent.py`` and, optionally, a
    ``conftest.py`` naming that agent."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.path = pytester.path
        self.agent = f"{self.path / 'agent.py'}:respond"

    def write(self, name: str, content: object) -> Path:
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, indent=1)
        path.write_text(text, encoding="utf-8")
        return path

    def run(self, *args: str) -> pytest.RunResult:
        """pytest in-process, in this folder (without hypothesis' plugin, whose modules
        would be imported again on every run: pytester forgets what a run imported)."""
        return self.pytester.runpytest_inprocess("-p", "no:hypothesispytest", "-p", "no:cacheprovider", *args)

    def calls(self) -> list[str]:
        """The messages the agent received, in no particular order."""
        log = self.path / "calls.log"
        return sorted(log.read_text(encoding="utf-8").splitlines()) if log.exists() else []


@pytest.fixture
def project(pytester: pytest.Pytester) -> Project:
    """The eval file and the agent, no conftest (so no agent named yet)."""
    made = Project(pytester)
    made.write("shop.evalset.json", EVAL_SET)
    made.write("agent.py", AGENT)
    return made


@pytest.fixture
def named(project: Project) -> Project:
    """``project`` with a ``conftest.py`` whose hook names the agent."""
    project.write("conftest.py", CONFTEST)
    return project
