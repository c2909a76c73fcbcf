"""Helpers for people who write criteria: a contract check and small data builders.

Check that a criterion keeps the plugin contract, in one line of your test suite::

    from agenteval.testing import check_evaluator

    def test_my_criterion_keeps_the_contract():
        check_evaluator(MyEvaluator, params={"tool_name": "search"})

``check_evaluator`` raises ``AssertionError`` with a message that names the evaluator, the
problem and, for a bad score, the input that produced it. It checks that:

* the class subclasses ``agenteval.Evaluator``, is not abstract, and declares
  ``info = EvaluatorInfo(...)`` with a one-line, non-empty ``description`` and a coherent
  score range (``min_score <= max_score``; a ``default_threshold`` inside the range; no
  default threshold on an informational criterion);
* ``Params`` is a pydantic model with a JSON schema, and the class can be built with the
  given ``params`` (its ``check_ready`` passes and its ``aclose`` does not raise);
* ``evaluate`` (``def`` or ``async def``) returns a ``Score`` for every standard context
  (see :func:`standard_contexts`): finite values inside ``[min_score, max_score]`` when the
  range is bounded, a ``reason`` whenever the value is ``None`` (NOT_EVALUATED),
  ``per_invocation`` either empty or one entry per actual invocation;
* a criterion that does not call a judge (``info.requires_judge`` False) is deterministic:
  the same input twice gives the same score, reason and per-invocation scores.

The builders make the inputs of your own tests: :func:`make_invocation`,
:func:`make_case`, :func:`make_context`; :func:`registry_for` serves classes to
``agenteval.evaluate`` without installing anything::

    result = agenteval.evaluate(eval_set, actual, {"my_criterion": 0.8},
                                registry=registry_for(my_criterion=MyEvaluator))

This module is public API: it only grows within a major version.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import json
import traceback
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, NoReturn, Optional, TypeVar, Union

from pydantic import BaseModel

from ._contracts import info_problem, score_problem
from ._evaluator import EvaluationContext, Evaluator, EvaluatorInfo, Score
from ._registry import Registry
from .models import (
    Content,
    ConversationScenario,
    EvalCase,
    FunctionCall,
    FunctionResponse,
    IntermediateData,
    Invocation,
    InvocationEvent,
    InvocationEvents,
    Part,
)

__all__ = [
    "check_evaluator",
    "make_case",
    "make_context",
    "make_invocation",
    "registry_for",
    "standard_contexts",
]

#: A tool call for :func:`make_invocation`: ``(name, args)`` or a ``FunctionCall``.
ToolCallSpec = Union[tuple[str, Optional[Mapping[str, Any]]], FunctionCall]

_FORMS = ("legacy", "events", None)
_T = TypeVar("_T")


def _function_call(spec: ToolCallSpec) -> FunctionCall:
    if isinstance(spec, FunctionCall):
        return spec
    name, args = spec
    return FunctionCall(name=name, args=None if args is None else dict(args))


def make_invocation(
    user: str = "Hello",
    response: Optional[str] = "Hello! How can I help?",
    tool_calls: Sequence[ToolCallSpec] = (),
    *,
    form: Optional[str] = "legacy",
    invocation_id: str = "",
    author: str = "agent",
) -> Invocation:
    """One turn: the user's text, the agent's tool calls and its final text.

    Args:
        user: the user's message.
        response: the final response's text; ``None`` leaves ``final_response`` out (as
            many hand-written files do); ``""`` gives an empty text part.
        tool_calls: ``(name, args)`` pairs (``args`` may be ``None``: a call without
            arguments) or ``FunctionCall`` objects, in call order.
        form: ``"legacy"`` puts the calls in ``intermediate_data.tool_uses`` (how
            hand-written expected data looks); ``"events"`` writes them as ADK's inference
            does: a ``function_call`` event and a ``function_response`` event per call,
            then a final event without content; ``None`` leaves ``intermediate_data`` out
            (only without tool calls).
        invocation_id: the invocation's id.
        author: the agent name used as the events' author.
    """
    if form not in _FORMS:
        raise ValueError(f"form must be 'legacy', 'events' or None, got {form!r}")
    calls = [_function_call(spec) for spec in tool_calls]
    intermediate: Union[IntermediateData, InvocationEvents, None]
    if form == "legacy":
        intermediate = IntermediateData(tool_uses=calls)
    elif form == "events":
        events = []
        for index, call in enumerate(calls):
            call_id = call.id or f"call-{index + 1}"
            call = call.model_copy(update={"id": call_id})
            response_part = FunctionResponse(id=call_id, name=call.name, response={"result": "ok"})
            events.append(
                InvocationEvent(
                    author=author, content=Content(role="model", parts=[Part(function_call=call)])
                )
            )
            events.append(
                InvocationEvent(
                    author=author, content=Content(role="user", parts=[Part(function_response=response_part)])
                )
            )
        events.append(InvocationEvent(author=author))
        intermediate = InvocationEvents(invocation_events=events)
    else:
        if calls:
            raise ValueError("tool calls need a form ('legacy' or 'events'), not form=None")
        intermediate = None
    return Invocation(
        invocation_id=invocation_id,
        user_content=Content.from_text(user, role="user"),
        final_response=None if response is None else Content.from_text(response, role="model"),
        intermediate_data=intermediate,
    )


def make_case(
    conversation: Optional[Sequence[Invocation]] = None,
    *,
    eval_id: str = "case",
    scenario: Union[ConversationScenario, str, None] = None,
    **fields: Any,
) -> EvalCase:
    """An eval case with a fixed ``conversation`` or, with ``scenario`` (a
    ``ConversationScenario`` or a starting prompt), a conversation scenario.
    ``fields`` are any other ``EvalCase`` fields (``rubrics``, ``session_input``...)."""
    if isinstance(scenario, str):
        scenario = ConversationScenario(starting_prompt=scenario, conversation_plan="Ask, then stop.")
    if scenario is None and conversation is None:
        conversation = []
    return EvalCase(
        eval_id=eval_id,
        conversation=None if conversation is None else list(conversation),
        conversation_scenario=scenario,
        **fields,
    )


def make_context(
    actual: Sequence[Invocation],
    expected: Optional[Sequence[Invocation]] = None,
    *,
    threshold: Optional[float] = None,
    case: Optional[EvalCase] = None,
) -> EvaluationContext:
    """What the engine passes to ``evaluate``: ``expected`` becomes the case's
    conversation; without it the case is a conversation scenario."""
    if case is None:
        case = make_case(expected) if expected is not None else make_case(scenario="Hello")
    return EvaluationContext(case=case, actual=list(actual), expected=expected, threshold=threshold)


def registry_for(**classes: type[Evaluator]) -> Registry:
    """A registry serving these evaluator classes under these names (nothing installed)."""
    return Registry.from_classes(classes)


# -- the standard contexts ------------------------------------------------------------------

_WEATHER = [("get_weather", {"city": "Paris", "days": 1}), ("convert_units", {"value": 21, "to": "F"})]
_WEATHER_USER = "What's the weather in Paris tomorrow, in Fahrenheit?"
_WEATHER_TEXT = "Tomorrow in Paris: sunny, 70 °F."


def standard_contexts(
    *, requires_expected: bool = False, threshold: Optional[float] = None
) -> list[tuple[str, EvaluationContext]]:
    """The named edge-case contexts ``check_evaluator`` runs an evaluator on.

    Text with tool calls in the legacy form and in the event form (also actual events
    against legacy expected data, as an eval run produces), a mismatch, an empty and a
    missing final response, zero tool calls and no intermediate data at all, a call
    without ``args``, three invocations, non-ASCII text; and, when ``requires_expected``
    is False, a conversation-scenario case without expected invocations.
    """

    def inv(*args: Any, **kwargs: Any) -> Invocation:
        return make_invocation(*args, **kwargs)

    legacy = [inv(_WEATHER_USER, _WEATHER_TEXT, _WEATHER, invocation_id="inv-1")]
    events = [inv(_WEATHER_USER, _WEATHER_TEXT, _WEATHER, form="events", invocation_id="inv-1")]
    wrong = [
        inv(
            _WEATHER_USER,
            "I could not find the weather.",
            [("get_weather", {"city": "Lyon", "days": 1})],
            form="events",
            invocation_id="inv-1",
        )
    ]
    three_expected = [
        inv("Roll a six-sided die.", "You rolled a 4.", [("roll_die", {"sides": 6})], invocation_id="t-1"),
        inv("Is 4 prime?", "No, 4 is not prime.", [("check_prime", {"nums": [4]})], invocation_id="t-2"),
        inv("Thanks!", "You're welcome.", invocation_id="t-3"),
    ]
    three_actual = [
        inv(
            "Roll a six-sided die.",
            "You rolled a 4.",
            [("roll_die", {"sides": 6})],
            form="events",
            invocation_id="t-1",
        ),
        inv(
            "Is 4 prime?",
            "4 is not a prime number.",
            [("check_prime", {"nums": [4]})],
            form="events",
            invocation_id="t-2",
        ),
        inv("Thanks!", "Anytime!", [("roll_die", {"sides": 20})], form="events", invocation_id="t-3"),
    ]
    non_ascii = [
        inv(
            "台北明天的天氣如何？ 東京はどうですか？",
            "台北：晴れ ☀️ 28 °C — 東京：雨 🌧️",
            [("get_weather", {"city": "台北"}), ("get_weather", {"city": "東京"})],
            invocation_id="i-1",
        )
    ]
    empty = [inv(_WEATHER_USER, "", _WEATHER, invocation_id="inv-1")]
    missing = [inv(_WEATHER_USER, None, _WEATHER, invocation_id="inv-1")]
    no_tools = [inv("Hi there", "Hello! How can I help?", invocation_id="inv-1")]
    no_data = [inv("Hi there", "Hello! How can I help?", form=None, invocation_id="inv-1")]
    no_args = [inv("Stop the loop.", "Stopped.", [("exit_loop", None)], form="events", invocation_id="inv-1")]

    pairs: list[tuple[str, Sequence[Invocation], Sequence[Invocation]]] = [
        ("legacy text and tool calls", legacy, legacy),
        (
            "event-form text and tool calls",
            events,
            [inv(_WEATHER_USER, _WEATHER_TEXT, _WEATHER, form="events")],
        ),
        ("event-form actual, legacy expected", events, legacy),
        ("wrong tool call and text", wrong, legacy),
        ("empty final response", empty, empty),
        ("no final response", missing, legacy),
        ("zero tool calls", no_tools, no_tools),
        ("no intermediate data", no_data, no_tools),
        ("tool call without args", no_args, no_args),
        ("three invocations", three_actual, three_expected),
        ("non-ASCII text", non_ascii, non_ascii),
    ]
    contexts = [
        (
            name,
            make_context(
                actual, expected, threshold=threshold, case=make_case(expected, eval_id=f"case-{i}")
            ),
        )
        for i, (name, actual, expected) in enumerate(pairs)
    ]
    if not requires_expected:
        scenario_actual = [
            inv("I want to roll a die.", "Sure, how many sides?", invocation_id="s-1"),
            inv(
                "Twenty.",
                "You rolled a 17.",
                [("roll_die", {"sides": 20})],
                form="events",
                invocation_id="s-2",
            ),
        ]
        contexts.append(
            (
                "conversation scenario without expected invocations",
                make_context(
                    scenario_actual,
                    None,
                    threshold=threshold,
                    case=make_case(eval_id="scenario", scenario="I want to roll a die."),
                ),
            )
        )
    return contexts


# -- the contract check ---------------------------------------------------------------------


class _ContractError(AssertionError):
    pass


def _fail(cls: Any, message: str) -> NoReturn:
    name = getattr(cls, "__qualname__", repr(cls))
    raise _ContractError(f"{name} breaks the agenteval plugin contract: {message}")


def _check_info(cls: type[Evaluator]) -> EvaluatorInfo:
    why = info_problem(getattr(cls, "info", None))
    if why:
        _fail(cls, why)
    return cls.info


def _check_params(cls: type[Evaluator], params: Optional[Mapping[str, Any]]) -> Any:
    model = getattr(cls, "Params", None)
    if not (inspect.isclass(model) and issubclass(model, BaseModel)):
        _fail(cls, f"'Params' must be a pydantic model (subclass agenteval.Params), got {model!r}")
    try:
        schema = model.model_json_schema()
        json.dumps(schema)
    except Exception as exc:  # noqa: BLE001 - reported as a contract failure
        _fail(
            cls, f"Params has no JSON schema ({type(exc).__name__}: {exc}); use JSON-compatible field types"
        )
    try:
        return model.model_validate(dict(params or {}))
    except Exception as exc:  # noqa: BLE001
        hint = "" if params else "; pass the parameters it needs: check_evaluator(cls, params={...})"
        _fail(cls, f"its Params rejected {dict(params or {})!r}: {exc}{hint}")


def _run(coro: Coroutine[Any, Any, _T]) -> _T:
    """Run a coroutine to completion, also when called from inside a running loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _fingerprint(score: Score) -> tuple[Any, ...]:
    return (
        score.value,
        score.reason,
        score.reason_code,
        tuple((s.score, s.reason) for s in score.per_invocation),
    )


def _check_score(
    cls: type[Evaluator], info: EvaluatorInfo, name: str, ctx: EvaluationContext, score: Any
) -> None:
    where = f"on the context {name!r}"
    broken = score_problem(score, info, len(ctx.actual))  # the rule the run applies
    if broken:
        _fail(cls, f"{broken} {where}")
    if score.value is None and not (score.reason and score.reason.strip()):
        _fail(
            cls,
            f"it returned value=None (NOT_EVALUATED) without a reason {where}; "
            "use Score.not_evaluated(reason, code)",
        )
    try:
        json.dumps(score.model_dump(mode="json"))
    except Exception as exc:  # noqa: BLE001
        _fail(
            cls,
            f"its Score is not JSON-serialisable {where} ({type(exc).__name__}: {exc}); "
            "keep 'details' to JSON types",
        )


def check_evaluator(
    cls: type[Evaluator],
    *,
    params: Optional[Mapping[str, Any]] = None,
    threshold: Optional[float] = None,
    judge: Optional[Any] = None,
) -> dict[str, Score]:
    """Check that ``cls`` keeps the plugin contract (see the module docstring).

    Args:
        cls: the evaluator class (what the entry point names).
        params: the criterion parameters to build it with, as a config would give them.
        threshold: the threshold put in the contexts (default: ``info.default_threshold``,
            else the middle of the score range; ``None`` for informational criteria).
        judge: for criteria with ``info.requires_judge``, the ``agenteval.
            JudgeService`` their contexts get (pointed at a fake server in tests); its
            ``preflight`` runs on the models the evaluator names.

    Returns:
        The score of each standard context, by context name, for further assertions.

    Raises:
        AssertionError: the first broken rule, naming the class, the rule and the input.
    """
    if not (inspect.isclass(cls) and issubclass(cls, Evaluator)):
        _fail(cls, "it is not a subclass of agenteval.Evaluator")
    if inspect.isabstract(cls):
        _fail(cls, f"it does not implement {', '.join(sorted(cls.__abstractmethods__))}")
    info = _check_info(cls)
    evaluator = _ready_evaluator(cls, _check_params(cls, params))
    contexts = _contexts_for(cls, info, evaluator, _contract_threshold(info, threshold), judge)
    return _run(_score_every_context(cls, info, evaluator, contexts, judge))


def _ready_evaluator(cls: type[Evaluator], params: Any) -> Evaluator:
    """``cls(params)``, ready and prepared (twice: ``prepare`` must be safe to repeat)."""
    try:
        evaluator = cls(params)
    except Exception as exc:  # noqa: BLE001
        _fail(cls, f"{cls.__name__}(params) raised {type(exc).__name__}: {exc}")
    try:
        evaluator.check_ready()
    except Exception as exc:  # noqa: BLE001
        _fail(cls, f"check_ready() raised {type(exc).__name__}: {exc} (pass params that make it ready)")
    for attempt in ("prepare()", "prepare() a second time"):
        try:
            evaluator.prepare()
        except Exception as exc:  # noqa: BLE001
            _fail(cls, f"{attempt} raised {type(exc).__name__}: {exc}")
    return evaluator


def _contract_threshold(info: EvaluatorInfo, threshold: Optional[float]) -> Optional[float]:
    """The threshold the contexts carry: none for an informational criterion, else the
    one given, else the default threshold, else the middle of the score range."""
    if info.informational:
        return None
    if threshold is not None:
        return threshold
    if info.default_threshold is not None:
        return info.default_threshold
    low = info.min_score if info.min_score is not None else 0.0
    high = info.max_score if info.max_score is not None else low + 1.0
    return (low + high) / 2


def _contexts_for(
    cls: type[Evaluator],
    info: EvaluatorInfo,
    evaluator: Evaluator,
    threshold: Optional[float],
    judge: Optional[Any],
) -> list[tuple[str, EvaluationContext]]:
    """The standard contexts; a judge criterion's get a client of ``judge`` (preflighted)."""
    contexts = standard_contexts(requires_expected=info.requires_expected, threshold=threshold)
    if not info.requires_judge:
        return contexts
    if judge is None:
        _fail(cls, "it calls a judge (info.requires_judge): pass judge=JudgeService(...) to check it")
    try:
        judge.preflight(evaluator.judge_models())
    except Exception as exc:  # noqa: BLE001
        _fail(cls, f"its judge models failed preflight: {type(exc).__name__}: {exc}")
    return [
        (name, ctx.model_copy(update={"judge": judge.client(cls.__name__, name)})) for name, ctx in contexts
    ]


async def _evaluate_once(
    cls: type[Evaluator], evaluator: Evaluator, ctx: EvaluationContext, name: str
) -> Any:
    try:
        outcome = evaluator.evaluate(ctx)
        if inspect.isawaitable(outcome):
            outcome = await outcome
    except Exception as exc:  # noqa: BLE001
        trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        _fail(
            cls,
            f"evaluate() raised {type(exc).__name__}: {exc} on the context {name!r}; an "
            f"evaluator returns Score.not_evaluated(...) for input it cannot score.\n{trace}",
        )
    return outcome


async def _score_every_context(
    cls: type[Evaluator],
    info: EvaluatorInfo,
    evaluator: Evaluator,
    contexts: list[tuple[str, EvaluationContext]],
    judge: Optional[Any] = None,
) -> dict[str, Score]:
    """Each context's checked score; a deterministic criterion scores each twice and must
    give the same answer. ``aclose`` runs whatever happens, and so does the judge's: its
    connections belong to this check's event loop (the judge serves a later one afresh)."""
    scores: dict[str, Score] = {}
    try:
        for name, ctx in contexts:
            score = await _evaluate_once(cls, evaluator, ctx, name)
            _check_score(cls, info, name, ctx, score)
            if not info.requires_judge:
                again = await _evaluate_once(cls, evaluator, ctx, name)
                _check_score(cls, info, name, ctx, again)
                if _fingerprint(again) != _fingerprint(score):
                    _fail(
                        cls,
                        f"it is not deterministic on the context {name!r}: the same input "
                        f"gave {_fingerprint(score)!r} and then {_fingerprint(again)!r} "
                        "(declare info.requires_judge=True if it calls a model)",
                    )
            scores[name] = score
    except BaseException:
        with contextlib.suppress(Exception):
            await evaluator.aclose()
        if judge is not None:
            with contextlib.suppress(Exception):
                await judge.aclose()
        raise
    try:
        await evaluator.aclose()
    except Exception as exc:  # noqa: BLE001
        _fail(cls, f"aclose() raised {type(exc).__name__}: {exc}")
    finally:
        if judge is not None:
            await judge.aclose()
    return scores
