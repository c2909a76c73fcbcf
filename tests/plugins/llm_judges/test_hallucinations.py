"""``hallucinations_v1``: two stages per step, the step/invocation/case means, concurrency."""

from __future__ import annotations

import json

import pytest
from agenteval.models import Content, Invocation, InvocationEvent, InvocationEvents, Part
from agenteval_llm_judges.hallucinations import HallucinationsV1
from agenteval_llm_judges_test_helpers import (
    Log,
    context,
    data_blocks,
    fail,
    inv,
    labels,
    make,
    options,
    run,
    run_ctx,
    sentences,
)

H = HallucinationsV1


def with_intermediate(user: str, intermediate: str, final: str) -> Invocation:
    events = [
        InvocationEvent(author="agent", content=Content(role="model", parts=[Part(text=intermediate)])),
        InvocationEvent(author="agent"),
    ]
    return Invocation(
        user_content=Content.from_text(user),
        final_response=Content.from_text(final, role="model"),
        intermediate_data=InvocationEvents(invocation_events=events),
    )


def router(**texts: tuple[str, str]):
    """Segmenter and validator answers keyed by a marker in the checked text."""

    def respond(request):
        blocks = dict(data_blocks(request.prompt))
        if "response" in blocks:  # the segmenter
            text = json.loads(blocks["response"])
        else:
            text = json.loads(blocks["sentences"])[0]["sentence"]
        for marker, (segmented, labelled) in texts.items():
            if marker in text:
                return segmented if "response" in blocks else labelled
        raise AssertionError(text)

    return respond


def test_sentence_step_invocation_and_case_means():
    actual = [
        with_intermediate("q1", "STEP-A checking", "STEP-B final"),
        inv("q2", "STEP-C final"),
    ]
    responder = router(
        **{
            "STEP-A": (sentences("STEP-A checking"), labels("supported")),
            "STEP-B": (
                sentences("STEP-B one", "two", "three", "four"),
                labels("supported", "unsupported", "not_applicable", "contradictory"),
            ),
            "STEP-C": (sentences("STEP-C x"), labels("disputed")),
        }
    )
    log = Log()
    result = run(H, actual, None, responder, log=log, evaluate_intermediate_nl_responses=True)
    first, second = result.per_invocation
    steps = first.details["steps"]
    assert [(s["kind"], s["score"]) for s in steps] == [
        ("intermediate_response", 1.0),
        ("final_response", 0.5),
    ]
    # Each step weighs the same: (1.0 + 0.5) / 2, not 3 of 5 sentences.
    assert first.score == 0.75
    assert second.score == 0.0
    assert result.value == 0.375
    assert "2 of 5 sentences not supported" in first.reason
    assert len(log.requests) == 6  # two calls per step


def test_intermediate_texts_only_when_asked():
    actual = [with_intermediate("q", "STEP-A checking", "STEP-B final")]
    responder = router(**{"STEP-B": (sentences("STEP-B final"), labels("supported"))})
    log = Log()
    result = run(H, actual, None, responder, log=log)
    assert [s["kind"] for s in result.per_invocation[0].details["steps"]] == ["final_response"]
    assert len(log.requests) == 2


def test_num_samples_is_not_used():
    log = Log()
    responder = router(**{"ANS": (sentences("ANS"), labels("supported"))})
    run(H, [inv("q", "ANS")], None, responder, log=log, judge_model_options=options(num_samples=5))
    assert len(log.requests) == 2


def test_nothing_to_check():
    result = run(H, [inv("q", ""), inv("q", None)], None, "unused")
    assert [s.reason_code for s in result.per_invocation] == ["no_text_to_check", "no_text_to_check"]
    assert (result.value, result.reason_code) == (None, "no_text_to_check")


def test_segmenter_finds_nothing():
    result = run(H, [inv("q", "🙂")], None, sentences())
    assert (result.value, result.reason_code) == (None, "no_sentences")


@pytest.mark.parametrize(
    "segmenter, validator, code",
    [
        (fail(400, retryable=False), None, "judge_error"),
        ("not json", None, "judge_unparseable"),
        (sentences("a", "b"), labels("supported"), "judge_unparseable"),  # sentence s2 unlabelled
        (sentences("a"), fail(400, retryable=False), "judge_error"),
    ],
)
def test_stage_failures(segmenter, validator, code):
    def respond(request):
        return segmenter if "response" in dict(data_blocks(request.prompt)) else validator

    result = run(H, [inv("q", "a")], None, respond)
    (item,) = result.per_invocation
    assert (item.score, item.reason_code) == (None, code)
    step = item.details["steps"][0]
    assert step["error"] == code
    assert step["message"].startswith("segmenting" if validator is None else "validating")


def test_a_failed_step_leaves_the_others():
    actual = [with_intermediate("q", "STEP-A", "STEP-B")]
    responder = router(**{"STEP-A": (sentences("STEP-A"), labels("supported")), "STEP-B": ("garbage", "")})
    (item,) = run(H, actual, None, responder, evaluate_intermediate_nl_responses=True).per_invocation
    assert item.score == 1.0
    assert item.details["steps_not_evaluated"] == 1


def test_validator_sees_the_context_and_legacy_tool_data():
    from agenteval.models import FunctionCall, FunctionResponse, IntermediateData

    got = Invocation(
        user_content=Content.from_text("Roll a d6"),
        final_response=Content.from_text("You rolled a 4.", role="model"),
        intermediate_data=IntermediateData(
            tool_uses=[FunctionCall(name="roll", args={"sides": 6})],
            tool_responses=[FunctionResponse(name="roll", response={"result": 4})],
        ),
    )
    log = Log()
    responder = router(**{"rolled": (sentences("You rolled a 4."), labels("supported"))})
    assert run(H, [got], None, responder, log=log).value == 1.0
    validator = next(r for r in log.requests if "sentences" in dict(data_blocks(r.prompt)))
    context_block = json.loads(dict(data_blocks(validator.prompt))["context"])
    assert context_block["user_prompt"] == "Roll a d6"
    assert context_block["tool_activity"][0]["tool_response"]["response"] == {"result": 4}
    assert validator.response_schema["properties"]["sentences"]["items"]["properties"]["id"]["enum"] == ["s1"]


def test_steps_and_invocations_run_concurrently():
    actual = [inv(f"q{i}", f"ANSWER-{i}") for i in range(4)]
    log = Log()
    evaluator = make(H)
    ctx = context(actual)
    assert evaluator.planned_judge_calls(ctx) == 8
    result = run_ctx(
        evaluator, ctx, router(**{"ANSWER": (sentences("ANSWER-x"), labels("supported"))}), log, delay=0.05
    )
    assert result.value == 1.0
    assert log.max_in_flight == 4  # the four segmenter calls at once
