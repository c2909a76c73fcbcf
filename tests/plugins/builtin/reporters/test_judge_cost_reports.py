"""The judge cost in the Markdown and JUnit reports: each criterion's judge tokens and cost
(unpriced models named), each case's judge tokens, and the judge budget's INCONCLUSIVE
results, from a run with a judge that reports known token counts."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

from agenteval._api import run_sync
from agenteval._reporting import resolve_reporters
from agenteval._run._session import open_run
from agenteval.plugins import ReportContext
from agenteval.runs import RecordedRun

from tests.engine.run.test_judge_cost import _eval_set, _judge, _plan


def recorded(tmp_path, criteria=None, **judge_options) -> RecordedRun:
    judge = _judge(concurrency=1, **judge_options)
    run = open_run(
        _plan(_eval_set(3), judge, criteria=criteria), runs_dir=tmp_path, argv=["test"], judge=judge
    )
    run_sync(run.execute())
    return RecordedRun.open(run.writer.folder)


def _write(run: RecordedRun, name: str):
    context = ReportContext(run=run, folder=run.folder, stream=io.StringIO(), environ={})
    [klass] = resolve_reporters([name]).values()
    [path] = klass().write(context)
    return path


def test_markdown_gives_each_criterions_judge_tokens_and_cost(tmp_path):
    run = recorded(tmp_path)
    by_name = {c.criterion: c for c in run.summary().summary.criteria}
    text = _write(run, "markdown").read_text(encoding="utf-8")
    assert "| criterion | mean | passed | judge tokens (in + out) | judge cost |" in text
    asks, too = by_name["asks"], by_name["asks_too"]
    assert (
        f"| `asks` | 1.000 | 3/3 | {asks.judge.input_tokens:,} + {asks.judge.output_tokens:,} "
        f"({asks.judge.calls} call(s), 0 cached) | {asks.judge_cost.total:,.4f} |"
    ) in text
    assert f"| `asks_too` | 1.000 | 3/3 | {too.judge.input_tokens:,} + " in text
    assert "| 0.0000 (no price for metered:b) |" in text  # never costed 0 silently


def test_junit_carries_each_cases_and_each_criterions_judge_tokens(tmp_path):
    run = recorded(tmp_path)
    root = ET.parse(_write(run, "junit")).getroot()
    [suite] = root.findall("testsuite")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    results = {case.eval_id: case for _, case in run.case_results()}
    for name, element in cases.items():
        properties = {p.get("name"): int(p.get("value")) for p in element.find("properties")}
        judge = results[name].judge
        assert properties == {
            "judge.calls": judge.calls,
            "judge.cache_hits": 0,
            "judge.input_tokens": judge.input_tokens,
            "judge.output_tokens": judge.output_tokens,
        }
    suite_properties = {p.get("name"): p.get("value") for p in suite.find("properties")}
    for item in run.summary().summary.criteria:
        assert (
            int(suite_properties[f"criterion.{item.criterion}.judge_input_tokens"]) == item.judge.input_tokens
        )
        assert (
            int(suite_properties[f"criterion.{item.criterion}.judge_output_tokens"])
            == item.judge.output_tokens
        )


def test_markdown_counts_what_the_judge_budget_left_inconclusive(tmp_path):
    run = recorded(tmp_path, criteria={"asks": {"threshold": 0.5}}, budget=3)
    text = _write(run, "markdown").read_text(encoding="utf-8")
    assert "Judge call budget: 3 of 3 used, 3 call(s) refused." in text
    unjudged = run.summary().summary.budget.inconclusive
    # three cases of two turns, three calls: whichever turns got them, some case is not judged whole
    assert unjudged == sum(c.criteria[0].reason_code == "judge_budget" for _, c in run.case_results()) > 0
    assert f"Judge budget spent: {unjudged} criterion result(s) not judged, each INCONCLUSIVE" in text
