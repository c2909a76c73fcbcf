"""docs/statistics.md quotes its figures as benchmarks/statistics_figures.py prints them, so
a figure in the doc cannot drift from the code: the exact figures are recomputed here, the
simulated ones (seconds to compute) are read from the JSON the script writes, which must
hold the exact ones as computed now."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures.doc_figures import load_script, unquoted

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "statistics_figures.py"
DOC = REPO / "docs" / "statistics.md"
SIMULATED = ("set_errors",)


def _script():
    return load_script(SCRIPT)


@pytest.fixture(scope="module")
def figures():
    script = _script()
    recorded = json.loads(script.JSON_PATH.read_text(encoding="utf-8"))
    exact = script.compute(tuple(name for name in script.FIGURES if name not in SIMULATED))
    return script, recorded, exact


def test_the_json_holds_every_figure_and_the_exact_ones_as_computed_now(figures):
    script, recorded, exact = figures
    assert set(recorded) == set(script.FIGURES)
    for name, value in exact.items():
        assert recorded[name] == pytest.approx(value, rel=1e-9), f"rerun {SCRIPT.name} --write: {name}"


def test_the_doc_quotes_every_figure_as_the_script_prints_it(figures):
    script, recorded, exact = figures
    missing = unquoted(DOC, script.doc_lines({**recorded, **exact}))
    assert not missing, f"docs/statistics.md does not quote: {missing}"


def test_the_figures_the_issue_corrected():
    script = _script()
    assert script.curtailment()["saving_at_half"] == pytest.approx(0.175)
    assert round(script.sequential_error()["sprt_wrong"], 3) == 0.082
    assert script.case_flags()["min_runs"] == 4
