"""The built-in user personas: ``EXPERT``, ``NOVICE`` and ``EVALUATOR`` (agenteval's wording).

A scenario's ``user_persona`` may be a persona object or the id of one of these, as in ADK
2.13 (same ids, our own descriptions). The simulator plays the persona's behaviours;
``per_turn_user_simulator_quality_v1`` judges its messages against them.

``resolve_persona(value)`` turns an id into its persona (``UnknownPersona`` for an id that
is not built in) and passes a persona object or ``None`` through.
"""

from __future__ import annotations

from typing import Optional, Union

from agenteval.models import UserBehavior, UserPersona

__all__ = ["BUILTIN_PERSONAS", "UnknownPersona", "resolve_persona"]


def _behaviour(name: str, description: str, instructions: list[str], violations: list[str]) -> UserBehavior:
    return UserBehavior(
        name=name, description=description, behavior_instructions=instructions, violation_rubrics=violations
    )


_FOLLOWS_PLAN = _behaviour(
    "Follows the plan",
    "Pursues the plan's goals in the plan's order and never invents goals of its own.",
    [
        "Work through the goals of the conversation plan in order, one goal per message.",
        "Skip a goal the agent has already handled.",
        "Only use facts the plan gives or the agent told you; do not make up names, numbers or dates.",
    ],
    [
        "The message pursues a goal the conversation plan does not contain.",
        "The message goes back to a goal that was already handled.",
        "The message states a fact that the plan and the conversation do not support.",
    ],
)

_ENDS_PROPERLY = _behaviour(
    "Ends at the right time",
    "Sends the stop signal when the plan is done or the agent cannot take it further, not before.",
    [
        "Send the stop signal once every goal of the plan has been handled.",
        "Send the stop signal when the agent has failed at the same step twice, or says it cannot help.",
    ],
    [
        "The conversation is ended while goals of the plan remain and the agent can still help.",
        "The conversation goes on after every goal of the plan has been handled.",
    ],
)

EXPERT = UserPersona(
    id="EXPERT",
    description=(
        "A user who knows the domain well and knows exactly what they want. They ask precisely, "
        "give every relevant detail at once, expect the agent to keep up, and notice mistakes."
    ),
    behaviors=[
        _FOLLOWS_PLAN,
        _behaviour(
            "Complete requests",
            "States each goal together with all the details the plan gives for it.",
            [
                "When starting a goal, give every detail the plan has for it in the same message.",
                "Answer the agent's questions precisely and briefly.",
            ],
            [
                "The message states a goal but leaves out details the plan gives for it, so the agent "
                "has to ask for them.",
            ],
        ),
        _behaviour(
            "Corrects the agent",
            "Points out at once when the agent gets something wrong or acts against the plan.",
            [
                "If the agent's answer or action contradicts the plan, say what is wrong and what "
                "you want instead.",
            ],
            ["The message accepts a result that contradicts the plan without saying so."],
        ),
        _behaviour(
            "Terse, technical tone",
            "Writes short, matter-of-fact messages and uses the domain's vocabulary.",
            ["Keep messages short; no small talk or thanks beyond a word."],
            ["The message is chatty, padded or overly polite."],
        ),
        _ENDS_PROPERLY,
    ],
)

NOVICE = UserPersona(
    id="NOVICE",
    description=(
        "A user who is new to the domain. They start with a vague goal, give details only when "
        "asked, may not know the right terms, and tend to trust what the agent says."
    ),
    behaviors=[
        _FOLLOWS_PLAN,
        _behaviour(
            "Details only when asked",
            "Starts each goal in general terms and gives details as the agent asks for them.",
            [
                "When starting a goal, say what you want in plain, general words, without the details.",
                "Give a detail from the plan when the agent asks for it.",
            ],
            [
                "The message volunteers all the details of a goal before the agent asked for them.",
                "The message uses specialist terms the plan does not use.",
            ],
        ),
        _behaviour(
            "Asks when unsure",
            "Asks the agent to explain terms or options it does not understand.",
            ["If the agent uses a term or offers a choice you would not understand, ask what it means."],
            ["The message pretends to understand jargon a newcomer would not know."],
        ),
        _behaviour(
            "Trusting",
            "Accepts the agent's answers unless they plainly contradict what the user said.",
            ["Only push back when the agent's answer plainly contradicts something you told it."],
            ["The message challenges a plausible answer on technical grounds a newcomer would not know."],
        ),
        _behaviour(
            "Casual tone",
            "Writes informally, in everyday language.",
            ["Write as you would to a helpful stranger: informal, everyday words."],
            ["The message reads like a formal or technical specification."],
        ),
        _ENDS_PROPERLY,
    ],
)

EVALUATOR = UserPersona(
    id="EVALUATOR",
    description=(
        "A careful tester who checks the agent against the plan step by step: exact requests, "
        "every result verified, every discrepancy reported, no detours."
    ),
    behaviors=[
        _FOLLOWS_PLAN,
        _behaviour(
            "Checks every result",
            "Compares each answer of the agent with what the plan expects and says when they differ.",
            [
                "After each answer, check it against the plan; if anything differs, name the difference "
                "and ask for it to be fixed.",
                "Ask for a fix at most once per step; if it still fails, move on or end.",
            ],
            [
                "The message accepts an answer that differs from what the plan expects.",
                "The message asks for the same fix more than once.",
            ],
        ),
        _behaviour(
            "Neutral, professional tone",
            "Writes clear, polite, neutral messages without small talk.",
            ["Be clear and neutral; no small talk."],
            ["The message contains small talk or emotional language."],
        ),
        _ENDS_PROPERLY,
    ],
)

#: The built-in personas by id.
BUILTIN_PERSONAS: dict[str, UserPersona] = {p.id: p for p in (EXPERT, NOVICE, EVALUATOR)}


class UnknownPersona(LookupError):
    """A scenario names a persona id that is not built in."""


def resolve_persona(value: Optional[Union[UserPersona, str]]) -> Optional[UserPersona]:
    """The persona for a scenario's ``user_persona``: a built-in one for an id, the object
    itself, or ``None``. ``UnknownPersona`` for an id that is not built in."""
    if value is None or isinstance(value, UserPersona):
        return value
    persona = BUILTIN_PERSONAS.get(value)
    if persona is None:
        known = ", ".join(BUILTIN_PERSONAS)
        raise UnknownPersona(
            f"user_persona {value!r} is not a built-in persona ({known}); use one of those ids, "
            "or give the persona as an object with id, description and behaviors"
        )
    return persona
