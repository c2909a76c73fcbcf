"""``benchmarks/_figures.py``: the recorded figures a doc quotes, merged run after run."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fixtures.doc_figures import load_script

FIGURES = load_script(Path(__file__).resolve().parents[2] / "benchmarks" / "_figures.py")


def test_a_row_replaces_the_recorded_one_of_its_key_and_a_new_one_is_added_after(tmp_path):
    path = tmp_path / "figures.json"
    assert FIGURES.load(path) == []
    first = [{"cases": 1, "s": 1.0}, {"cases": 10, "s": 2.0}]
    assert FIGURES.record(path, first, ("cases",)) == first
    again = FIGURES.record(path, [{"cases": 100, "s": 3.0}, {"cases": 1, "s": 0.5}], ("cases",))
    assert again == [{"cases": 1, "s": 0.5}, {"cases": 10, "s": 2.0}, {"cases": 100, "s": 3.0}]
    assert json.loads(path.read_text()) == {"rows": again} and FIGURES.load(path) == again


def test_the_loads_are_said_as_one_value_or_a_range():
    assert FIGURES.loads_of([{"load": 0.42}, {"load": 0.38}]) == "0.4"
    assert FIGURES.loads_of([{"load": 1.26}, {"load": 0.31}, {"load": 0.9}]) == "0.3-1.3"
    row = FIGURES.machine()
    assert row["load"] >= 0 and row["cpus"] >= 1
