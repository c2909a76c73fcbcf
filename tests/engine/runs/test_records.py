"""A record's line (``record_line``): the turns leave their unset fields out, and the line
reads back as the same record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agenteval import CriterionResult, PluginInfo, Status
from agenteval._results import AgentRunRecord, ErrorInfo
from agenteval.models import EvalSet
from agenteval.runs import CaseRecord
from agenteval.runs._records import record_line
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fixtures.eval_file_edits import mutated

DICE = Path(__file__).resolve().parents[2] / "fixtures" / "evalsets" / "dice.evalset.json"


_ERROR = ErrorInfo(type="E", message="m", traceback="t")


def _record(expected: Any, actual: Any, **fields: Any) -> CaseRecord:
    result = CriterionResult(
        criterion="exact",
        threshold=0.5,
        score=None,  # a required field whose value is None: written, as every field around the turns
        status=Status.NOT_EVALUATED,
        reason_code="no_score",
        details={"kept": None},
        plugin=PluginInfo(distribution="d", version="1", entry_point="m:C"),
    )
    return CaseRecord(
        run_id="r",
        eval_set_index=0,
        eval_set_id="s",
        case_id="c",
        status=result.status,
        scores={"exact": None},
        statuses={"exact": result.status},
        criteria=[result],
        expected=expected,
        actual=actual,
        **fields,
    )


def _model_nulls(data: Any, inside_plain: bool = False) -> list[str]:
    """Keys of JSON objects whose value is null, outside plain JSON values (tool arguments and
    responses, which keep theirs)."""
    found = []
    if isinstance(data, dict):
        for key, value in data.items():
            if value is None and not inside_plain:
                found.append(key)
            plain = inside_plain or key in ("args", "response", "kept")
            found.extend(_model_nulls(value, plain))
    elif isinstance(data, list):
        for value in data:
            found.extend(_model_nulls(value, inside_plain))
    return found


def test_the_turns_leave_unset_fields_out_and_the_line_reads_back_the_same():
    cases = EvalSet.model_validate_json(DICE.read_bytes()).eval_cases
    turns = list(cases[0].conversation or ())
    assert turns
    actual = AgentRunRecord(run=1, invocations=turns, error_code="agent_error", error=_ERROR)
    record = _record(turns, actual, reason="why", origin="agent")
    line = record_line(record)
    assert line.endswith(b"}\n") and b"\n" not in line[:-1]
    data = json.loads(line)
    # the fields in the model's order; around the turns, every field (nulls too)
    assert list(data) == [CaseRecord.model_fields[name].alias or name for name in CaseRecord.model_fields]
    assert data["eval_set_file"] is None and data["criteria"][0]["score"] is None
    assert data["criteria"][0]["details"] == {"kept": None}
    assert _model_nulls(data["expected"]) == [] and _model_nulls(data["actual"]) == []
    assert len(line) < len(record.model_dump_json(by_alias=True))
    assert CaseRecord.model_validate_json(line) == record


def test_a_record_without_turns_has_no_turn_keys_and_reads_back_the_same():
    record = _record(None, None)
    data = json.loads(record_line(record))
    assert "expected" not in data and "actual" not in data
    assert list(data)[-2:] == ["origin", "error"] and data["error"] is None
    assert CaseRecord.model_validate_json(record_line(record)) == record


def test_a_value_the_fast_encoder_refuses_writes_the_whole_record_as_before():
    odd = _record(None, AgentRunRecord(run=1, output="bad \ud800 text"))
    line = record_line(odd)
    assert b"\\ud800" in line and b'"expected":null' in line


@settings(max_examples=150, deadline=None)
@given(mutated(), st.booleans())
def test_any_turns_an_eval_file_holds_read_back_from_their_line(data, with_error):
    """Whatever turns a (valid, edited) eval file gives, as expected and as actual turns."""
    try:
        eval_set = EvalSet.model_validate(data)
    except ValueError:
        return
    for case in eval_set.eval_cases:
        turns = list(case.conversation or ())
        error = _ERROR if with_error else None
        record = _record(turns or None, AgentRunRecord(run=1, invocations=turns, error=error))
        assert CaseRecord.model_validate_json(record_line(record)) == record


@pytest.mark.parametrize("origin", ["agent", "recorded"])
def test_origin_and_error_follow_the_turns(origin):
    record = _record([], AgentRunRecord(run=1), origin=origin, error=_ERROR)
    data = json.loads(record_line(record))
    assert list(data)[-4:] == ["expected", "actual", "origin", "error"] and data["origin"] == origin
