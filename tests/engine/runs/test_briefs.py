"""``RecordedRun.case_briefs``: every planned case typed, from the index as from the records,
with the never-recorded, point-verdict and rubric-failed rules applied in one place."""

from __future__ import annotations

import pytest
from agenteval import Status
from agenteval.runs import CaseBrief, RecordedRun, RubricBrief, RunWriter, not_reached, rubric_failed
from agenteval.runs._briefs import brief_from_result
from hypothesis import given
from hypothesis import strategies as st
from runs_tests_index import CASES, _manifest, _record  # test_index.py's (conftest.py)


def _from_records(run: RecordedRun) -> list[CaseBrief]:
    return [
        brief_from_result(entry, row, run.case_result(entry, case_id, records), records)
        for row, (entry, case_id, records) in enumerate(run.case_records())
    ]


def test_the_briefs_from_the_index_equal_the_briefs_from_the_records(tmp_path, interrupted_run):
    run = interrupted_run(tmp_path / "runs", n=12)
    briefs = sorted(run.case_briefs(), key=lambda brief: brief.row)
    assert briefs == _from_records(RecordedRun.open(run.folder))
    assert [b.row for b in briefs] == list(range(13))
    assert {b.status for b in briefs} >= {Status.PASSED, Status.FAILED, Status.NOT_EVALUATED}
    assert all(b.user.startswith("q") for b in briefs if b.recorded)


def test_a_case_never_recorded_is_not_evaluated_interrupted_and_unreached(tmp_path, interrupted_run):
    run = interrupted_run(tmp_path / "runs", n=3)
    [never] = [b for b in run.case_briefs() if not b.recorded]
    assert never.case_id == "never_recorded" and never.row == 3 and never.status is Status.NOT_EVALUATED
    assert {(c.status, c.reason_code, c.verdict) for c in never.criteria} == {
        (Status.NOT_EVALUATED, "interrupted", "NOT_EVALUATED")
    }
    assert never.unreached and never.inconclusive == 0 and never.user == ""
    assert not any(b.unreached for b in run.case_briefs() if b.recorded)


def test_a_result_without_a_verdict_has_its_point_verdict_when_the_run_has_statistics(tmp_path):
    writer = RunWriter.create(tmp_path, _manifest())
    for case, score in zip(CASES[:2], (1.0, 0.0), strict=True):
        record = _record(writer.run_id, case, score=score)
        record.criteria[0] = record.criteria[0].model_copy(update={"verdict": None})  # an older record
        writer.append(record)
    writer.close()
    run = RecordedRun.open(writer.folder)
    verdicts = {b.case_id: b.criteria[0].verdict for b in run.case_briefs()}
    assert verdicts == {"case-0": "PASS", "case-1": "FAIL", **dict.fromkeys(CASES[2:], "NOT_EVALUATED")}
    run.manifest.confidence = None  # --no-stats: no tri-state verdicts at all
    assert {b.criteria[0].verdict for b in run.case_briefs()} == {None}


def test_rubric_outcomes_are_typed_and_failed_by_one_rule(tmp_path):
    writer = RunWriter.create(tmp_path, _manifest())
    writer.append(_record(writer.run_id, "case-0", score=1.0))
    writer.append(_record(writer.run_id, "case-1", score=0.0))
    writer.close()
    briefs = {b.case_id: b for b in RecordedRun.open(writer.folder).case_briefs()}
    assert briefs["case-0"].criteria[0].rubrics == (RubricBrief("r1", 1.0, "yes"),)
    assert briefs["case-0"].criteria[0].failed_rubrics == []
    assert briefs["case-1"].criteria[0].failed_rubrics == ["r1"]
    assert briefs["case-1"].rubric_texts == {"r1": "text of r1"}


@pytest.mark.parametrize(
    ("score", "verdict", "failed"),
    [(0.0, "yes", True), (0, None, True), (None, "no", True), (0.5, "FAIL", True), (1.0, "False", True)]
    + [(1.0, "yes", False), (None, None, False), (0.5, "partly", False)],
)
def test_a_rubric_fails_on_a_zero_score_or_a_verdict_that_says_no(score, verdict, failed):
    assert rubric_failed(score, verdict) is failed


_CODES = st.sampled_from([None, "interrupted", "pending", "x"])


@given(st.lists(st.tuples(st.sampled_from(list(Status)), _CODES)))
def test_a_case_is_unreached_only_when_every_problem_is_a_run_that_never_came(criteria):
    problems = [code for status, code in criteria if not status.ok]
    expected = bool(problems) and set(problems) <= {"interrupted", "pending"}
    assert not_reached(criteria) is expected
