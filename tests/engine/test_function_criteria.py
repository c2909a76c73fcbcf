"""``agenteval.function_criterion``: a scoring function as a full ``Evaluator`` class."""

from __future__ import annotations

import asyncio

import agenteval
import pytest
from agenteval import Evaluator, InvocationScore, Score
from agenteval._function_criteria import as_score, signature_problem
from agenteval.testing import check_evaluator, make_case, make_context, make_invocation, registry_for
from hypothesis import given
from hypothesis import strategies as st


@agenteval.function_criterion(threshold=0.5)
def short_answers(actual, expected, *, max_words: int = 5):
    """1.0 for each turn whose final response has at most max_words words."""
    return [(float(len(inv.final_text().split()) <= max_words), None) for inv in actual]


def _ctx(*responses: str, expected=None):
    return make_context([make_invocation(response=r) for r in responses], expected=expected)


def test_the_decorator_makes_an_evaluator_class_that_keeps_the_contract():
    assert issubclass(short_answers, Evaluator)
    assert short_answers.info.default_threshold == 0.5
    assert (
        short_answers.info.description
        == "1.0 for each turn whose final response has at most max_words words."
    )
    check_evaluator(short_answers)
    check_evaluator(short_answers, params={"max_words": 1})


def test_keyword_only_parameters_are_the_params_model():
    schema = short_answers.Params.model_json_schema(by_alias=False)
    assert schema["properties"]["max_words"]["default"] == 5
    evaluator = short_answers(short_answers.Params(max_words=1))
    assert evaluator.evaluate(_ctx("one", "one two")).value == 0.5
    with pytest.raises(ValueError):
        short_answers.Params(max_words="many")


def test_the_original_function_stays_callable():
    assert short_answers.function([make_invocation(response="a")], None) == [(1.0, None)]


def test_bare_decorator_and_defaults():
    @agenteval.function_criterion
    def anything(actual):
        return 1

    assert anything.info.default_threshold is None and anything.info.min_score == 0.0
    assert anything.info.description == "anything (a function criterion)"
    assert anything().evaluate(_ctx("x")).value == 1.0


def test_arguments_are_given_by_position_as_many_as_the_function_takes():
    seen = {}

    @agenteval.function_criterion
    def three(a, e, c):
        seen.update(a=a, e=e, c=c)
        return 1.0

    ctx = _ctx("x")
    three().evaluate(ctx)
    assert seen == {"a": ctx.actual, "e": ctx.expected, "c": ctx.case}

    @agenteval.function_criterion
    def variadic(*args):
        return float(len(args) == 3)

    assert variadic().evaluate(ctx).value == 1.0


def test_async_functions_make_async_evaluators():
    @agenteval.function_criterion(threshold=1.0)
    async def slow(actual):
        await asyncio.sleep(0)
        return 1.0, "fine"

    outcome = slow().evaluate(_ctx("x"))
    score = asyncio.run(outcome)
    assert score.value == 1.0 and score.reason == "fine"
    check_evaluator(slow)


@pytest.mark.parametrize(
    ("returned", "value", "reason", "code"),
    [
        (0.25, 0.25, None, None),
        (1, 1.0, None, None),
        (True, 1.0, None, None),
        ((0.5, "half"), 0.5, "half", None),
        (None, None, "the criterion function returned no score (None)", "no_score"),
        ((None, "no reference"), None, "no reference", "no_score"),
        (Score(value=0.3, reason="given"), 0.3, "given", None),
    ],
)
def test_every_documented_return_form(returned, value, reason, code):
    score = as_score(returned)
    assert (score.value, score.reason, score.reason_code) == (value, reason, code)


def test_lists_are_per_invocation_scores_averaged_as_adk_does():
    score = as_score([1.0, (0.0, "too long"), None, InvocationScore(score=0.5)])
    assert score.value == pytest.approx(0.5)
    assert [s.score for s in score.per_invocation] == [1.0, 0.0, None, 0.5]
    assert score.per_invocation[1].reason == "too long" and score.per_invocation[2].reason_code == "no_score"


@pytest.mark.parametrize("returned", ["0.5", {"score": 1}, (1, 2), (1, "a", "b"), [object()]])
def test_other_returns_are_type_errors_naming_the_forms(returned):
    with pytest.raises(TypeError) as info:
        as_score(returned)
    assert "score" in str(info.value)


@given(st.lists(st.one_of(st.none(), st.floats(0, 1)), max_size=8))
def test_a_list_scores_the_mean_of_its_scored_entries(values):
    score = as_score(list(values))
    scored = [v for v in values if v is not None]
    if scored:
        assert score.value == pytest.approx(sum(scored) / len(scored))
    else:
        assert score.value is None and score.reason_code in {"no_invocations", "no_scored_invocations"}
    assert len(score.per_invocation) == len(values)


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("def f():\n    return 1\n", "takes no positional parameter"),
        ("def f(a, b, c, d):\n    return 1\n", "requires 4 positional parameters"),
    ],
)
def test_signatures_that_cannot_be_called_are_refused(source, problem):
    namespace: dict = {}
    exec(source, namespace)
    assert problem in signature_problem(namespace["f"])
    with pytest.raises(TypeError, match=problem):
        agenteval.function_criterion(namespace["f"])


def test_decorating_a_class_is_refused():
    with pytest.raises(TypeError, match="decorates a function"):
        agenteval.function_criterion(int)


def test_through_the_whole_engine_with_thresholds():
    case = make_case([make_invocation(response="one two three")], eval_id="c")
    eval_set = agenteval.models.EvalSet(eval_set_id="s", eval_cases=[case])
    turns = {"c": [make_invocation(response="one two three")]}
    result = agenteval.evaluate(
        eval_set,
        turns,
        {"short_answers": {"max_words": 2}},
        registry=registry_for(short_answers=short_answers),
    )
    [criterion] = result.eval_sets[0].cases[0].criteria
    assert criterion.status.value == "FAILED" and criterion.threshold == 0.5


def test_exported_lazily_from_the_package():
    assert "function_criterion" in agenteval.__all__
