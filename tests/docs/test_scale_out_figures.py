"""docs/scale-out.md quotes the figures benchmarks/scale_out.py last wrote
(``scale_out_figures.json``) as the script's ``doc_lines`` prints them: a figure in the doc
cannot drift from the measurement (rerun the script with ``--write`` and update the doc)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fixtures.doc_figures import load_script, unquoted

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "scale_out.py"
DOC = REPO / "docs" / "scale-out.md"


def _script():
    return load_script(SCRIPT)


def test_the_doc_quotes_the_recorded_figures_as_the_script_prints_them():
    script = _script()
    figures = json.loads(script.JSON_PATH.read_text(encoding="utf-8"))
    missing = unquoted(DOC, script.doc_lines(figures))
    assert not missing, f"docs/scale-out.md does not quote (rerun {SCRIPT.name} --write): {missing}"


def test_the_recorded_figures_are_consistent():
    figures = json.loads(_script().JSON_PATH.read_text(encoding="utf-8"))
    assert abs(figures["ratio"] - figures["local_seconds"] / figures["ray_seconds"]) < 0.01
    assert figures["ray_workers"] >= 1 and figures["cases"] >= 1
