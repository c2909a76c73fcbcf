"""Tests for ``example_response_length``, through agenteval's public testing helpers only."""

from __future__ import annotations

import agenteval
import pytest
from agenteval.models import EvalSet
from agenteval.testing import check_evaluator, make_case, make_context, make_invocation, registry_for
from agenteval_example_criterion.length import ResponseLength
from pydantic import ValidationError


def test_keeps_the_plugin_contract() -> None:
    check_evaluator(ResponseLength)
    check_evaluator(ResponseLength, params={"max_words": 3, "min_words": 0})


def _score(*responses: str | None, **params: int) -> agenteval.Score:
    evaluator = ResponseLength(ResponseLength.Params(**params))
    return evaluator.evaluate(make_context([make_invocation(response=text) for text in responses]))


def test_scores_each_turn_and_takes_the_mean() -> None:
    score = _score("one two three", "one two three four five six", max_words=5)
    assert score.value == 0.5
    assert [s.score for s in score.per_invocation] == [1.0, 0.0]
    assert [s.details["words"] for s in score.per_invocation] == [3, 6]
    assert score.reason == "1 of 2 responses out of bounds; turn 2 has 6 words (max_words=5)"


def test_bounds_are_inclusive() -> None:
    assert _score("a b", min_words=2, max_words=2).value == 1.0


def test_a_missing_or_empty_response_has_no_words() -> None:
    score = _score(None, "")
    assert score.value == 0.0
    assert score.per_invocation[0].reason == "turn 1 has 0 words (min_words=1)"
    assert _score(None, min_words=0).value == 1.0


def test_no_invocations_is_not_evaluated() -> None:
    score = ResponseLength().evaluate(make_context([]))
    assert score.value is None and score.reason_code == "no_invocations"


def test_params_accept_camel_case_and_reject_an_empty_range() -> None:
    assert ResponseLength.Params.model_validate({"maxWords": 10}).max_words == 10
    with pytest.raises(ValidationError, match="min_words"):
        ResponseLength.Params(min_words=5, max_words=4)


def test_runs_through_the_engine() -> None:
    turns = [make_invocation(response="Sunny, 21 degrees.", invocation_id="t-1")]
    eval_set = EvalSet(eval_set_id="weather", eval_cases=[make_case(turns, eval_id="paris")])
    result = agenteval.evaluate(
        eval_set,
        {"paris": turns},
        {"example_response_length": {"threshold": 1.0, "max_words": 2}},
        registry=registry_for(example_response_length=ResponseLength),
    )
    (case,) = result.cases()
    (outcome,) = case.criteria
    assert outcome.status is agenteval.Status.FAILED
    assert outcome.score == 0.0
    assert outcome.reason == "1 of 1 responses out of bounds; turn 1 has 3 words (max_words=2)"
