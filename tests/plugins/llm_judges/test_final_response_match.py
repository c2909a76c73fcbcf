"""``final_response_match_v2``: votes, failures and aggregation, with a scripted judge."""

from __future__ import annotations

from agenteval.testing import make_case
from agenteval_llm_judges.final_response_match import FinalResponseMatchV2
from agenteval_llm_judges_test_helpers import (
    Log,
    by_prompt,
    context,
    data_blocks,
    fail,
    inv,
    make,
    options,
    run,
    run_ctx,
    verdict,
)

F = FinalResponseMatchV2


def one(actual: str, answers, *, samples: int = 3, log=None, **params):
    return run(
        F,
        [inv("What is 2+2?", actual)],
        [inv("What is 2+2?", "4")],
        by_prompt(("", answers)),
        log=log,
        judge_model_options=options(num_samples=samples),
        **params,
    )


def test_majority_of_samples():
    assert one("four", [verdict(True), verdict(False), verdict(True)]).value == 1.0
    result = one("five", [verdict(False), verdict(True), verdict(False)])
    assert result.value == 0.0
    item = result.per_invocation[0]
    assert item.details["votes"] == {"valid": 1, "invalid": 2}
    assert item.reason.startswith("judged invalid by 2 of 3 samples")


def test_a_tie_is_invalid():
    result = one("four", [verdict(True), verdict(False)], samples=2)
    assert result.value == 0.0
    assert "a tie counts as invalid" in result.per_invocation[0].reason


def test_unusable_samples_do_not_vote():
    result = one("four", [verdict(True), "not json", fail(400, retryable=False)])
    item = result.per_invocation[0]
    assert item.score == 1.0  # ADK: any failed sample makes the invocation NOT_EVALUATED
    assert item.details["samples_used"] == 1 and item.details["samples_failed"] == 2
    assert item.details["sample_failures"] == {"judge_unparseable": 1, "judge_error": 1}
    kinds = sorted(s.get("verdict") or s["error"] for s in item.details["samples"])
    assert kinds == ["judge_error", "judge_unparseable", "valid"]


def test_no_usable_sample_is_not_evaluated_with_the_failure_code():
    unreadable = one("four", ["nope", "still nope", '{"verdict": "maybe", "reasoning": ""}'])
    assert unreadable.value is None
    assert unreadable.reason_code == "judge_unparseable"
    assert unreadable.per_invocation[0].reason_code == "judge_unparseable"
    assert "3 of 3 answers could not be read" in unreadable.per_invocation[0].reason
    broken = one("four", [fail(401, retryable=False)] * 3)
    assert (broken.value, broken.reason_code) == (None, "judge_error")
    mixed = one("four", ["nope", fail(401, retryable=False), fail(401, retryable=False)])
    assert mixed.per_invocation[0].reason_code == "judge_error"  # the most frequent failure


def test_a_judge_that_times_out():
    evaluator = make(F, judge_model_options=options(timeout_seconds=0.01, max_retries=0))
    ctx = context([inv("q", "a")], [inv("q", "r")])
    result = run_ctx(evaluator, ctx, verdict(True), delay=0.5)
    assert (result.value, result.reason_code) == (None, "judge_timeout")
    assert result.per_invocation[0].details["sample_failures"] == {"judge_timeout": 1}


def test_overall_is_valid_over_evaluated_invocations():
    actual = [inv("q1", "right"), inv("q2", "wrong"), inv("q3", "broken"), inv("q4", "right again")]
    expected = [inv("q1", "R1"), inv("q2", "R2"), inv("q3", "R3"), inv("q4", "R4")]
    responder = by_prompt(
        ('"right"', verdict(True)),
        ('"wrong"', verdict(False)),
        ('"broken"', "garbage"),
        ('"right again"', verdict(True)),
    )
    result = run(F, actual, expected, responder)
    assert [s.score for s in result.per_invocation] == [1.0, 0.0, None, 1.0]
    assert result.value == 2 / 3
    assert result.details["valid_invocations"] == 2 and result.details["evaluated_invocations"] == 3
    assert "1 of 4 invocations not evaluated: #3 (judge_unparseable)" in result.reason


def test_reference_missing_and_empty_response():
    log = Log()
    actual = [inv("q1", "anything"), inv("q2", ""), inv("q3", None)]
    expected = [inv("q1", None), inv("q2", "R2"), inv("q3", "R3")]
    result = run(F, actual, expected, verdict(True), log=log)
    assert [(s.score, s.reason_code) for s in result.per_invocation] == [
        (None, "no_reference"),
        (0.0, None),
        (0.0, None),
    ]
    assert log.requests == []  # nothing needed a judge
    assert result.value == 0.0


def test_prompt_inputs_and_request_settings():
    log = Log()
    actual = [inv("What the agent saw", "The answer is 4.")]
    expected = [inv("What is 2+2? (expected user text)", "4")]
    params = {"judge_model_options": options(temperature=0.0, judge_model_config={"top_k": 3})}
    run(F, actual, expected, verdict(True), log=log, **params)
    (request,) = log.requests
    blocks = dict(data_blocks(request.prompt))
    assert blocks == {
        "user_request": '"What is 2+2? (expected user text)"',  # ADK takes the expected user text
        "agent_response": '"The answer is 4."',
        "reference_response": '"4"',
    }
    assert request.response_schema["properties"]["verdict"]["enum"] == ["valid", "invalid"]
    assert request.temperature == 0.0 and request.config == {"top_k": 3}
    assert "reference answer" in request.system_instruction


def test_include_intermediate_responses_in_final():
    from agenteval.models import Content, IntermediateData, Invocation, Part

    got = Invocation(
        user_content=Content.from_text("q"),
        final_response=Content.from_text("Done.", role="model"),
        intermediate_data=IntermediateData(intermediate_responses=[("sub", [Part(text="It is 4.")])]),
    )
    log = Log()
    run(F, [got], [inv("q", "4")], verdict(True), log=log, include_intermediate_responses_in_final=True)
    assert dict(data_blocks(log.requests[0].prompt))["agent_response"] == '"It is 4.\\nDone."'


def test_details_and_planned_calls():
    evaluator = make(F, judge_model_options=options(num_samples=5))
    ctx = context([inv("a", "x"), inv("b", "y")], [inv("a", "X"), inv("b", None)])
    assert evaluator.planned_judge_calls(ctx) == 5  # the second has no reference
    result = run_ctx(evaluator, ctx, verdict(True))
    assert result.details["prompt_version"] == "final_response_match_v2/1"
    assert len(result.details["prompt_sha256"]) == 64


def test_without_a_judge_it_is_not_evaluated():
    import asyncio

    result = asyncio.run(make(F).evaluate(context([inv()], [inv()], case=make_case([inv()]))))
    assert (result.value, result.reason_code) == (None, "no_judge")
