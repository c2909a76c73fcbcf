"""A one-run case's result: what the run makes of its record at less cost is what the readers'
rule (``case_from_records``) makes."""

from __future__ import annotations

import pytest
from agenteval import CriterionResult, PluginInfo, Status
from agenteval._results import AgentRunRecord, JudgeActivity, VerdictInfo
from agenteval._run._unit import one_run_case
from agenteval.models import Content, Invocation
from agenteval.runs import CaseRecord, CriterionEntry, EvalSetEntry
from agenteval.runs._reader import case_from_records


def _turn(text: str = "hi") -> Invocation:
    return Invocation(
        invocation_id="t",
        user_content=Content.from_text(text),
        final_response=Content.from_text("ok", "model"),
    )


def _same(made, validated) -> None:
    assert made == validated
    assert made.model_fields_set == validated.model_fields_set
    assert made.model_dump_json(by_alias=True) == validated.model_dump_json(by_alias=True)


def _entry(names=("a", "b")) -> EvalSetEntry:
    return EvalSetEntry(
        index=0,
        eval_set_id="s",
        case_ids=["c"],
        criteria=[
            CriterionEntry(name=n, distribution="d", version="1", entry_point="m:C", threshold=0.5)
            for n in names
        ],
    )


def _record(results, origin="recorded", actual=None) -> CaseRecord:
    return CaseRecord(
        run_id="r",
        eval_set_index=0,
        eval_set_id="s",
        case_id="c",
        status=Status.PASSED,
        criteria=results,
        origin=origin,
        actual=actual,
    )


def _result(name, score, status, **more) -> CriterionResult:
    plugin = PluginInfo(distribution="d", version="1", entry_point="m:C")
    return CriterionResult(criterion=name, threshold=0.5, score=score, status=status, plugin=plugin, **more)


CASES = {
    "passed and failed": [_result("a", 1.0, Status.PASSED), _result("b", 0.0, Status.FAILED)],
    "with verdicts": [
        _result(
            "a", 1.0, Status.PASSED, verdict=VerdictInfo(verdict="PASS", basis="single-run", reason="one run")
        ),
        _result("b", None, Status.ERRORED, reason="boom"),
    ],
    "judged": [
        _result("a", 1.0, Status.PASSED, judge=JudgeActivity(calls=2, input_tokens=5, output_tokens=1)),
        _result("b", None, Status.INFORMATIONAL, judge=JudgeActivity(calls=1)),
    ],
    "informational": [_result("a", 0.3, Status.INFORMATIONAL), _result("b", 0.3, Status.INFORMATIONAL)],
}


@pytest.mark.parametrize("confidence", [0.95, None])
@pytest.mark.parametrize("origin", ["recorded", "agent"])
@pytest.mark.parametrize("name", list(CASES))
def test_a_one_run_case_is_the_readers_result(name, origin, confidence):
    actual = AgentRunRecord(run=1, invocations=[_turn()])
    kept = _record(CASES[name], origin=origin, actual=actual)
    made = one_run_case(_entry(), "c", kept, confidence)
    _same(made, case_from_records(_entry(), "c", [kept], confidence, run_id="r"))
