"""``RecordedRun.case_scores()``: what ``case_briefs(previews=False)`` says of every planned
case (row, status, each criterion's status and score) without making the briefs, for a
reader that sums up a whole run (the Markdown report)."""

from __future__ import annotations

import pytest
from agenteval.runs import RecordedRun
from runs_tests_reader import _killed, _plan, _recorded  # test_reader.py's (conftest.py)


def _from_briefs(run: RecordedRun) -> list:
    return [
        (b.row, b.status.value, [(c.name, c.status.value, c.score) for c in b.criteria])
        for b in run.case_briefs(previews=False)
    ]


def _scores(run: RecordedRun) -> list:
    return [(row, status, [tuple(c[:3]) for c in criteria]) for row, status, criteria in run.case_scores()]


@pytest.mark.parametrize("runs", [1, 3], ids=["one run", "three runs"])
@pytest.mark.parametrize("kind", ["complete", "interrupted", "killed"])
def test_case_scores_say_what_the_briefs_say(tmp_path, runs, kind):
    run = _recorded(_plan(runs), tmp_path / "runs", None if kind == "complete" else 12)
    if kind == "killed":
        run = _killed(run)
    expected = _from_briefs(RecordedRun.open(run.folder))
    assert kind != "complete" or len({status for _, status, _ in expected}) > 1
    assert len(expected) == sum(len(e.case_ids) for e in run.manifest.eval_sets)
    assert _scores(RecordedRun.open(run.folder)) == expected
