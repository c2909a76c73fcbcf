"""``built``: the model ``model_construct`` makes (same values, defaults, fields set), without
its per-field alias lookups; the run's records and evaluator contexts are made with it."""

from __future__ import annotations

from typing import Any, Optional

import pytest
from agenteval import EvaluationContext, Status
from agenteval._run._built import built
from agenteval.models import EvalCase
from agenteval.runs import RECORD_SCHEMA, CaseRecord
from agenteval.testing import make_case, make_invocation
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr


class _Defaults(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    mutable: list[int] = [1, 2]
    made: dict[str, Any] = Field(default_factory=dict)
    plain: Optional[float] = None
    text: str = "x"


def _same(made: BaseModel, expected: BaseModel) -> None:
    assert type(made) is type(expected)
    assert made.__dict__ == expected.__dict__
    assert list(made.__dict__) == list(expected.__dict__)
    assert made.model_fields_set == expected.model_fields_set
    assert made.__pydantic_extra__ == expected.__pydantic_extra__
    assert made.__pydantic_private__ == expected.__pydantic_private__
    assert made.model_dump_json(by_alias=True) == expected.model_dump_json(by_alias=True)


def test_defaults_are_filled_as_model_construct_fills_them():
    made = built(_Defaults, {"name": "a", "plain": 1.5})
    _same(made, _Defaults.model_construct(name="a", plain=1.5))
    assert made.model_fields_set == {"name", "plain"}


def test_a_mutable_default_is_a_copy_per_model():
    first, second = built(_Defaults, {"name": "a"}), built(_Defaults, {"name": "b"})
    assert first.mutable == [1, 2] and first.mutable is not second.mutable
    assert first.made is not second.made


def _case() -> EvalCase:
    return make_case([make_invocation("q", "a", tool_calls=[("lookup", {"id": 1})])], eval_id="c1")


def test_a_case_record_is_the_one_model_construct_and_validation_make():
    case = _case()
    values = {
        "schema_": RECORD_SCHEMA,
        "run_id": "r",
        "eval_set_index": 0,
        "eval_set_id": "s",
        "eval_set_file": None,
        "case_id": "c1",
        "run_index": 1,
        "status": Status.PASSED,
        "reason": None,
        "reason_code": None,
        "duration_s": 0.25,
        "scores": {},
        "statuses": {},
        "criteria": [],
        "expected": list(case.conversation or ()),
        "actual": None,
        "origin": "recorded",
    }
    made = built(CaseRecord, values)
    _same(made, CaseRecord.model_construct(**values))
    # and what it writes is what reading it back and writing it again gives
    assert CaseRecord.model_validate_json(made.dump()).dump() == made.dump()


def test_an_evaluation_context_is_the_one_model_construct_makes():
    case = _case()
    values = {
        "case": case,
        "actual": case.conversation,
        "expected": case.conversation,
        "threshold": 1.0,
        "judge": None,
        "history": [],
    }
    _same(built(EvaluationContext, values), EvaluationContext.model_construct(**values))


class _Private(BaseModel):
    name: str
    _kept: int = PrivateAttr(default=0)


class _Extra(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str


class _TakesData(BaseModel):
    name: str
    copied: str = Field(default_factory=lambda data: data["name"])


@pytest.mark.parametrize("model", [_Private, _Extra, _TakesData])
def test_models_that_need_model_construct_are_refused(model):
    with pytest.raises(TypeError, match="model_construct"):
        built(model, {"name": "a"})
