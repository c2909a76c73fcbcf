"""The viewer's summary bundle carries each criterion's judge calls, tokens and cost, as the
run's summary sums them from its results."""

from __future__ import annotations

from agenteval_viewer._bundle import case_detail, run_summary

from tests.plugins.builtin.reporters.test_judge_cost_reports import recorded


def test_each_criterion_carries_its_judge_tokens_and_cost(tmp_path):
    run = recorded(tmp_path)
    criteria = {c["name"]: c for c in run_summary(run)["criteria"]}
    for item in run.summary().summary.criteria:
        assert criteria[item.criterion]["judge"] == item.judge.model_dump(mode="json")
        assert criteria[item.criterion]["judge_cost"] == item.judge_cost.model_dump(mode="json")
    assert criteria["asks_too"]["judge_cost"]["unpriced"] == ["metered:b"]


def test_the_case_detail_carries_the_cases_judge_tokens(tmp_path):
    run = recorded(tmp_path)
    cases = {case.eval_id: case for _, case in run.case_results()}
    for row in range(len(cases)):
        detail = case_detail(run, row)
        assert detail["judge"] == cases[detail["case_id"]].judge.model_dump(mode="json")
