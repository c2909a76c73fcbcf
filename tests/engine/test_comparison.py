"""The comparison's sides: a run of one run per case is read from its index entries, and
reads exactly as from its records (scores, statuses, never-recorded cases)."""

from __future__ import annotations

import agenteval
from agenteval._comparison import _cases_over_runs, _from_run
from agenteval.runs import RecordedRun


def test_a_one_run_side_from_the_index_equals_the_side_from_the_records(tmp_path, interrupted_run):
    run = interrupted_run(tmp_path / "runs", n=12)
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


def test_a_one_run_side_reads_no_record(tmp_path, monkeypatch, interrupted_run):
    run = interrupted_run(tmp_path / "runs", n=12)

    def never(*args, **kwargs):
        raise AssertionError("a record was read")

    monkeypatch.setattr(RecordedRun, "records", never)
    monkeypatch.setattr(RecordedRun, "case_results", never)
    assert len(_from_run(RecordedRun.open(run.folder), "A").statuses) == 13
