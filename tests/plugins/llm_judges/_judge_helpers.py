"""A scripted judge model and small runners for the llm_judges criteria tests.

``Scripted`` answers every judge request with what a *responder* returns: a string (the
answer text), a ``JudgeCallError`` (raised, so the service retries or gives up), or a
callable taking the request. ``run(cls, actual, expected, responder, **params)`` evaluates
one case through a real ``agenteval.JudgeService`` (retries, concurrency) whose only
provider is the scripted one.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import Any, Optional, Union

from agenteval import EvaluationContext, JudgeRequest, JudgeResponse, JudgeService, JudgeUsage, Score
from agenteval._registry import ProviderRegistry
from agenteval.errors import JudgeCallError
from agenteval.models import EvalCase, Invocation
from agenteval.plugins import JudgeModel
from agenteval.testing import make_case, make_invocation

Answer = Union[str, BaseException]
Responder = Union[Answer, Sequence[Answer], Callable[[JudgeRequest], Answer]]

MODEL = "scripted:judge"


class Log:
    """What the scripted judge was asked, in call order, and the most calls in flight."""

    def __init__(self) -> None:
        self.requests: list[JudgeRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0

    @property
    def prompts(self) -> list[str]:
        return [r.prompt for r in self.requests]


def _responder_fn(responder: Responder) -> Callable[[JudgeRequest], Answer]:
    if callable(responder) and not isinstance(responder, BaseException):
        return responder  # type: ignore[return-value]
    if isinstance(responder, (str, BaseException)):
        return lambda _request: responder  # type: ignore[return-value]
    queue = list(responder)

    def next_answer(_request: JudgeRequest) -> Answer:
        if not queue:
            raise AssertionError("the scripted judge ran out of answers")
        return queue.pop(0)

    return next_answer


def judge_service(responder: Responder, log: Optional[Log] = None, *, delay: float = 0.0) -> JudgeService:
    """A ``JudgeService`` whose provider ``scripted`` answers with ``responder`` (after
    ``delay`` seconds)."""
    answer = _responder_fn(responder)
    log = log if log is not None else Log()

    class Scripted(JudgeModel):
        async def generate(self, request: JudgeRequest) -> JudgeResponse:
            log.requests.append(request)
            log.in_flight += 1
            log.max_in_flight = max(log.max_in_flight, log.in_flight)
            try:
                await asyncio.sleep(delay)
            finally:
                log.in_flight -= 1
            reply = answer(request)
            if isinstance(reply, BaseException):
                raise reply
            return JudgeResponse(text=reply, usage=JudgeUsage(input_tokens=10, output_tokens=5))

    return JudgeService(providers=ProviderRegistry(classes={"scripted": Scripted}))


def options(**overrides: Any) -> dict[str, Any]:
    """``judge_model_options`` for the scripted judge (1 sample unless overridden)."""
    return {"judge_model": MODEL, "num_samples": 1, **overrides}


def make(cls: type, **params: Any) -> Any:
    """``cls`` built with ``params`` (``judge_model_options`` defaulting to the scripted judge)."""
    params.setdefault("judge_model_options", options())
    return cls(cls.Params.model_validate(params))


def run_ctx(
    evaluator: Any,
    ctx: EvaluationContext,
    responder: Responder,
    log: Optional[Log] = None,
    delay: float = 0.0,
) -> Score:
    """Evaluate ``ctx`` with a scripted judge attached (answering after ``delay`` seconds)."""
    service = judge_service(responder, log, delay=delay)
    ctx = ctx.model_copy(update={"judge": service.client("criterion", "case")})

    async def go() -> Score:
        try:
            return await evaluator.evaluate(ctx)
        finally:
            await service.aclose()

    return asyncio.run(go())


def context(
    actual: Sequence[Invocation],
    expected: Optional[Sequence[Invocation]] = None,
    *,
    case: Optional[EvalCase] = None,
    threshold: Optional[float] = 0.8,
) -> EvaluationContext:
    if case is None:
        case = make_case(expected) if expected is not None else make_case(scenario="Hello")
    return EvaluationContext(case=case, actual=list(actual), expected=expected, threshold=threshold)


def run(
    cls: type,
    actual: Sequence[Invocation],
    expected: Optional[Sequence[Invocation]],
    responder: Responder,
    *,
    log: Optional[Log] = None,
    case: Optional[EvalCase] = None,
    **params: Any,
) -> Score:
    """Build ``cls`` with ``params`` and evaluate one case with a scripted judge."""
    return run_ctx(make(cls, **params), context(actual, expected, case=case), responder, log)


def inv(user: str = "Hi", response: Optional[str] = "Hello", *args: Any, **kwargs: Any) -> Invocation:
    return make_invocation(user, response, *args, **kwargs)


def answer(**fields: Any) -> str:
    """A JSON answer text."""
    return json.dumps(fields)


def fail(status: int = 500, retryable: bool = True) -> JudgeCallError:
    return JudgeCallError(f"HTTP {status}", retryable=retryable, status=status)


def data_blocks(prompt: str) -> list[tuple[str, str]]:
    """``(name, content)`` of every data block in ``prompt`` (the nonce read from the text)."""
    import re

    match = re.search(r'<untrusted-([0-9a-f]{16}) name="', prompt)
    assert match, "no data block in the prompt"
    nonce = match.group(1)
    pattern = re.compile(rf'<untrusted-{nonce} name="([a-z_]+)">\n(.*?)\n</untrusted-{nonce}>', re.DOTALL)
    return pattern.findall(prompt)


def outside_blocks(prompt: str) -> str:
    """``prompt`` with every data block removed."""
    import re

    match = re.search(r'<untrusted-([0-9a-f]{16}) name="', prompt)
    if not match:
        return prompt
    nonce = match.group(1)
    return re.sub(
        rf'<untrusted-{nonce} name="[a-z_]+">\n.*?\n</untrusted-{nonce}>', "", prompt, flags=re.DOTALL
    )


def by_prompt(*rules: tuple[str, Union[Answer, Sequence[Answer]]]) -> Callable[[JudgeRequest], Answer]:
    """A responder routing on the prompt: the first rule whose text occurs in the prompt
    answers; a list of answers is used in turn, one per call (e.g. per sample)."""
    queues = [
        (needle, [answers] if isinstance(answers, (str, BaseException)) else list(answers))
        for needle, answers in rules
    ]
    used: dict[str, int] = {}

    def respond(request: JudgeRequest) -> Answer:
        for needle, answers in queues:
            if needle in request.prompt:
                index = used.get(needle, 0)
                used[needle] = index + 1
                if index >= len(answers):
                    raise AssertionError(f"no answer left for prompts containing {needle!r}")
                return answers[index]
        raise AssertionError(f"no rule matches the prompt: {request.prompt[:300]!r}")

    return respond


def verdict(valid: bool, reasoning: str = "because") -> str:
    return json.dumps({"reasoning": reasoning, "verdict": "valid" if valid else "invalid"})


def rubric_verdicts(**verdicts: str) -> str:
    return json.dumps(
        {
            "rubrics": [
                {"rubric_id": rid, "rationale": f"{rid} is {v}", "verdict": v} for rid, v in verdicts.items()
            ]
        }
    )


def sentences(*texts: str) -> str:
    return json.dumps({"sentences": list(texts)})


def labels(*values: str) -> str:
    return json.dumps(
        {
            "sentences": [
                {"id": f"s{i}", "label": v, "rationale": f"s{i} {v}"} for i, v in enumerate(values, start=1)
            ]
        }
    )


def turn(valid: bool, failing: str = "RESPONSIVENESS") -> str:
    criteria = [
        {"name": failing, "reasoning": "ignored the question" if not valid else "fine", "passes": valid}
    ]
    return json.dumps({"criteria": criteria, "is_valid": valid})
