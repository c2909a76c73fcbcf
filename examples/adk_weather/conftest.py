"""Run this folder's eval files under pytest: `pytest examples/adk_weather` collects each case
of `weather.evalset.json` as a test of the ADK agent defined here (docs/pytest.md). Needs the
agenteval-adk plugin (`pip install -e plugins/adk`)."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def pytest_agenteval_agent(path: Path) -> str:
    """The agent under test: this ADK agent folder."""
    return str(HERE)
