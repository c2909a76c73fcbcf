"""``per_turn_user_simulator_quality_v1``: an LLM judge checks each message of a simulated
user against the conversation plan, as ADK 2.13's PerTurnUserSimulatorQualityV1."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

from agenteval import EvaluationContext, EvaluatorInfo, InvocationScore, JudgeOptions, Score
from agenteval import Params as ParamsBase
from agenteval.models import ConversationScenario, Invocation, UserPersona
from pydantic import Field

from ._context import user_text
from ._judge import (
    JudgeCriterion,
    Sample,
    ask,
    failure,
    gather,
    not_scored,
    sample_counts,
    shorten,
    summarise,
)
from ._parsing import entries, label, require, text_field
from ._prompts import user_simulator_quality as prompts
from ._render import encode, nonce_for, render
from ._voting import JudgeSampling
from .personas import BUILTIN_PERSONAS

__all__ = ["PROMPT_VERSION", "PerTurnUserSimulatorQuality", "TurnVerdict", "read_turn_verdict"]

PROMPT_VERSION = "per_turn_user_simulator_quality_v1/1"

_BOOLEAN = {
    "true": "true",
    "valid": "true",
    "yes": "true",
    "false": "false",
    "invalid": "false",
    "no": "false",
}


@dataclass(frozen=True)
class TurnVerdict:
    """One sample's verdict on one generated user message."""

    is_valid: bool
    criteria: list[dict[str, Any]]


def read_turn_verdict(obj: dict[str, Any]) -> TurnVerdict:
    """``{"criteria": [{"name", "reasoning", "passes"}], "is_valid": bool}``."""
    keyed = require(obj, "criteria", "is_valid")
    criteria = []
    for index, entry in entries(keyed, "criteria", "name", "reasoning", "passes"):
        passes = label(entry["passes"], _BOOLEAN, f"criteria[{index}].passes") == "true"
        criteria.append(
            {"name": text_field(entry, "name"), "passes": passes, "reasoning": text_field(entry, "reasoning")}
        )
    return TurnVerdict(is_valid=label(keyed["is_valid"], _BOOLEAN, "is_valid") == "true", criteria=criteria)


def _criteria_text(persona: Optional[UserPersona | str]) -> str:
    if isinstance(persona, UserPersona) and persona.behaviors:
        behaviours = [
            {
                "name": b.name,
                "description": b.description,
                "instructions": b.behavior_instructions,
                "violations": b.violation_rubrics,
            }
            for b in persona.behaviors
        ]
        return (
            "The criteria are the behaviours of the simulated user's persona (from the evaluation's "
            "authors). Each behaviour is one criterion, named by its name; it is violated when the "
            "message breaks its instructions or matches one of its violations:\n"
            + encode(behaviours, indent=2)
        )
    lines = [f"- {name}: {text}" for name, text in prompts.DEFAULT_CRITERIA]
    return "The criteria:\n" + "\n".join(lines)


def _persona_text(persona: Optional[UserPersona | str]) -> str:
    if persona is None:
        return ""
    if isinstance(persona, str):
        return f"\npersona: the simulated user plays the built-in persona {encode(persona)}.\n"
    described = {"id": persona.id, "description": persona.description}
    return f"\npersona (from the evaluation's authors):\n{encode(described, indent=2)}\n"


class PerTurnUserSimulatorQuality(JudgeCriterion):
    """An LLM judge checks each simulated-user message against the scenario: share of valid turns.

    Score: in [0, 1], higher is better. It judges the *user simulator* of a
    conversation-scenario case, not the agent. Turn 1 scores 1.0 when its user text equals
    the scenario's ``starting_prompt`` (both stripped), else 0.0, without a judge call.
    Each later turn is judged (``num_samples`` samples, majority, a tie fails) on the plan,
    the conversation before it and the generated message, against seven criteria or the
    persona's behaviours (a built-in persona id, ``EXPERT`` / ``NOVICE`` / ``EVALUATOR``,
    stands for that persona of ``agenteval_llm_judges.personas``). Then the stop signal is
    judged as one more message after the last turn; if that fails, it replaces the last
    turn's result (ADK's rule). The case score is the mean over evaluated turns (ADK
    divides by all turns, NOT_EVALUATED ones included).

    NOT_EVALUATED: a case without ``conversation_scenario`` (``no_conversation_scenario``);
    a turn with no usable sample (the failure's code). ``details`` per turn: ``samples``
    (``is_valid`` and per-criterion ``passes`` / ``reasoning``), ``votes``; the last turn's
    ``stop_check``.
    """

    PROMPT_VERSION = PROMPT_VERSION
    TEMPLATES = (prompts.SYSTEM, prompts.PROMPT, "\n".join(n + t for n, t in prompts.DEFAULT_CRITERIA))

    info = EvaluatorInfo(
        description="LLM judge: share of simulated-user turns that follow the scenario's plan.",
        default_threshold=0.8,
        requires_judge=True,
    )

    class Params(ParamsBase):
        """ADK's ``LlmBackedUserSimulatorCriterion`` keys."""

        judge_model_options: JudgeOptions = Field(
            default_factory=JudgeOptions, description="Judge model, samples and call settings."
        )
        stop_signal: str = Field(
            default="</finished>", description="The message the simulated user sends to end the conversation."
        )
        judge_sampling: JudgeSampling = Field(
            default_factory=JudgeSampling,
            description="When to stop sampling: curtailed majority (default), all samples, or sequential.",
        )

    params: Params

    def _ends_with_stop(self, actual: list[Invocation]) -> bool:
        return bool(actual) and self.params.stop_signal in user_text(actual[-1])

    def planned_judge_calls(self, ctx: EvaluationContext) -> int:
        self.adopt_run(ctx)
        if ctx.case.conversation_scenario is None or not ctx.actual:
            return 0
        turns = len(ctx.actual) - 1 + (0 if self._ends_with_stop(list(ctx.actual)) else 1)
        return turns * self.samples_per_question

    def build_prompt(
        self, scenario: ConversationScenario, history: list[Invocation], message: str
    ) -> tuple[str, str]:
        """The system instruction and the prompt for one generated user message."""
        conversation = []
        for turn in history:
            conversation.append({"role": "user", "text": user_text(turn)})
            conversation.append({"role": "agent", "text": turn.final_text()})
        untrusted = {"conversation_history": conversation, "generated_user_message": message}
        # A built-in persona id is judged against that persona's behaviours, as the
        # simulator played them; an unknown id keeps only its name.
        persona = scenario.user_persona
        if isinstance(persona, str):
            persona = BUILTIN_PERSONAS.get(persona, persona)
        trusted = {
            "conversation_plan": encode(scenario.conversation_plan),
            "persona": _persona_text(persona),
            "criteria": _criteria_text(persona),
            "stop_signal": json.dumps(self.params.stop_signal, ensure_ascii=False),
        }
        nonce = nonce_for({**untrusted, **trusted}, PROMPT_VERSION)
        system = render(prompts.SYSTEM, untrusted={}, trusted=trusted, nonce=nonce)
        return system, render(prompts.PROMPT, untrusted=untrusted, trusted=trusted, nonce=nonce)

    async def evaluate(self, ctx: EvaluationContext) -> Score:
        scenario = ctx.case.conversation_scenario
        if scenario is None:
            return Score.not_evaluated(
                "per_turn_user_simulator_quality_v1 judges a simulated user, and this case has no "
                "conversation_scenario",
                "no_conversation_scenario",
                details=self.prompt_identity(),
            )
        blocked = self.without_judge(ctx)
        if blocked is not None:
            return blocked
        actual = list(ctx.actual)
        if not actual:
            return Score.not_evaluated("the case has no invocations to score", "no_invocations")
        first = _first_turn(scenario, actual[0])
        judged = [self._judge(ctx, scenario, actual[:i], user_text(actual[i])) for i in range(1, len(actual))]
        stop_needed = not self._ends_with_stop(actual)
        if stop_needed:
            judged.append(self._judge(ctx, scenario, actual, self.params.stop_signal))
        results = await gather(judged)
        scores = [first, *results[: len(actual) - 1]]
        if stop_needed:
            stop = results[-1]
            last = scores[-1]
            stop_detail = {
                "score": stop.score,
                "reason": stop.reason,
                "reason_code": stop.reason_code,
                **stop.details,
            }
            if stop.score == 0.0:
                scores[-1] = InvocationScore(
                    score=0.0,
                    reason=f"the stop signal after this turn was judged wrong: {stop.reason}",
                    details={**last.details, "replaced_by_stop_check": True, "stop_check": stop_detail},
                )
            else:
                scores[-1] = last.model_copy(update={"details": {**last.details, "stop_check": stop_detail}})
        return summarise(scores, ctx.threshold, details=self.prompt_identity())

    async def _judge(
        self, ctx: EvaluationContext, scenario: ConversationScenario, history: list[Invocation], message: str
    ) -> InvocationScore:
        system, prompt = self.build_prompt(scenario, history, message)
        samples = await ask(
            ctx.judge,
            self.request(system, prompt, prompts.SCHEMA),
            self.options,
            read_turn_verdict,
            sampling=self.sampling,
            votes=lambda verdict: [verdict.is_valid],
        )
        return _score(samples, self.sampling, self.options.num_samples)


def _first_turn(scenario: ConversationScenario, first: Invocation) -> InvocationScore:
    said, expected = user_text(first).strip(), scenario.starting_prompt.strip()
    if said == expected:
        return InvocationScore(score=1.0, details={"starting_prompt_matches": True})
    return InvocationScore(
        score=0.0,
        reason=(
            f"the first user message {shorten(said, 120)!r} is not the scenario's "
            f"starting_prompt {shorten(expected, 120)!r}"
        ),
        details={"starting_prompt_matches": False},
    )


def _sample_detail(sample: Sample) -> dict[str, Any]:
    if not sample.ok:
        return {"error": sample.code, "message": sample.message}
    return {"is_valid": sample.value.is_valid, "criteria": sample.value.criteria}


def _score(samples: list[Sample], sampling: JudgeSampling, num_samples: int) -> InvocationScore:
    details: dict[str, Any] = {"samples": [_sample_detail(s) for s in samples], **sample_counts(samples)}
    usable = [s.value for s in samples if s.ok]
    decision = sampling.decide([v.is_valid for v in usable])
    details.update(sampling.details(len(samples), num_samples, [decision]))
    if not usable:
        code, reason = failure(samples)
        return not_scored(code, reason, **details)
    valid = sum(1 for v in usable if v.is_valid)
    details["votes"] = {"valid": valid, "invalid": len(usable) - valid}
    score = decision.score
    reason = None
    if score == 0.0:
        tie = " (a tie counts as invalid)" if valid * 2 == len(usable) else ""
        failing = next(v for v in usable if not v.is_valid)
        broken = [c for c in failing.criteria if not c["passes"]]
        why = (
            "; ".join(f"{c['name']}: {shorten(c['reasoning'], 160)}" for c in broken[:3])
            or "no criterion named"
        )
        reason = f"judged invalid by {len(usable) - valid} of {len(usable)} samples{tie}: {why}"
    return InvocationScore(score=score, reason=reason, details=details)
