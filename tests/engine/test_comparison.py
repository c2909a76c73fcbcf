"""The comparison's sides: a run of one run per case is read from its index entries, and
reads exactly as from its records (scores, statuses, never-recorded cases)."""

from __future__ import annotations

import json
from pathlib import Path

import agenteval
from agenteval._comparison import _cases_over_runs, _from_run
from agenteval.models import EvalSet
from agenteval.runs import RecordedRun, list_runs
from agenteval.testing import make_case, make_invocation


def _recorded(runs: Path, n: int = 12) -> RecordedRun:
    """A run where some cases pass and some fail, and one planned case was never recorded
    (the run was interrupted before it)."""
    expected = EvalSet(
        eval_set_id="shop",
        eval_cases=[
            make_case([make_invocation(f"q{i}", f"answer {i}", [("find", {"i": i})])], eval_id=f"c{i:02d}")
            for i in range(n)
        ],
    )
    actual = EvalSet(
        eval_set_id="shop",
        eval_cases=[
            make_case(
                [
                    make_invocation(
                        f"q{i}", "other" if i % 3 else f"answer {i}", [("find", {"i": -i})], form="events"
                    )
                ],
                eval_id=f"c{i:02d}",
            )
            for i in range(n)
        ],
    )
    criteria = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5}
    agenteval.evaluate(expected, actual, criteria, runs_dir=runs)
    (run,) = list_runs(runs)
    manifest = run.folder / "manifest.json"
    document = json.loads(manifest.read_text(encoding="utf-8"))
    document["eval_sets"][0]["case_ids"].append("never_recorded")
    document["state"] = "interrupted"
    manifest.write_text(json.dumps(document), encoding="utf-8")
    return RecordedRun.open(run.folder)


def test_a_one_run_side_from_the_index_equals_the_side_from_the_records(tmp_path):
    run = _recorded(tmp_path / "runs")
    fast = _from_run(run, "A")
    slow = _from_run(RecordedRun.open(run.folder), "A")
    slow.scores.clear()
    slow.statuses.clear()
    _cases_over_runs(RecordedRun.open(run.folder), slow)
    assert fast.scores == slow.scores and fast.statuses == slow.statuses and fast.criteria == slow.criteria
    assert fast.statuses[("shop", "never_recorded")] == {
        "tool_trajectory_avg_score": agenteval.Status.NOT_EVALUATED,
        "response_match_score": agenteval.Status.NOT_EVALUATED,
    }
    assert {s for statuses in fast.statuses.values() for s in statuses.values()} >= {
        agenteval.Status.PASSED,
        agenteval.Status.FAILED,
    }


def test_a_one_run_side_reads_no_record(tmp_path, monkeypatch):
    run = _recorded(tmp_path / "runs")

    def never(*args, **kwargs):
        raise AssertionError("a record was read")

    monkeypatch.setattr(RecordedRun, "records", never)
    monkeypatch.setattr(RecordedRun, "case_results", never)
    assert len(_from_run(RecordedRun.open(run.folder), "A").statuses) == 13
