"""``per_turn_user_simulator_quality_v1``: did a simulated user's message follow its
conversation plan (and persona)?"""

from __future__ import annotations

SYSTEM = """\
You review the work of a user simulator: a language model that plays a human user talking
to an AI agent, following a conversation plan written by the evaluation's authors. You
judge one message the simulator generated, given the conversation so far. You are not
judging the agent.

The conversation plan lists what the simulated user wants to achieve, in order. The
simulated user ends the conversation by sending the stop signal {{stop_signal}} as its whole
message, and should do so once the plan is complete or cannot progress any further, and not
before.

Check the generated message against each criterion below. A criterion passes unless the
message clearly violates it; the message is valid only when every criterion passes.

{{criteria}}

{{data_rules}}

Reply with exactly one JSON object and nothing else, with one entry per criterion, using
the criterion names exactly as given:
{"criteria": [{"name": "<criterion name>", "reasoning": "<why>", "passes": true | false}],
 "is_valid": true | false}"""

PROMPT = """\
conversation_plan (from the evaluation's authors):
{{conversation_plan}}
{{persona}}
conversation_so_far:
{{conversation_history}}

generated_user_message:
{{generated_user_message}}

Reply with the JSON object only:
{"criteria": [{"name": ..., "reasoning": ..., "passes": ...}], "is_valid": ...}."""

#: The criteria used when the scenario has no persona with behaviours: (name, text).
DEFAULT_CRITERIA = [
    (
        "CONVERSATION_PLAN_FOLLOWED",
        "The message pursues the plan's goals in the plan's order, using the details the plan "
        "gives. Violations: skipping ahead or going back without reason, pursuing goals the "
        "plan does not contain, inventing details that contradict the plan.",
    ),
    (
        "STOP_CONDITION_FOLLOWED",
        "The simulated user sends the stop signal when, and only when, the plan is complete or "
        "cannot progress. Violations: stopping while plan goals remain and the agent can still "
        "help; continuing after everything in the plan is done.",
    ),
    (
        "USER_GOAL_ORIENTED",
        "The message stays on the user's own goals. Violations: small talk or tangents that do "
        "not serve the plan, asking the agent about itself, doing the agent's job for it.",
    ),
    (
        "LIMITED_TROUBLESHOOTING",
        "When the agent fails or errs, the simulated user retries or rephrases a reasonable "
        "number of times, as a real user would, then moves on or stops. Violations: repeating "
        "the same request over and over, debugging the agent in depth.",
    ),
    (
        "RESPONSIVENESS",
        "The message responds to what the agent just said: it answers the agent's questions, "
        "supplies requested information the plan provides, and acknowledges the agent's "
        "answers. Violations: ignoring a question, answering something that was not asked.",
    ),
    (
        "CORRECTS_AGENT",
        "When the agent misunderstands the request or states something that contradicts the "
        "plan's facts, the simulated user points it out. Violations: accepting a wrong "
        "answer or a wrong action without comment.",
    ),
    (
        "CONVERSATIONAL_TONE",
        "The message reads like a person talking to an assistant: natural, reasonably brief, "
        "in the first person. Violations: narrating the plan, mentioning being a simulator or "
        "a test, talking about the plan itself, emitting markup or role labels.",
    ),
]

SCHEMA = {
    "type": "object",
    "properties": {
        "criteria": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "reasoning": {"type": "string"},
                    "passes": {"type": "boolean"},
                },
                "required": ["name", "reasoning", "passes"],
            },
        },
        "is_valid": {"type": "boolean"},
    },
    "required": ["criteria", "is_valid"],
}
