"""``AdkAgent.claims``: ADK agent folders and dotted modules, read without importing them."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from agenteval_adk import AdkAgent

REPO = Path(__file__).resolve().parents[3]


def _folder(tmp_path: Path, name: str, files: dict[str, str]) -> str:
    folder = tmp_path / name
    folder.mkdir()
    for file_name, text in files.items():
        (folder / file_name).write_text(text)
    return str(folder)


@pytest.mark.parametrize(
    ("files", "claimed"),
    [
        ({"agent.py": "from google.adk.agents import Agent\nroot_agent = Agent(name='a')\n"}, True),
        ({"__init__.py": "from .agent import root_agent\n", "agent.py": "x = 1\n"}, True),
        ({"agent.py": "async def get_agent_async():\n    return None\n"}, True),
        ({"agent.py": "from google.adk.apps import App\napp = App(name='a', root_agent=None)\n"}, True),
        ({"agent.py": "try:\n    root_agent: object = make()\nexcept ImportError:\n    raise\n"}, True),
        ({"agent.py": "root_agent = (\n"}, True),  # unparsable: the import will say why
        ({"agent.py": "from fastapi import FastAPI\napp = FastAPI()\n"}, True),  # loading says why not
        ({"agent.py": "def respond(message, history):\n    return 'hi'\n"}, False),
        ({"agent.py": "def build():\n    root_agent = 1\n    return root_agent\n"}, False),
        ({"notes.txt": "root_agent"}, False),
    ],
)
def test_folders_are_claimed_when_their_source_defines_an_adk_agent(tmp_path, files, claimed):
    assert AdkAgent.claims(_folder(tmp_path, "candidate", files)) is claimed


def test_no_module_is_imported_to_decide(tmp_path):
    target = _folder(
        tmp_path, "untouched_agent", {"agent.py": "raise SystemExit('imported!')\nroot_agent = 1\n"}
    )
    assert AdkAgent.claims(target)
    assert "untouched_agent" not in sys.modules


def test_the_adapter_class_loads_without_google_adk():
    code = (
        "import sys\nfrom agenteval_adk import AdkAgent\nAdkAgent.claims('my_pkg.agent')\n"
        "print(sorted(m for m in sys.modules if m.startswith(('google.adk', 'google.genai'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("target", "claimed"),
    [
        ("my_pkg.agent", True),
        ("my_pkg", True),
        ("company.agents.billing", True),
        ("my_pkg.agent:respond", False),
        ("examples/travel/agent.py:respond", False),
        ("path/to/agent_folder", False),
        ("http://127.0.0.1:8000/v1", False),
        ("my-agent-folder", False),
        ("agent.py", False),
        ("evals.json", False),
        ("class.agent", False),
        ("", False),
    ],
)
def test_dotted_module_names(target, claimed):
    assert AdkAgent.claims(target) is claimed


def test_an_existing_path_is_never_taken_for_a_module(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("plain_agent").mkdir()
    Path("plain_agent/agent.py").write_text("def respond(message, history):\n    return 'hi'\n")
    assert not AdkAgent.claims("plain_agent")  # a plain Python agent's folder


def test_the_repository_s_agents(team):
    assert AdkAgent.claims(str(team))
    assert AdkAgent.claims(str(REPO / "examples" / "adk_weather"))
    assert not AdkAgent.claims(str(REPO / "examples" / "travel"))  # the python adapter's example


TARGETS = [
    str(REPO / "tests" / "fixtures" / "adk_agents" / "weather_team"),
    "my_pkg.agent",
    "my_pkg.agent:respond",
    str(REPO / "examples" / "travel" / "agent.py") + ":respond",
    str(REPO / "examples" / "travel"),  # the python adapter's folder form
    "http://127.0.0.1:8000/v1?model=x",
]


@pytest.mark.parametrize("target", TARGETS)
def test_at_most_one_installed_adapter_claims_a_target(target):
    adapters = {ep.name: ep.load() for ep in entry_points(group="agenteval.agents")}
    assert "adk" in adapters and adapters["adk"] is AdkAgent
    claiming = [name for name, adapter in adapters.items() if adapter.claims(target)]
    assert len(claiming) == 1, claiming
