"""``per_turn_user_simulator_quality_v1``: first turn, judged turns, the stop check, the mean."""

from __future__ import annotations

import json

from agenteval.models import ConversationScenario, UserBehavior, UserPersona
from agenteval.testing import make_case
from agenteval_llm_judges.user_simulator_quality import PerTurnUserSimulatorQuality
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
    turn,
)

U = PerTurnUserSimulatorQuality
PLAN = "Ask for a d20 roll, then ask whether the result is prime, then stop."


def scenario_case(start: str = "Roll a die for me", persona=None):
    scenario = ConversationScenario(starting_prompt=start, conversation_plan=PLAN, user_persona=persona)
    return make_case(scenario=scenario)


def generated(request) -> str:
    return json.loads(dict(data_blocks(request.prompt))["generated_user_message"])


def by_message(**answers):
    """Answers keyed by the generated user message (``STOP`` for the stop signal)."""

    def respond(request):
        message = generated(request)
        key = "STOP" if message == "</finished>" else message
        value = answers[key]
        return value.pop(0) if isinstance(value, list) else value

    return respond


CONVERSATION = [
    inv(" Roll a die for me ", "Sure, how many sides?"),
    inv("Twenty", "You rolled 17."),
    inv("Is it prime?", "Yes, 17 is prime."),
]


def test_first_turn_is_exact_match_without_a_judge_call():
    log = Log()
    result = run(
        U,
        CONVERSATION,
        None,
        by_message(Twenty=turn(True), **{"Is it prime?": turn(True)}, STOP=turn(True)),
        log=log,
        case=scenario_case(),
    )
    assert [s.score for s in result.per_invocation] == [1.0, 1.0, 1.0]
    assert result.per_invocation[0].details == {"starting_prompt_matches": True}
    assert sorted(generated(r) for r in log.requests) == ["</finished>", "Is it prime?", "Twenty"]
    mismatch = run(
        U,
        [inv("Roll two dice")],
        None,
        by_message(STOP=turn(True)),
        case=scenario_case(),
    )
    assert mismatch.value == 0.0
    assert "is not the scenario's starting_prompt" in mismatch.per_invocation[0].reason


def test_judged_turns_and_history():
    log = Log()
    result = run(
        U,
        CONVERSATION,
        None,
        by_message(Twenty=turn(True), **{"Is it prime?": turn(False)}, STOP=turn(True)),
        log=log,
        case=scenario_case(),
    )
    assert [s.score for s in result.per_invocation] == [1.0, 1.0, 0.0]
    assert result.value == 2 / 3
    assert "RESPONSIVENESS: ignored the question" in result.per_invocation[2].reason
    third = next(r for r in log.requests if generated(r) == "Is it prime?")
    history = json.loads(dict(data_blocks(third.prompt))["conversation_history"])
    assert history == [
        {"role": "user", "text": " Roll a die for me "},
        {"role": "agent", "text": "Sure, how many sides?"},
        {"role": "user", "text": "Twenty"},
        {"role": "agent", "text": "You rolled 17."},
    ]
    assert PLAN in third.prompt
    stop = next(r for r in log.requests if generated(r) == "</finished>")
    assert len(json.loads(dict(data_blocks(stop.prompt))["conversation_history"])) == 6


def test_a_failed_stop_check_replaces_the_last_turn():
    result = run(
        U,
        CONVERSATION,
        None,
        by_message(
            Twenty=turn(True), **{"Is it prime?": turn(True)}, STOP=turn(False, "STOP_CONDITION_FOLLOWED")
        ),
        case=scenario_case(),
    )
    last = result.per_invocation[-1]
    assert last.score == 0.0
    assert last.details["replaced_by_stop_check"] is True
    assert "stop signal after this turn was judged wrong" in last.reason
    assert result.value == 2 / 3


def test_a_passing_stop_check_is_recorded():
    result = run(
        U,
        CONVERSATION[:2],
        None,
        by_message(Twenty=turn(True), STOP=turn(True)),
        case=scenario_case(),
    )
    assert result.per_invocation[-1].details["stop_check"]["score"] == 1.0


def test_no_extra_stop_check_when_the_last_message_is_the_stop_signal():
    log = Log()
    conversation = [*CONVERSATION[:2], inv("Thanks! </finished>", "")]
    evaluator = make(U)
    ctx = context(conversation, case=scenario_case())
    assert evaluator.planned_judge_calls(ctx) == 2
    result = run_ctx(
        evaluator, ctx, by_message(Twenty=turn(True), **{"Thanks! </finished>": turn(True)}), log
    )
    assert result.value == 1.0
    assert len(log.requests) == 2


def test_not_evaluated_turns_are_left_out_of_the_mean():
    result = run(
        U,
        CONVERSATION,
        None,
        by_message(Twenty=fail(400, retryable=False), **{"Is it prime?": turn(True)}, STOP=turn(True)),
        case=scenario_case(),
    )
    assert [(s.score, s.reason_code) for s in result.per_invocation] == [
        (1.0, None),
        (None, "judge_error"),
        (1.0, None),
    ]
    assert result.value == 1.0  # ADK: (1 + 1) / 3


def test_majority_with_ties_failing():
    result = run(
        U,
        CONVERSATION[:2],
        None,
        by_message(Twenty=[turn(True), turn(False)], STOP=[turn(True), turn(True)]),
        case=scenario_case(),
        judge_model_options=options(num_samples=2),
    )
    assert [s.score for s in result.per_invocation] == [1.0, 0.0]
    assert "a tie counts as invalid" in result.per_invocation[1].reason


def test_persona_behaviours_replace_the_default_criteria():
    persona = UserPersona(
        id="terse",
        description="A terse expert.",
        behaviors=[
            UserBehavior(
                name="BE_TERSE",
                description="Uses few words.",
                behavior_instructions=["Answer in five words or fewer."],
                violation_rubrics=["The message has more than five words."],
            )
        ],
    )
    log = Log()
    run(
        U,
        CONVERSATION[:2],
        None,
        by_message(Twenty=turn(True), STOP=turn(True)),
        log=log,
        case=scenario_case(persona=persona),
    )
    system = log.requests[0].system_instruction
    assert "BE_TERSE" in system and "Answer in five words or fewer." in system
    assert "CONVERSATIONAL_TONE" not in system
    assert "A terse expert." in log.requests[0].prompt
    log = Log()
    run(
        U,
        CONVERSATION[:2],
        None,
        by_message(Twenty=turn(True), STOP=turn(True)),
        log=log,
        case=scenario_case(),
    )
    assert "CONVERSATION_PLAN_FOLLOWED" in log.requests[0].system_instruction


def test_custom_stop_signal():
    log = Log()
    run(
        U,
        CONVERSATION[:1],
        None,
        by_prompt(("[[DONE]]", turn(True))),
        log=log,
        case=scenario_case(),
        stop_signal="[[DONE]]",
    )
    (request,) = log.requests
    assert generated(request) == "[[DONE]]" and '"[[DONE]]"' in request.system_instruction


def test_cases_without_a_scenario():
    result = run(U, [inv("q", "a")], [inv("q", "a")], "unused")
    assert (result.value, result.reason_code) == (None, "no_conversation_scenario")
    assert make(U).planned_judge_calls(context([inv()], [inv()])) == 0
