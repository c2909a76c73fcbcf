"""The docs quote the figures each benchmark that records rows (``benchmarks/_figures.py``)
last recorded (its ``*_figures.json``) as the script's ``doc_lines`` word them: a figure in
a doc cannot drift from the measurement (rerun the script with ``--write`` and update the
doc). What each doc's table must cover is tested beside it (``test_agents_figures``,
``test_viewer_figures``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.doc_figures import unquoted_rows

REPO = Path(__file__).resolve().parents[2]
#: each doc, and the benchmarks whose recorded rows it quotes
QUOTED = {
    "agents.md": ["agent_overhead.py", "adk_agent_overhead.py"],
    "viewer.md": ["viewer_budgets.py", "viewer_server.py"],
}


@pytest.mark.parametrize(
    ("doc", "script"), [(doc, script) for doc, scripts in QUOTED.items() for script in scripts]
)
def test_the_doc_quotes_the_recorded_figures_as_the_script_words_them(doc, script):
    missing = unquoted_rows(REPO / "docs" / doc, REPO / "benchmarks" / script)
    assert not missing, f"docs/{doc} does not quote (rerun {script} --write): {missing}"
