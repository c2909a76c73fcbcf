"""``agenteval.testing``: the contract check catches each broken rule with a clear message."""

from __future__ import annotations

import asyncio
import itertools
import math
from typing import Any

import agenteval
import pytest
from agenteval import Evaluator, EvaluatorInfo, InvocationScore, JudgeService, Registry, Score
from agenteval.models import EvalSet, IntermediateData, InvocationEvents
from agenteval.testing import (
    check_evaluator,
    make_case,
    make_context,
    make_invocation,
    registry_for,
    standard_contexts,
)


class Good(Evaluator):
    """Fraction of turns whose final text equals the expected one."""

    info = EvaluatorInfo(description="Exact final-text match.", requires_expected=True)

    def evaluate(self, ctx):
        per = [InvocationScore(score=float(a.final_text() == e.final_text())) for a, e in ctx.pairs()]
        return Score.mean_of(per)


class AsyncGood(Evaluator):
    info = EvaluatorInfo(description="Tool calls per turn.", informational=True, max_score=None)

    async def evaluate(self, ctx):
        await asyncio.sleep(0)
        return Score(value=sum(len(i.tool_calls()) for i in ctx.actual) / max(len(ctx.actual), 1))


def make(base: type = Good, evaluate=None, **attrs: Any) -> type:
    if evaluate is not None:
        attrs["evaluate"] = evaluate
    return type("Broken", (base,), attrs)


def contract_error(cls: Any, **kwargs: Any) -> str:
    with pytest.raises(AssertionError) as info:
        check_evaluator(cls, **kwargs)
    message = str(info.value)
    assert "breaks the agenteval plugin contract" in message
    return message


def test_good_evaluators_pass():
    scores = check_evaluator(Good)
    assert scores["legacy text and tool calls"].value == 1.0
    assert scores["wrong tool call and text"].value == 0.0
    assert "conversation scenario without expected invocations" not in scores
    scores = check_evaluator(AsyncGood)
    assert scores["conversation scenario without expected invocations"].value == 0.5
    assert scores["zero tool calls"].value == 0.0


def test_it_works_from_inside_a_running_loop():
    async def inside():
        return check_evaluator(AsyncGood)

    assert "non-ASCII text" in asyncio.run(inside())


@pytest.mark.parametrize(
    ("cls", "fragment"),
    [
        (object, "not a subclass of agenteval.Evaluator"),
        (type("Abstract", (Evaluator,), {"info": Good.info}), "does not implement evaluate"),
        (make(info=None), "'info' must be an agenteval.EvaluatorInfo"),
        (make(info=EvaluatorInfo(description="  ")), "info.description is empty"),
        (make(info=EvaluatorInfo(description="Line one.\nLine two.")), "must be one line"),
        (make(info=EvaluatorInfo(description="x", min_score=1, max_score=0)), "min_score (1.0) is greater"),
        (
            make(info=EvaluatorInfo(description="x", default_threshold=2.0)),
            "outside the score range [0.0, 1.0]",
        ),
        (
            make(info=EvaluatorInfo(description="x", informational=True, default_threshold=0.5)),
            "an informational criterion takes no threshold",
        ),
        (make(info=EvaluatorInfo(description="x", max_score=math.inf)), "info.max_score must be finite"),
        (make(Params=dict), "'Params' must be a pydantic model"),
    ],
)
def test_declaration_problems(cls, fragment):
    assert fragment in contract_error(cls)


class NeedsTool(Good):
    class Params(agenteval.Params):
        tool_name: str


def test_params_are_validated_and_required_params_are_hinted():
    assert "pass the parameters it needs: check_evaluator(cls, params={...})" in contract_error(NeedsTool)
    assert "its Params rejected {'tool_name': 3}" in contract_error(NeedsTool, params={"tool_name": 3})
    assert "its Params rejected" in contract_error(NeedsTool, params={"tool_name": "t", "extra": 1})
    check_evaluator(NeedsTool, params={"tool_name": "search"})
    check_evaluator(NeedsTool, params={"toolName": "search"})


def _raise(*_args: Any) -> Any:
    raise RuntimeError("no credentials")


@pytest.mark.parametrize(
    ("cls", "fragment"),
    [
        (
            make(__init__=lambda self, params=None: _raise()),
            "Broken(params) raised RuntimeError: no credentials",
        ),
        (make(check_ready=lambda self: _raise()), "check_ready() raised RuntimeError: no credentials"),
        (
            make(evaluate=lambda self, ctx: _raise()),
            "evaluate() raised RuntimeError: no credentials on the context 'legacy text and tool calls'",
        ),
        (
            make(evaluate=lambda self, ctx: 1.0),
            "evaluate() returned float, expected agenteval.Score on the context 'legacy text and tool calls'",
        ),
        (
            make(evaluate=lambda self, ctx: Score(value=1.5)),
            "the case score 1.5 is outside the declared range [0.0, 1.0] on the context",
        ),
        (make(evaluate=lambda self, ctx: Score(value=None)), "value=None (NOT_EVALUATED) without a reason"),
        (
            make(
                evaluate=lambda self, ctx: Score(value=1.0, per_invocation=[InvocationScore(score=1.0)] * 2)
            ),
            "returned 2 per-invocation scores for 1 invocations on the context",
        ),
        (
            make(
                evaluate=lambda self, ctx: Score(
                    value=1.0, per_invocation=[InvocationScore(score=-1.0)] * len(ctx.actual)
                )
            ),
            "invocation #1's score -1.0 is outside the declared range",
        ),
        (make(evaluate=lambda self, ctx: Score(value=1.0, details={"x": object()})), "not JSON-serialisable"),
        (make(aclose=lambda self: _raise()), "aclose() raised RuntimeError"),
    ],
)
def test_behaviour_problems(cls, fragment):
    assert fragment in contract_error(cls)


def test_the_failing_context_is_named():
    def evaluate(self, ctx):
        if any(ord(ch) > 127 for i in ctx.actual for ch in i.user_content.text()):
            raise UnicodeError("ascii only")
        return Score(value=1.0)

    message = contract_error(make(evaluate=evaluate))
    assert "on the context 'non-ASCII text'" in message
    assert "UnicodeError: ascii only" in message


def test_empty_final_response_context_exists():
    def evaluate(self, ctx):
        return Score(value=1.0 / len(ctx.actual[0].final_text()))

    assert "ZeroDivisionError" in contract_error(make(evaluate=evaluate))


def test_non_deterministic_evaluators_fail_unless_they_use_a_judge():
    counter = itertools.count()

    def evaluate(self, ctx):
        return Score(value=(next(counter) % 2) / 2, reason="sampled")

    message = contract_error(make(evaluate=evaluate))
    assert "not deterministic on the context 'legacy text and tool calls'" in message
    judged = make(evaluate=evaluate, info=EvaluatorInfo(description="A judge.", requires_judge=True))
    assert "pass judge=JudgeService(...)" in contract_error(judged)
    check_evaluator(judged, judge=JudgeService())  # it names no judge model: nothing to preflight


def test_judge_criteria_get_a_judge_client_in_their_contexts():
    from agenteval._judging import JudgeClient

    seen = []

    def evaluate(self, ctx):
        seen.append(ctx.judge)
        return Score(value=1.0)

    judged = make(evaluate=evaluate, info=EvaluatorInfo(description="A judge.", requires_judge=True))
    check_evaluator(judged, judge=JudgeService())
    assert seen and all(isinstance(client, JudgeClient) for client in seen)


def test_changing_reasons_count_as_non_deterministic():
    counter = itertools.count()
    message = contract_error(
        make(evaluate=lambda self, ctx: Score(value=1.0, reason=f"call {next(counter)}"))
    )
    assert "not deterministic" in message


def test_threshold_in_the_contexts():
    seen = []

    def evaluate(self, ctx):
        seen.append(ctx.threshold)
        return Score(value=1.0)

    check_evaluator(make(evaluate=evaluate))
    check_evaluator(make(evaluate=evaluate, info=EvaluatorInfo(description="x", default_threshold=0.7)))
    check_evaluator(make(evaluate=evaluate), threshold=0.9)
    check_evaluator(
        make(evaluate=evaluate, info=EvaluatorInfo(description="x", informational=True)), threshold=0.9
    )
    assert set(seen) == {0.5, 0.7, 0.9, None}


def test_standard_contexts():
    with_scenario = standard_contexts()
    without = standard_contexts(requires_expected=True)
    assert len(with_scenario) == len(without) + 1
    names = [name for name, _ in without]
    assert len(set(names)) == len(names)
    for _, ctx in without:
        assert ctx.expected is not None and len(ctx.expected) == len(ctx.actual)
        assert list(ctx.expected) == ctx.case.conversation
    name, scenario = with_scenario[-1]
    assert scenario.expected is None and scenario.case.conversation_scenario is not None
    forms = {type(i.intermediate_data) for _, ctx in without for i in ctx.actual}
    assert forms == {IntermediateData, InvocationEvents, type(None)}


def test_make_invocation_event_form_looks_like_adk_inference():
    invocation = make_invocation("q", "a", [("t", {"x": 1}), ("u", None)], form="events", author="bot")
    events = invocation.intermediate_data.invocation_events
    assert [e.author for e in events] == ["bot"] * 5
    assert (
        events[0].content.parts[0].function_call.id
        == events[1].content.parts[0].function_response.id
        == "call-1"
    )
    assert events[1].content.role == "user"
    assert events[-1].content is None
    assert [(c.name, c.args) for c in invocation.tool_calls()] == [("t", {"x": 1}), ("u", None)]
    assert invocation.final_response.role == "model"


def test_make_context_and_case():
    turn = make_invocation()
    ctx = make_context([turn], [turn], threshold=0.3)
    assert ctx.case.conversation == [turn] and ctx.threshold == 0.3
    scenario = make_context([turn])
    assert scenario.expected is None and scenario.case.conversation_scenario.starting_prompt == "Hello"
    assert make_case([turn], eval_id="x", rubrics=[]).rubrics == []


def test_registry_for():
    registry = registry_for(good=Good)
    assert isinstance(registry, Registry)
    assert registry.names() == ["good"]
    result = agenteval.evaluate(
        EvalSet(eval_set_id="s", eval_cases=[make_case([make_invocation()])]),
        {"case": [make_invocation()]},
        {"good": 1.0},
        registry=registry,
    )
    assert result.passed
