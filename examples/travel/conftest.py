"""Run this folder's eval files under pytest: `pytest examples/travel` collects each case of
`travel.evalset.json` as a test of the agent in `agent.py` (docs/pytest.md)."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def pytest_agenteval_agent(path: Path) -> str:
    """The agent under test for every eval file in this folder and below."""
    return f"{HERE / 'agent.py'}:respond"
