"""Builders shared by the built-in criteria tests."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Optional

from agenteval import EvaluationContext, Evaluator, Score
from agenteval.models import (
    Content,
    EvalCase,
    FunctionCall,
    FunctionResponse,
    IntermediateData,
    Invocation,
    InvocationEvent,
    InvocationEvents,
    Part,
)
from hypothesis import strategies as st

_NO_ARGS = object()


def call(name: Optional[str], args: Any = _NO_ARGS, **kwargs: Any) -> FunctionCall:
    """A tool call; ``call("a")`` has no ``args`` key (``args=None``)."""
    return FunctionCall(name=name, args=None if args is _NO_ARGS else args, **kwargs)


def inv(
    calls: Sequence[FunctionCall] = (),
    text: Optional[str] = "",
    *,
    form: str = "legacy",
) -> Invocation:
    """An invocation whose tool calls are stored in the given intermediate-data form.

    ``form``: ``legacy`` (``tool_uses``), ``events`` (one event per call, each followed
    by its response, plus a text-only progress event and a sub-agent author), ``none``
    (no intermediate data; only for ``calls=()``).
    """
    if form == "legacy":
        data: Any = IntermediateData(tool_uses=list(calls))
    elif form == "events":
        events = [InvocationEvent(author="root", content=Content.from_text("thinking", role="model"))]
        for i, c in enumerate(calls):
            author = "root" if i % 2 == 0 else "sub_agent"
            events.append(
                InvocationEvent(author=author, content=Content(role="model", parts=[Part(function_call=c)]))
            )
            response = FunctionResponse(name=c.name, response={"ok": True})
            events.append(
                InvocationEvent(
                    author=author, content=Content(role="user", parts=[Part(function_response=response)])
                )
            )
        events.append(InvocationEvent(author="root"))
        data = InvocationEvents(invocation_events=events)
    elif form == "none":
        assert not calls
        data = None
    else:  # pragma: no cover
        raise ValueError(form)
    response = None if text is None else Content.from_text(text, role="model")
    return Invocation(
        user_content=Content.from_text("question"), final_response=response, intermediate_data=data
    )


def context(
    actual: Sequence[Invocation],
    expected: Optional[Sequence[Invocation]] = None,
    threshold: Optional[float] = None,
) -> EvaluationContext:
    conversation = list(expected if expected is not None else actual)
    case = EvalCase(eval_id="case", conversation=conversation)
    return EvaluationContext(case=case, actual=list(actual), expected=expected, threshold=threshold)


def run(
    cls: type[Evaluator],
    actual: Sequence[Invocation],
    expected: Optional[Sequence[Invocation]] = None,
    *,
    threshold: Optional[float] = None,
    **params: Any,
) -> Score:
    """Evaluate one case the way the engine does: validated params, the default threshold."""
    evaluator = cls(cls.Params.model_validate(params))
    if threshold is None:
        threshold = cls.info.default_threshold
    return evaluator.evaluate(context(actual, expected, threshold))


def score_one(
    cls: type[Evaluator],
    actual_calls: Sequence[FunctionCall],
    expected_calls: Sequence[FunctionCall],
    **params: Any,
) -> float:
    """The score of a single invocation built from two call lists."""
    result = run(cls, [inv(actual_calls)], [inv(expected_calls)], **params)
    assert result.value is not None
    return result.value


#: Argument values whose equality is easy to get wrong (``1 == 1.0 == True``, ``"1" != 1``,
#: ``None != {}``, list order kept, dict order ignored): the property tests draw from them.
ARG_VALUES = [
    None,
    {},
    {"k": 1},
    {"k": 1.0},
    {"k": True},
    {"k": "1"},
    {"k": 2},
    {"k": [1, 2]},
    {"k": [2, 1]},
    {"k": {"x": 1, "y": 2}},
    {"k": {"y": 2.0, "x": True}},
    {"k": None},
    {"j": 1},
    {"j": 1, "k": 1},
]
#: Lists of up to 6 calls of tools ``a``, ``b``, ``c`` with arguments from ``ARG_VALUES``.
calls_st = st.lists(
    st.builds(
        lambda name, args: FunctionCall(name=name, args=copy.deepcopy(args)),
        st.sampled_from(["a", "b", "c"]),
        st.sampled_from(ARG_VALUES),
    ),
    max_size=6,
)
