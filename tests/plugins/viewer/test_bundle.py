"""The viewer's data contract (``agenteval_viewer._bundle``) over generated run folders."""

from __future__ import annotations

import json

import agenteval_viewer_test_fixtures as fx
import pytest
from agenteval.plugins import align_trajectory
from agenteval.runs import RecordedRun
from agenteval_viewer import _bundle
from agenteval_viewer._bundle import STATUS_LEGEND, case_detail, case_index, detail_chunks, run_summary, scan


@pytest.fixture(scope="module")
def tiny_index(tiny):
    return case_index(tiny)


def _row(index, case_id):
    return index["case_id"].index(case_id)


def test_the_summary_counts_equal_summary_json_and_the_index(tiny, tiny_index):
    summary = run_summary(tiny)
    written = {s.value: n for s, n in tiny.summary().summary.cases.items()}
    assert summary["counts"] == written
    assert summary["cases"] == tiny_index["n"] == 14 and summary["cases_recorded"] == 13
    decoded = [STATUS_LEGEND[code] for code in tiny_index["status"]]
    assert {s: decoded.count(s) for s in STATUS_LEGEND} == written
    assert summary["verdict"] == "FAIL" and summary["state"] == "interrupted"
    assert summary["judge"]["cache_hits"] == 7 and summary["judge_models"] == ["gemini-2.5-flash"]


def test_each_criterion_has_counts_reasons_a_histogram_and_a_rubric_table(tiny):
    criteria = {c["name"]: c for c in run_summary(tiny)["criteria"]}
    match = criteria[fx.MATCH]
    assert match["errored"] == {"judge_unparseable": 1}
    assert match["not_evaluated"] == {"agent_timeout": 1, "judge_unavailable": 1, "interrupted": 1}
    assert sum(match["histogram"]["counts"]) == match["scored"]
    rubrics = {r["rubric_id"]: r for r in criteria[fx.RUBRIC]["rubrics"]}
    # per judged turn: the three turns of multi_turn, and rubric_failure's one
    assert rubrics["cites_price"]["fails"] == 4 and rubrics["polite"]["never_fails"]
    assert (
        rubrics["no_invention"]["fails"] == 1
        and rubrics["polite"]["total"] == rubrics["cites_price"]["total"] > 4
    )
    assert rubrics["cites_price"]["text"] == "The reply states the total price."
    assert criteria[fx.COUNT]["informational"] and criteria[fx.COUNT]["pass_rate"] is None
    traj = criteria[fx.TRAJ]
    assert traj["pass_rate"] == traj["counts"]["PASSED"] / traj["total"]
    assert traj["eval_sets"][0]["pass_rate"] is None or traj["eval_sets"][0]["pass_rate"]["method"]


def test_the_index_is_columnar_in_plan_order(tiny, tiny_index):
    index = tiny_index
    planned = [c for e in tiny.manifest.eval_sets for c in e.case_ids]
    assert index["case_id"] == planned and index["row"] == list(range(len(planned)))
    n = index["n"]
    for name in index["criteria"]:
        column = index["by_criterion"][name]
        assert len(column["status"]) == len(column["score"]) == n
    assert index["eval_set"][-1] == 1 and index["eval_sets"][1] == "多语言 set"
    timeout = _row(index, "agent_timeout")
    code = index["by_criterion"][fx.RESP]["reason_code"][str(timeout)]
    assert index["reason_codes"][code] == "agent_timeout"
    rubric_row = str(_row(index, "rubric_failure"))
    assert sorted(index["rubrics"][i] for i in index["failed_rubrics"][rubric_row]) == [
        "cites_price",
        "no_invention",
    ]
    assert all(text == text.lower() for text in index["search"])
    assert "paris" in index["search"][_row(index, "weather_paris")]
    never = _row(index, "never_reached")
    assert STATUS_LEGEND[index["status"][never]] == "NOT_EVALUATED"


def test_the_case_detail_aligns_the_trajectory_with_the_engine(tiny, tiny_index):
    detail = case_detail(tiny, _row(tiny_index, "wrong_tools"))
    [turn] = detail["turns"]
    rows = align_trajectory(turn["expected"]["tool_calls"], turn["actual"]["tool_calls"])
    assert turn["trajectory"] == [r.to_json() for r in rows]
    assert {r["op"] for r in turn["trajectory"]} >= {"args_differ", "missing", "extra"}
    assert turn["expected"]["final_response"] == "Booked flight AZ 101 for 240 EUR."
    assert detail["rerun"] == (
        "agenteval run evals/shop.evalset.json:wrong_tools --agent shop_agent.py:respond --report html"
    )
    judge = next(c for c in turn["criteria"] if c["criterion"] == fx.MATCH)
    assert [s["reasoning"] for s in judge["samples"]][0].endswith("not the flight that was asked for.")


def test_the_rubric_by_sample_matrix_and_untrusted_text_are_kept_verbatim(tiny, tiny_index):
    detail = case_detail(tiny, _row(tiny_index, "rubric_failure"))
    rubric = next(c for c in detail["turns"][0]["criteria"] if c["criterion"] == fx.RUBRIC)
    matrix = {r["rubric_id"]: r["samples"] for r in rubric["rubrics"]}
    assert matrix == {"cites_price": ["no", "no", "no"], "polite": ["yes"] * 3, "no_invention": ["no"] * 3}
    assert fx.XSS_SCRIPT in rubric["rubrics"][0]["rationale"]
    xss = case_detail(tiny, _row(tiny_index, fx.XSS_IMG))
    assert xss["case_id"] == fx.XSS_IMG and fx.XSS_SCRIPT in xss["turns"][0]["actual"]["final_response"]
    assert "\u2028" in xss["output"]
    big = case_detail(tiny, _row(tiny_index, "big_reply"))
    assert len(big["turns"][0]["actual"]["final_response"]) == fx.BIG_REPLY_CHARS


def test_errors_interrupted_rows_and_rows_out_of_range(tiny, tiny_index):
    timeout = case_detail(tiny, _row(tiny_index, "agent_timeout"))
    assert timeout["errors"][0]["reason_code"] == "agent_timeout" and "retrying" in timeout["output"]
    broke = case_detail(tiny, _row(tiny_index, "judge_broke"))
    assert broke["errors"] == [
        {
            "source": fx.MATCH,
            "reason_code": "judge_unparseable",
            "type": "JudgeError",
            "message": "the judge's answer could not be parsed",
        }
    ]
    never = case_detail(tiny, _row(tiny_index, "never_reached"))
    assert never["reason_code"] == "interrupted" and never["runs"] == [{"run": 1, "recorded": False}]
    assert case_detail(tiny, tiny_index["n"]) is None and case_detail(tiny, -1) is None
    cjk = case_detail(tiny, _row(tiny_index, "second_set_pass"))
    assert cjk["rerun"].startswith("agenteval run 'evals/multi lingual.evalset.json:second_set_pass'")


def test_a_repeated_run_shows_each_run(tmp_path):
    run = fx.repeated_run(tmp_path)
    detail = case_detail(run, 0)
    assert [r["run"] for r in detail["runs"]] == [1, 2, 3]
    response = next(c for c in detail["criteria"] if c["name"] == fx.RESP)
    assert [r["score"] for r in response["runs"]] == [1.0, 0.9, 0.3]
    assert response["verdict"]["basis"] == "runs" and response["verdict"]["interval"] is not None
    assert detail["runs"][1]["final_responses"] == ["Hello there"]


def test_detail_chunks_group_rows_by_thousand(tiny):
    chunks = list(detail_chunks(tiny, [13, 0, 2, 2], size=2))
    assert [(k, sorted(d)) for k, d in chunks] == [(0, ["0"]), (1, ["2"]), (6, ["13"])]


def test_the_index_stays_small_per_case(tmp_path):
    run = fx.synthetic_run(tmp_path, 1000, summary=False)
    scanned = scan(run)
    index = case_index(run, scanned)
    size = len(json.dumps(index, separators=(",", ":"), ensure_ascii=False).encode())
    search = len(json.dumps(index["search"], ensure_ascii=False).encode())
    print(f"index: {size / 1000:.0f} bytes per case, {(size - search) / 1000:.0f} without the search text")
    assert (size - search) / 1000 <= 60
    assert run_summary(run, scanned)["cases"] == 1000


def test_row_of_walks_the_plan(tiny):
    assert _bundle.row_of(tiny, 13)[1] == "second_set_pass"
    assert _bundle.row_of(tiny, 12)[1] == "never_reached"


def _slow_scan(run):
    """The scan of the briefs made from every case's records (not from the index)."""
    from agenteval.runs._briefs import brief_from_result

    slow = _bundle.Scan(run)
    slow.add_briefs(
        brief_from_result(entry, row, run.case_result(entry, case_id, records), records)
        for row, (entry, case_id, records) in enumerate(run.case_records())
    )
    return slow.finish()


def test_the_index_entry_scan_agrees_with_the_engines_reader(tiny):
    fast = scan(tiny)
    slow = _slow_scan(tiny)
    assert case_index(tiny, fast) == case_index(tiny, slow)
    assert run_summary(tiny, fast) == run_summary(tiny, slow)


def test_the_scan_is_the_same_without_the_engines_index_and_whatever_the_write_order(tmp_path):
    run = fx.tiny_run(tmp_path / "runs")
    with_index = case_index(run, scan(run)), run_summary(run)
    results = run.folder / "results.jsonl"
    (run.folder / "index.jsonl").unlink()
    lines = results.read_bytes().splitlines(keepends=True)
    results.write_bytes(b"".join(reversed(lines)))  # as concurrent cases may finish
    reread = RecordedRun.open(run.folder)
    assert (case_index(reread, scan(reread)), run_summary(reread)) == with_index
    assert case_index(reread, scan(reread)) == case_index(reread, _slow_scan(reread))


def test_a_run_still_going_is_running_and_its_unscored_cases_pending(tmp_path):
    import fcntl

    run = fx.tiny_run(tmp_path / "runs")
    fx.mark_running(run)
    with open(run.folder / ".lock", "a", encoding="utf-8") as lock:  # as the writing process holds it
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        live = RecordedRun.open(run.folder)
        index = case_index(live)
        row = index["case_id"].index("never_reached")
        assert run_summary(live)["verdict"] == "RUNNING"
        assert case_detail(live, row)["reason_code"] == "pending"
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    dead = RecordedRun.open(run.folder)  # the same manifest, no live writer: a killed run
    assert run_summary(dead)["verdict"] == "FAIL"
    assert case_detail(dead, row)["reason_code"] == "interrupted"


def test_a_case_recorded_again_counts_once_with_its_last_record(tmp_path):
    from agenteval import Status
    from agenteval.runs import RunWriter

    run = fx.tiny_run(tmp_path / "runs")
    first = next(r for r in run.records() if r.status is Status.FAILED)
    again = first.model_copy(
        update={
            "status": Status.PASSED,
            "criteria": [
                c.model_copy(
                    update={"status": Status.PASSED, "score": 1.0, "reason_code": None, "verdict": None}
                )
                for c in first.criteria
            ],
        }
    )
    failed_before = run_summary(run)["counts"]["FAILED"]
    writer = RunWriter.reopen(run.folder, run.manifest)
    writer.append(again)
    writer.close()
    reread = RecordedRun.open(run.folder)
    fast = scan(reread)
    assert case_index(reread, fast) == case_index(reread, _slow_scan(reread))
    assert run_summary(reread, fast) == run_summary(reread, _slow_scan(reread))
    row = fast.case_id.index(first.case_id)
    assert fast.status[row] == 0 and fast.counts["FAILED"] == failed_before - 1


def _same_rows(head, whole, rows):
    for row in rows:
        assert head["case_id"][row] == whole["case_id"][row]
        assert head["status"][row] == whole["status"][row]
        assert head["search"][row] == whole["search"][row]
        for name, column in head["by_criterion"].items():
            assert column["status"][row] == whole["by_criterion"][name]["status"][row]
            assert column["score"][row] == whole["by_criterion"][name]["score"][row]
            assert _reason(head, name, row) == _reason(whole, name, row)


def _reason(index, criterion, row):
    """A row's reason code for a criterion, decoded (each payload has its own legend)."""
    code = index["by_criterion"][criterion]["reason_code"].get(str(row))
    return None if code is None else index["reason_codes"][code]


def test_the_head_index_is_the_first_rows_of_the_whole_one_and_unread_rows_have_no_status(tiny):
    from agenteval_viewer._bundle import head_index

    whole = case_index(tiny)
    head = head_index(tiny, rows=13)
    assert head["partial"] is True and head["total"] == whole["n"] and head["n"] == 13
    never = whole["case_id"].index("never_reached")
    assert never < 13 and head["status"][never] is None  # not read: no status, not NOT_EVALUATED
    assert whole["status"][never] == STATUS_LEGEND.index("NOT_EVALUATED")
    _same_rows(head, whole, [row for row in range(13) if row != never])


def test_a_run_of_several_runs_per_case_has_a_head_of_its_first_cases_combined(tmp_path):
    from agenteval_viewer._bundle import head_index

    run = fx.repeated_run(tmp_path / "runs")
    whole = case_index(run)
    head = head_index(run, rows=1)
    assert head["partial"] is True and head["total"] == whole["n"] == 2 and head["n"] == 1
    _same_rows(head, whole, [0])
    assert head_index(run)["status"] == whole["status"]  # every row read: each one's status


def test_a_run_of_several_runs_per_case_without_a_summary_has_no_head(tmp_path):
    """Still going or killed: each case would be combined from its records (the whole
    index's cost), so the viewer waits for the whole index instead."""
    from agenteval_viewer._bundle import head_index

    spec = fx.EvalSetSpec(
        "rep", "evals/rep.evalset.json", [fx.Case("c", [fx.Turn("Hi", "Yo", "Yo", [], [])], {})]
    )
    run = fx.write_run(
        tmp_path / "runs", [spec], run_id="20261121T100000000000Z-rep002", num_runs=3, summary=False
    )
    assert head_index(run) is None
