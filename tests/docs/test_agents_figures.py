"""The recorded figures of benchmarks/agent_overhead.py and benchmarks/adk_agent_overhead.py
(their ``*_figures.json``) cover every row of docs/agents.md's table; that the doc quotes
them as the scripts word them is ``test_row_figures``."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.doc_figures import load_script

REPO = Path(__file__).resolve().parents[2]
FIGURES = load_script(REPO / "benchmarks" / "_figures.py")
SCRIPTS = [REPO / "benchmarks" / "agent_overhead.py", REPO / "benchmarks" / "adk_agent_overhead.py"]


def test_the_recorded_figures_cover_every_row_of_the_doc_s_table():
    python = load_script(SCRIPTS[0])
    rows = FIGURES.load(python.JSON_PATH)
    assert set(python.doc_lines(rows)) == {
        "tool_trajectory_avg_score",
        "response_match_score",
        "response_match_score 0.05 s",
        "machine",
    }
    adk = load_script(SCRIPTS[1])
    assert set(adk.doc_lines(FIGURES.load(adk.JSON_PATH))) == {adk.AGENTEVAL, adk.ADK_EVAL, "machine"}
    for row in rows + FIGURES.load(adk.JSON_PATH):
        assert row["startup"] > 0 and row["exit"] > 0 and row["per_case_ms"] > 0 and row["cpus"] >= 1
