"""A plain function as a criterion: ``function_criterion`` turns it into an ``Evaluator`` class.

The function receives the case's invocations by position, as many as it takes:
``fn(actual)``, ``fn(actual, expected)`` or ``fn(actual, expected, case)`` (``expected`` is
``None`` for a conversation-scenario case). Its keyword-only parameters are the criterion's
parameters: they become its ``Params`` model (annotation and default kept), so a config
gives them next to the threshold. It may be ``def`` or ``async def``, and returns one of:

* a number: the case's score (``True`` / ``False`` count as 1.0 / 0.0);
* ``(score, reason)``: the score and a short sentence saying why;
* ``None`` or ``(None, reason)``: it cannot score this case (NOT_EVALUATED, code
  ``no_score``);
* a list with one entry per actual invocation (a number, ``None`` or a
  ``(score, reason)`` pair each): per-invocation scores, averaged as ``Score.mean_of``;
* an ``agenteval.Score``, as any evaluator returns.

Anything else, or a score outside the declared range, is an ERRORED result (the engine's
contract check); an exception is ERRORED with the exception, and the run goes on.
"""

from __future__ import annotations

import inspect
import numbers
import typing
from collections.abc import Callable, Sequence
from typing import Any, Optional, Union

from pydantic import create_model

from ._evaluator import EvaluationContext, Evaluator, EvaluatorInfo, InvocationScore, Params, Score

__all__ = ["function_criterion", "signature_problem"]

_ARGUMENTS = ("actual", "expected", "case")
_RETURNS = (
    "return a number, (score, reason), None when it cannot score the case, a list of "
    "per-invocation scores, or an agenteval.Score"
)


def signature_problem(fn: Callable[..., Any]) -> Optional[str]:
    """Why ``fn`` cannot be called as a criterion function (``None``: it can)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        return f"its signature cannot be read ({exc})"
    parameters = list(signature.parameters.values())
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    variadic = any(p.kind is p.VAR_POSITIONAL for p in parameters)
    required = [p.name for p in positional if p.default is p.empty]
    if not positional and not variadic:
        return (
            f"it takes no positional parameter; a criterion function is called as "
            f"{getattr(fn, '__name__', 'fn')}(actual[, expected[, case]])"
        )
    if len(required) > len(_ARGUMENTS):
        return (
            f"it requires {len(required)} positional parameters ({', '.join(required)}); it is "
            "given at most three: actual, expected, case"
        )
    return None


def _positional_count(fn: Callable[..., Any]) -> int:
    parameters = inspect.signature(fn).parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return len(_ARGUMENTS)
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return min(len(positional), len(_ARGUMENTS))


def _params_model(fn: Callable[..., Any]) -> type[Params]:
    """The function's keyword-only parameters as a ``Params`` model."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - an annotation that cannot be resolved: accept any value
        hints = {}
    fields: dict[str, Any] = {}
    for parameter in inspect.signature(fn).parameters.values():
        if parameter.kind is not parameter.KEYWORD_ONLY:
            continue
        default = ... if parameter.default is parameter.empty else parameter.default
        fields[parameter.name] = (hints.get(parameter.name, Any), default)
    name = f"{getattr(fn, '__name__', 'function')}_params"
    return create_model(name, __base__=Params, **fields)


def _number(value: Any) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"a score is a number or None, got {type(value).__name__} {value!r}")


def _pair(value: Any) -> tuple[Optional[float], Optional[str]]:
    if isinstance(value, tuple):
        if len(value) != 2 or not (value[1] is None or isinstance(value[1], str)):
            raise TypeError(f"a tuple result is (score, reason), got {value!r}")
        return _number(value[0]), value[1]
    return _number(value), None


def as_score(value: Any) -> Score:
    """A criterion function's return value as a ``Score`` (see the module docstring)."""
    if isinstance(value, Score):
        return value
    if isinstance(value, list):
        items = []
        for item in value:
            if isinstance(item, InvocationScore):
                items.append(item)
                continue
            score, reason = _pair(item)
            code = "no_score" if score is None else None
            items.append(InvocationScore(score=score, reason=reason, reason_code=code))
        return Score.mean_of(items)
    try:
        score, reason = _pair(value)
    except TypeError as exc:
        raise TypeError(
            f"the criterion function returned {type(value).__name__}: {exc}; {_RETURNS}"
        ) from None
    if score is None:
        return Score.not_evaluated(reason or "the criterion function returned no score (None)", "no_score")
    return Score(value=score, reason=reason)


def _arguments(ctx: EvaluationContext, count: int) -> tuple[Any, ...]:
    return (ctx.actual, ctx.expected, ctx.case)[:count]


def _keywords(params: Params, names: Sequence[str]) -> dict[str, Any]:
    return {name: getattr(params, name) for name in names}


async def _settled(outcome: Any) -> Score:
    return as_score(await outcome)


def _description(fn: Callable[..., Any], given: Optional[str]) -> str:
    if given is not None:
        return given
    lines = (inspect.getdoc(fn) or "").strip().splitlines()
    return lines[0].strip() if lines else f"{getattr(fn, '__name__', 'function')} (a function criterion)"


def function_criterion(
    fn: Optional[Callable[..., Any]] = None,
    *,
    description: Optional[str] = None,
    threshold: Optional[float] = None,
    min_score: Optional[float] = 0.0,
    max_score: Optional[float] = 1.0,
    higher_is_better: bool = True,
    requires_expected: bool = False,
    informational: bool = False,
) -> Any:
    """Turn a scoring function into a criterion class (an ``agenteval.Evaluator`` subclass).

    Use as ``@function_criterion`` or ``@function_criterion(threshold=0.8, ...)``; the
    decorated name is then the class, ready for an ``agenteval.criteria`` entry point. The
    arguments are ``EvaluatorInfo``'s: ``description`` defaults to the first line of the
    function's docstring, ``threshold`` is the default threshold (``None``: the user must
    give one). The original function stays available as ``Class.function``. A function
    whose signature cannot be called as ``fn(actual[, expected[, case]])`` is a
    ``TypeError`` here.
    """

    def build(function: Callable[..., Any]) -> type[Evaluator]:
        if inspect.isclass(function) or not callable(function):
            raise TypeError(f"function_criterion decorates a function, not {function!r}")
        problem = signature_problem(function)
        if problem:
            raise TypeError(
                f"{getattr(function, '__qualname__', function)!r} cannot be a criterion: {problem}"
            )
        info = EvaluatorInfo(
            description=_description(function, description),
            min_score=min_score,
            max_score=max_score,
            higher_is_better=higher_is_better,
            default_threshold=threshold,
            requires_expected=requires_expected,
            informational=informational,
        )
        return make_evaluator_class(function, info)

    return build(fn) if fn is not None else build


def make_evaluator_class(function: Callable[..., Any], info: EvaluatorInfo) -> type[Evaluator]:
    """The ``Evaluator`` subclass that calls ``function`` (its signature already checked)."""
    count = _positional_count(function)
    params_model = _params_model(function)
    names = tuple(params_model.model_fields)
    evaluate: Callable[..., Union[Score, Any]]
    if inspect.iscoroutinefunction(function):

        async def evaluate(self: Evaluator, ctx: EvaluationContext) -> Score:
            return as_score(await function(*_arguments(ctx, count), **_keywords(self.params, names)))

    else:

        def evaluate(self: Evaluator, ctx: EvaluationContext) -> Any:
            outcome = function(*_arguments(ctx, count), **_keywords(self.params, names))
            return _settled(outcome) if inspect.isawaitable(outcome) else as_score(outcome)

    namespace = {
        "__doc__": inspect.getdoc(function),
        "__module__": getattr(function, "__module__", __name__),
        "__qualname__": getattr(function, "__qualname__", "function"),
        "info": info,
        "Params": params_model,
        "evaluate": evaluate,
        "function": staticmethod(function),
    }
    return type(getattr(function, "__name__", "function"), (Evaluator,), namespace)
