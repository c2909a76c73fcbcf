"""docs/agents.md quotes the figures benchmarks/agent_overhead.py and
benchmarks/adk_agent_overhead.py last recorded (their ``*_figures.json``) as the scripts'
``doc_lines`` word them: a figure in the doc cannot drift from the measurement (rerun the
script with ``--write`` and update the doc)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.doc_figures import load_script, unquoted_rows

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "agents.md"
FIGURES = load_script(REPO / "benchmarks" / "_figures.py")
SCRIPTS = [REPO / "benchmarks" / "agent_overhead.py", REPO / "benchmarks" / "adk_agent_overhead.py"]


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.stem)
def test_the_doc_quotes_the_recorded_figures_as_the_script_words_them(path):
    missing = unquoted_rows(DOC, path)
    assert not missing, f"docs/agents.md does not quote (rerun {path.name} --write): {missing}"


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
