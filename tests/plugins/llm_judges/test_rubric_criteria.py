"""The rubric criteria: per-invocation rubrics, votes, pooling, and rubric problems."""

from __future__ import annotations

import json

import pytest
from agenteval.models import Rubric, RubricContent
from agenteval.testing import make_case
from agenteval_llm_judges.rubric_final_response import RubricFinalResponseQuality
from agenteval_llm_judges.rubric_tool_use import RubricToolUseQuality
from agenteval_llm_judges_test_helpers import (
    Log,
    by_prompt,
    context,
    data_blocks,
    inv,
    make,
    options,
    rubric_verdicts,
    run,
    run_ctx,
)

FINAL = "FINAL_RESPONSE_QUALITY"
TOOLS = "TOOL_USE_QUALITY"


def rub(rubric_id: str, text: str | None = None, kind: str | None = None) -> dict:
    return {
        "rubric_id": rubric_id,
        "rubric_content": {"text_property": text or f"Property {rubric_id}."},
        "type": kind,
    }


def model(data: dict) -> Rubric:
    return Rubric(
        rubric_id=data["rubric_id"], rubric_content=RubricContent(**data["rubric_content"]), type=data["type"]
    )


def with_rubrics(invocation, *rubrics: dict):
    return invocation.model_copy(update={"rubrics": [model(r) for r in rubrics]})


def asked_ids(request) -> list[str]:
    return request.response_schema["properties"]["rubrics"]["items"]["properties"]["rubric_id"]["enum"]


def echo(verdicts: dict[str, str]):
    """Answers every rubric the request asks about, from ``verdicts`` (default yes)."""

    def respond(request):
        return rubric_verdicts(**{rid: verdicts.get(rid, "yes") for rid in asked_ids(request)})

    return respond


def test_each_invocation_is_scored_against_its_own_rubrics():
    # ADK 2.13 parses every answer against the last invocation's rubrics, so invocation 1
    # would be NOT_EVALUATED there.
    expected = [
        with_rubrics(inv("q1", "a1"), rub("first_only", kind=FINAL)),
        with_rubrics(inv("q2", "a2"), rub("second_only", kind=FINAL)),
    ]
    log = Log()
    result = run(
        RubricFinalResponseQuality,
        [inv("q1", "A1"), inv("q2", "A2")],
        expected,
        echo({"first_only": "no"}),
        log=log,
    )
    assert [s.score for s in result.per_invocation] == [0.0, 1.0]
    assert sorted(asked_ids(r) for r in log.requests) == [["first_only"], ["second_only"]]
    assert result.value == 0.5


def test_overall_pools_rubric_scores_across_invocations():
    case = make_case([inv("q1", "a"), inv("q2", "b")], rubrics=[model(rub("k", kind=FINAL))])
    expected = [
        with_rubrics(inv("q1", "a"), rub("x", kind=FINAL), rub("y", kind=FINAL)),
        inv("q2", "b"),
    ]
    responder = by_prompt(
        ('"q1"', rubric_verdicts(c="yes", k="no", x="yes", y="yes")),
        ('"q2"', rubric_verdicts(c="yes", k="yes")),
    )
    result = run(
        RubricFinalResponseQuality,
        [inv("q1", "A"), inv("q2", "B")],
        expected,
        responder,
        case=case,
        rubrics=[rub("c")],
    )
    # invocation 1: c, k, x, y = 1, 0, 1, 1 -> 0.75; invocation 2: c, k = 1, 1 -> 1.0.
    assert [s.score for s in result.per_invocation] == [0.75, 1.0]
    # Pooled over the 6 rubric verdicts: 5/6 (the mean of invocations would be 0.875).
    assert result.value == pytest.approx(5 / 6)
    scores = {e["rubric_id"]: (e["score"], e["invocations"]) for e in result.details["rubric_scores"]}
    assert scores == {"c": (1.0, 2), "k": (0.5, 2), "x": (1.0, 1), "y": (1.0, 1)}


def test_per_rubric_majority_tie_is_no_and_not_applicable_is_met():
    answers = [
        rubric_verdicts(a="yes", b="no", c="not_applicable", d="yes"),
        rubric_verdicts(a="no", b="no", c="Not Applicable", d="no"),
        rubric_verdicts(a="yes", b="yes", c="no", d="garbage"),  # unparseable: d's verdict is not a label
        rubric_verdicts(a="yes", b="yes", c="no", d="no"),
    ]
    log = Log()
    result = run(
        RubricToolUseQuality,
        [inv("q", "a")],
        None,
        by_prompt(("", answers)),
        log=log,
        rubrics=[rub("a"), rub("b"), rub("c"), rub("d")],
        judge_model_options=options(num_samples=4),
    )
    (item,) = result.per_invocation
    got = {e["rubric_id"]: (e["verdict"], e["score"], e["votes"]) for e in item.details["rubrics"]}
    # 3 usable samples. a: yes,no,yes -> yes; b: no,no,yes -> no; c: na,na,no -> met;
    # d: yes,no,no -> no.
    assert got["a"][:2] == ("yes", 1.0)
    assert got["b"][:2] == ("no", 0.0)
    assert got["c"] == ("not_applicable", 1.0, {"not_applicable": 2, "no": 1})
    assert got["d"][:2] == ("no", 0.0)
    assert item.score == 0.5
    assert item.details["samples_used"] == 3 and item.details["samples_failed"] == 1
    assert [s.get("score") for s in item.details["samples"] if "score" in s] == [0.75, 0.25, 0.5]
    assert "2 of 4 rubrics not met" in item.reason


def test_a_tie_between_samples_is_no():
    result = run(
        RubricToolUseQuality,
        [inv("q", "a")],
        None,
        by_prompt(("", [rubric_verdicts(r="yes"), rubric_verdicts(r="no")])),
        rubrics=[rub("r")],
        judge_model_options=options(num_samples=2),
    )
    assert result.value == 0.0


def test_a_sample_missing_a_rubric_does_not_vote():
    result = run(
        RubricFinalResponseQuality,
        [inv("q", "a")],
        None,
        by_prompt(("", [rubric_verdicts(r1="no"), rubric_verdicts(r1="yes", r2="yes")])),
        rubrics=[rub("r1"), rub("r2")],
        judge_model_options=options(num_samples=2),
    )
    (item,) = result.per_invocation
    assert item.score == 1.0
    assert "no verdict for rubric(s) 'r2'" in item.details["samples"][0]["message"]


def test_duplicate_ids_make_only_that_invocation_not_evaluated():
    expected = [with_rubrics(inv("q1", "a"), rub("r", kind=FINAL)), inv("q2", "b")]
    log = Log()
    result = run(
        RubricFinalResponseQuality,
        [inv("q1", "A"), inv("q2", "B")],
        expected,
        echo({}),
        log=log,
        rubrics=[rub("r")],
    )
    first, second = result.per_invocation
    assert (first.score, first.reason_code) == (None, "duplicate_rubric_id")
    assert "'r' (criterion, expected invocation)" in first.reason
    assert second.score == 1.0
    assert len(log.requests) == 1
    assert result.value == 1.0


def test_no_rubrics_names_the_type_filter():
    case = make_case([inv("q", "a")], rubrics=[model(rub("polite"))])
    expected = [with_rubrics(inv("q", "a"), rub("uses_search", kind=TOOLS))]
    result = run(RubricFinalResponseQuality, [inv("q", "A")], expected, echo({}), case=case)
    assert (result.value, result.reason_code) == (None, "no_rubrics")
    assert "'polite' (case, no type)" in result.reason
    assert "'uses_search' (expected invocation, type 'TOOL_USE_QUALITY')" in result.reason
    assert result.per_invocation[0].details["rubrics_filtered_out"] == ["polite", "uses_search"]
    # The same rubrics serve the tool-use criterion, where their type matches.
    tool_use = run(RubricToolUseQuality, [inv("q", "A")], expected, echo({}), case=case)
    assert tool_use.value == 1.0
    assert tool_use.details["rubrics_filtered_out"] == ["polite"]


def test_expected_rubrics_that_cannot_be_paired():
    expected = [with_rubrics(inv("q1", "a"), rub("r", kind=FINAL))]
    ctx = context([inv("q1", "A"), inv("q2", "B")], expected, case=make_case(expected))
    evaluator = make(RubricFinalResponseQuality, rubrics=[rub("c")])
    assert evaluator.planned_judge_calls(ctx) == 0
    result = run_ctx(evaluator, ctx, echo({}))
    assert (result.value, result.reason_code) == (None, "invocation_count_mismatch")


def test_planned_calls_and_judge_failures():
    from agenteval_llm_judges_test_helpers import fail

    expected = [with_rubrics(inv("q1", "a"), rub("r", kind=FINAL)), inv("q2", "b")]
    ctx = context([inv("q1", "A"), inv("q2", "B")], expected, case=make_case(expected))
    evaluator = make(RubricFinalResponseQuality, judge_model_options=options(num_samples=3, max_retries=0))
    assert evaluator.planned_judge_calls(ctx) == 3  # q2 has no rubric
    result = run_ctx(evaluator, ctx, fail(503))
    assert [s.reason_code for s in result.per_invocation] == ["judge_error", "no_rubrics"]
    assert result.reason_code == "no_scored_invocations"


def test_prompt_inputs_final_response():
    from agenteval.models import AgentDetails, AppDetails

    app = AppDetails(
        agent_details={
            "agent": AgentDetails(
                name="agent",
                instructions="You help with weather.",
                tool_declarations=[{"function_declarations": [{"name": "get_weather"}]}],
            )
        }
    )
    got = inv("Weather?", "Sunny.", [("get_weather", {"city": "Paris"})], form="events")
    got = got.model_copy(update={"app_details": app})
    log = Log()
    run(RubricFinalResponseQuality, [got], None, echo({}), log=log, rubrics=[rub("r", "Says the weather.")])
    (request,) = log.requests
    blocks = {name: json.loads(value) for name, value in data_blocks(request.prompt)}
    assert blocks["developer_instructions"] == "You help with weather."
    assert blocks["available_tools"] == {"agent": [{"function_declarations": [{"name": "get_weather"}]}]}
    assert blocks["user_prompt"] == "Weather?"
    assert blocks["response_steps"][0]["tool_call"] == {"name": "get_weather", "args": {"city": "Paris"}}
    assert blocks["grounding_metadata"] == []
    assert blocks["final_answer"] == "Sunny."
    assert '"property": "Says the weather."' in request.prompt
    assert request.response_schema["properties"]["rubrics"]["items"]["properties"]["verdict"]["enum"] == [
        "yes",
        "no",
        "not_applicable",
    ]


def test_tool_use_rubrics_declare_that_reports_show_the_trajectory():
    """Reports show tool calls as its evidence because it says so (they guessed from the name)."""
    from agenteval_llm_judges.rubric_final_response import RubricFinalResponseQuality
    from agenteval_llm_judges.rubric_tool_use import RubricToolUseQuality

    assert RubricToolUseQuality.info.shows_trajectory is True
    assert RubricFinalResponseQuality.info.shows_trajectory is False
