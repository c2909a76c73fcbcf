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


def test_a_run_compared_with_itself_is_read_once_and_compares_as_two_reads(
    tmp_path, monkeypatch, interrupted_run
):
    from agenteval.runs import _comparison
    from agenteval.runs._comparison import compare_sides, load_side, load_sides

    run = interrupted_run(tmp_path / "runs", n=12)
    twice = compare_sides(
        load_side(str(run.folder), tmp_path, "A"), load_side(str(run.folder), tmp_path, "B")
    )
    reads = []
    real = _comparison._from_run
    monkeypatch.setattr(_comparison, "_from_run", lambda *args: reads.append(args) or real(*args))
    a, b = load_sides(str(run.folder), str(run.folder / ".." / run.folder.name), tmp_path)
    assert len(reads) == 1 and (a.label, b.label) == ("A", "B") and a.scores == b.scores
    assert compare_sides(a, b).to_json() == twice.to_json()
    load_sides(str(run.folder), str(interrupted_run(tmp_path / "other", n=12).folder), tmp_path)
    assert len(reads) == 3  # two runs: two reads


def test_flips_without_a_testable_case_keep_their_deltas_and_no_flag(interrupted_run, tmp_path):
    """One run a side: no case can be flagged, so only the flipped cases are measured; each
    flip still shows its delta and no flag, as when every case was passed to the test."""
    from agenteval._results import Status
    from agenteval.runs._comparison import _from_run, compare_sides

    a = _from_run(interrupted_run(tmp_path / "runs", n=12), "A")
    b = _from_run(RecordedRun.open(next((tmp_path / "runs").iterdir())), "B")
    key = ("shop", "c01")
    b.scores[key] = {name: [1.0 - (scores[0] or 0.0)] for name, scores in a.scores[key].items()}
    b.statuses[key] = {
        name: Status.PASSED if status is not Status.PASSED else Status.FAILED
        for name, status in a.statuses[key].items()
    }
    flips = compare_sides(a, b).flips
    assert {(f.case_id, f.criterion) for f in flips} == {(key[1], name) for name in a.statuses[key]}
    for flip in flips:
        before = a.scores[key][flip.criterion][0]
        assert flip.delta == (1.0 - before) - before and flip.flagged is None and flip.q_value is None


def test_sides_of_the_same_cases_in_another_order_compare_as_in_the_same_order(tmp_path, interrupted_run):
    from agenteval.runs._comparison import compare_sides, load_side

    run = interrupted_run(tmp_path / "runs", n=12)
    a, b = load_side(str(run.folder), tmp_path, "A"), load_side(str(run.folder), tmp_path, "B")
    b.scores[next(iter(b.scores))] = {name: [0.0] for name in b.criteria}  # a flip to show
    shuffled = Side(
        label=b.label,
        source=b.source,
        scores=dict(reversed(b.scores.items())),
        statuses=dict(reversed(b.statuses.items())),
        criteria=b.criteria,
    )
    assert compare_sides(a, shuffled).to_json() == compare_sides(a, b).to_json()
