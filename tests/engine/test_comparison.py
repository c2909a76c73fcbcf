"""The comparison's sides: a run of one run per case is read from its index entries, and
reads exactly as from its records (scores, statuses, never-recorded cases)."""

from __future__ import annotations

import agenteval
from agenteval.runs import RecordedRun
from agenteval.runs._comparison import Side, _from_run


def _from_records(run: RecordedRun, criteria: dict) -> Side:
    """A side read the slow way: every record's scores, every case's combined statuses."""
    side = Side(label="A", source=f"run {run.run_id}", criteria=criteria)
    for record in run.records():
        key = (record.eval_set_id, record.case_id)
        for result in record.criteria:
            side.scores.setdefault(key, {}).setdefault(result.criterion, []).append(result.score)
    for entry, case in run.case_results():
        side.statuses[(entry.eval_set_id, case.eval_id)] = {r.criterion: r.status for r in case.criteria}
    return side


def test_a_one_run_side_from_the_index_equals_the_side_from_the_records(tmp_path, interrupted_run):
    run = interrupted_run(tmp_path / "runs", n=12)
    fast = _from_run(run, "A")
    slow = _from_records(RecordedRun.open(run.folder), fast.criteria)
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
