"""``rubric_based_multi_turn_trajectory_quality_v1``: one judge call on the last invocation with
the whole conversation, the earlier invocations NOT_EVALUATED, ADK 2.13's transcript."""

from __future__ import annotations

import json

import pytest
from agenteval.models import AgentDetails, AppDetails, Rubric, RubricContent
from agenteval.testing import make_case
from agenteval_llm_judges._dialogue import dialogue
from agenteval_llm_judges.rubric_multi_turn_trajectory import RubricMultiTurnTrajectoryQuality
from agenteval_llm_judges_test_helpers import Log, context, data_blocks, inv, make, rubric_verdicts, run

TRAJECTORY = "TRAJECTORY_QUALITY"


def rubric(rubric_id: str, kind: str | None = TRAJECTORY) -> Rubric:
    return Rubric(
        rubric_id=rubric_id, rubric_content=RubricContent(text_property=f"P {rubric_id}."), type=kind
    )


def conversation():
    app = AppDetails(
        agent_details={
            "shop": AgentDetails(
                name="shop",
                instructions="Sell shoes.",
                tool_declarations=[
                    {"function_declarations": [{"name": "stock", "description": "In stock?"}]}
                ],
            )
        }
    )
    turns = [
        inv(
            "Do you have red shoes?",
            "Yes, size 42.",
            [("stock", {"colour": "red"})],
            form="events",
            author="shop",
        ),
        inv("Buy them", "Done.", form="events", author="shop"),
        inv("Thanks", "Bye!", form=None),
    ]
    return [t.model_copy(update={"app_details": app}) for t in turns]


def asked(request) -> list[str]:
    return request.response_schema["properties"]["rubrics"]["items"]["properties"]["rubric_id"]["enum"]


def test_one_call_at_the_last_invocation_with_the_whole_conversation():
    log = Log()
    case = make_case(conversation(), rubrics=[rubric("confirms"), rubric("polite"), rubric("other", None)])
    result = run(
        RubricMultiTurnTrajectoryQuality,
        conversation(),
        None,
        lambda request: rubric_verdicts(
            **{rid: "no" if rid == "polite" else "yes" for rid in asked(request)}
        ),
        log=log,
        case=case,
    )
    (request,) = log.requests
    assert asked(request) == ["confirms", "polite"]  # untyped rubrics are not TRAJECTORY_QUALITY
    assert [(s.score, s.reason_code) for s in result.per_invocation] == [
        (None, "earlier_turn"),
        (None, "earlier_turn"),
        (0.5, None),
    ]
    assert result.value == 0.5
    blocks = dict(data_blocks(request.prompt))
    lines = json.loads(blocks["conversation"]).split("\n")
    assert lines[0] == "USER TURN 1: Do you have red shoes?"
    assert 'AGENT (shop) TURN 1 (tool call): stock({"colour": "red"})' in lines
    assert lines[-2:] == ["USER TURN 3: Thanks", "AGENT (agent) TURN 3: Bye!"]
    assert json.loads(blocks["agent_instructions"]) == {"shop": "Sell shoes."}
    assert "stock" in blocks["agent_tools"]


def test_plans_one_question_per_case():
    criterion = make(
        RubricMultiTurnTrajectoryQuality,
        rubrics=[rubric("a").model_dump()],
        judge_model_options={"num_samples": 3},
    )
    ctx = context(conversation(), None)
    assert criterion.planned_judge_calls(ctx) == 3


def test_a_single_invocation_is_judged():
    result = run(
        RubricMultiTurnTrajectoryQuality,
        [inv("Hi", "Hello")],
        None,
        lambda request: rubric_verdicts(**{rid: "yes" for rid in asked(request)}),
        rubrics=[rubric("a").model_dump()],
    )
    assert [s.score for s in result.per_invocation] == [1.0] and result.value == 1.0


def test_without_rubrics_the_last_invocation_is_not_evaluated():
    result = run(RubricMultiTurnTrajectoryQuality, conversation(), None, lambda request: "{}")
    assert result.value is None
    assert result.per_invocation[-1].reason_code == "no_rubrics"


@pytest.mark.filterwarnings("ignore:.*EXPERIMENTAL")
def test_the_transcript_is_adk_s():
    """The same lines as ADK 2.13's own transcript of the same invocations."""
    adk = pytest.importorskip("google.adk.evaluation.rubric_based_multi_turn_trajectory_evaluator")
    from google.adk.evaluation.eval_case import Invocation as AdkInvocation
    from google.adk.evaluation.eval_metrics import EvalMetric

    ours = conversation()
    theirs = [
        AdkInvocation.model_validate(i.model_dump(mode="json", exclude_none=True, exclude={"app_details"}))
        for i in ours
    ]
    evaluator = adk.RubricBasedMultiTurnTrajectoryEvaluator(
        EvalMetric(
            metric_name="rubric_based_multi_turn_trajectory_quality_v1",
            criterion={"threshold": 0.5, "rubrics": [], "judge_model_options": {}},
        )
    )
    evaluator._assemble_dialogue_history(theirs)
    assert dialogue(ours) == evaluator._formatted_dialogue.split("\n")


def test_a_case_s_history_opens_the_transcript_and_is_not_judged():
    """A dataset's ``conversation_history`` (``ctx.history``) is part of the whole conversation."""
    from agenteval import EvaluationContext
    from agenteval_llm_judges_test_helpers import run_ctx

    history, judged = conversation()[:2], conversation()[2:]
    log = Log()
    case = make_case(conversation(), rubrics=[rubric("confirms")], context_turns=2)
    ctx = EvaluationContext(case=case, actual=judged, expected=None, threshold=0.8, history=history)
    criterion = make(RubricMultiTurnTrajectoryQuality)
    result = run_ctx(criterion, ctx, lambda request: rubric_verdicts(confirms="yes"), log)
    (request,) = log.requests
    lines = json.loads(dict(data_blocks(request.prompt))["conversation"]).split("\n")
    assert lines[0] == "USER TURN 1: Do you have red shoes?"
    assert lines[-2:] == ["USER TURN 3: Thanks", "AGENT (agent) TURN 3: Bye!"]
    assert json.loads(dict(data_blocks(request.prompt))["agent_instructions"]) == {"shop": "Sell shoes."}
    assert [s.score for s in result.per_invocation] == [1.0] and result.value == 1.0
