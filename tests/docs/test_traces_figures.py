"""docs/traces.md quotes the figures benchmarks/otel_import.py last recorded
(``otel_import_figures.json``) as the script's ``doc_lines`` words them: a figure in the doc
cannot drift from the measurement (rerun the script with ``--write`` and update the doc)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fixtures.doc_figures import load_script, unquoted

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "otel_import.py"
DOC = REPO / "docs" / "traces.md"


def test_the_doc_quotes_the_recorded_figures_as_the_script_words_them():
    script = load_script(SCRIPT)
    figures = json.loads(script.JSON_PATH.read_text(encoding="utf-8"))
    missing = unquoted(DOC, script.doc_lines(figures))
    assert not missing, f"docs/traces.md does not quote (rerun {SCRIPT.name} --write): {missing}"


def test_the_recorded_figures_cover_the_issue_s_10k_traces():
    figures = json.loads(load_script(SCRIPT).JSON_PATH.read_text(encoding="utf-8"))
    rows = {(row["traces"], row["mode"]) for row in figures["rows"]}
    assert {(10000, "actual"), (10000, "lint-trace"), (10000, "import-trace")} <= rows
    assert all(row["seconds"] > 0 and row["cpu"] > 0 and row["peak_mb"] > 0 for row in figures["rows"])
