"""``llm_backed``: a model plays the user of a conversation scenario (ADK 2.13's
``LlmBackedUserSimulator`` config and behaviour, agenteval's own prompt).

The engine sends the scenario's starting prompt itself and enforces
``max_allowed_invocations``; this simulator writes every later user message. It shows the
model the conversation plan (its background, not a script), the persona's behaviours when
the scenario has one (built-in ids ``EXPERT`` / ``NOVICE`` / ``EVALUATOR`` resolve to
``agenteval_llm_judges.personas``), and the conversation so far as ``author: text`` lines
(tool calls and results only with ``include_function_calls``) in a delimited data block.
The model ends the conversation by answering with the stop signal ``</finished>``; an
answer that contains it anywhere, in any case, ends the conversation
(STOP_SIGNAL_DETECTED) and is not sent. An empty answer, or a model call that failed for
good, raises ``UserSimulatorError``: the case is ERRORED (``user_simulator_error``).

Model calls go through the run's judge service: its concurrency limit, retries with
backoff, per-call timeout and answer cache, with ``model`` resolved like a judge model
(``gemini-2.5-flash``, ``openai:MODEL``...) and ``model_configuration`` passed to the
provider. Cache and runs: the cache key includes the prompt (so the whole conversation so
far) and the *run index* as the sample index. Re-running an eval with an agent that
answers the same way replays the cached conversation for free; the runs of one case
(``num_runs``) are distinct samples, so they can differ.

``describe()`` records ``prompt_version`` and ``prompt_sha256`` (of the instruction texts,
or of ``custom_instructions`` when given) with every simulated conversation.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from collections.abc import Sequence
from typing import Any, ClassVar, Optional

from agenteval import JudgeOptions, JudgeRequest, JudgeService
from agenteval.errors import ConfigError, JudgeUnavailable, UserSimulatorError
from agenteval.models import ConversationScenario, EvalCase, Invocation, UserPersona
from agenteval.plugins import (
    NextUserMessage,
    SimulationContext,
    SimulatorStatus,
    UserSimulator,
    UserSimulatorConfig,
)

from ._custom_instructions import TemplateProblem, check_template, render_template
from ._judge import shorten
from ._prompts import user_simulator as prompts
from ._render import block, encode, fill, nonce_for, render
from ._transcript import transcript
from .personas import UnknownPersona, resolve_persona

__all__ = ["PROMPT_VERSION", "STOP_SIGNAL", "LlmBackedUserSimulator"]

PROMPT_VERSION = "llm_backed_user_simulator/1"
#: What the simulated user answers to end the conversation (ADK's, and the default
#: ``stop_signal`` of ``per_turn_user_simulator_quality_v1``).
STOP_SIGNAL = "</finished>"
_ROLE_LABEL = "user:"


def _sha256(*texts: str) -> str:
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()


def _persona_json(persona: UserPersona) -> dict[str, Any]:
    return {
        "id": persona.id,
        "description": persona.description,
        "behaviors": [
            {
                "name": b.name,
                "description": b.description,
                "instructions": b.behavior_instructions,
                "violations": b.violation_rubrics,
            }
            for b in persona.behaviors
        ],
    }


def _clean(text: str) -> str:
    """The answer without surrounding space and a leading ``user:`` label (models
    sometimes imitate the history's line format)."""
    text = text.strip()
    if text.lower().startswith(_ROLE_LABEL):
        text = text[len(_ROLE_LABEL) :].strip()
    return text


class LlmBackedUserSimulator(UserSimulator):
    """A model plays the user, following the scenario's plan (see the module docstring)."""

    description = "a model plays the user, following the scenario's conversation plan (ADK's llm_backed)"

    PROMPT_VERSION: ClassVar[str] = PROMPT_VERSION
    TEMPLATES: ClassVar[tuple[str, ...]] = (
        prompts.SYSTEM,
        prompts.DEFAULT_BEHAVIOUR,
        prompts.PERSONA_BEHAVIOUR,
        prompts.DATA_RULES,
        prompts.PROMPT,
    )

    # -- preflight -------------------------------------------------------------------
    @classmethod
    def check_ready(
        cls, config: UserSimulatorConfig, judge: Optional[JudgeService], cases: Sequence[EvalCase]
    ) -> None:
        if judge is None:
            msg = (
                f"the llm_backed user simulator calls the model {config.model!r} through the run's "
                "judge service, and none was given: pass it to "
                "agenteval._agents.user_simulator_factory(config, judge)"
            )
            raise ConfigError(msg, source=config.source)
        try:
            judge.preflight([config.model])
        except ConfigError as exc:
            raise ConfigError(f"user_simulator_config.model: {exc.message}", source=config.source) from None
        problems = []
        with_persona = []
        for case in cases:
            scenario = case.conversation_scenario
            if scenario is None or scenario.user_persona is None:
                continue
            with_persona.append(case.eval_id)
            try:
                resolve_persona(scenario.user_persona)
            except UnknownPersona as exc:
                problems.append(f"eval_cases[{case.eval_id!r}].conversation_scenario.{exc}")
        if problems:
            raise ConfigError("\n".join(["a scenario names an unknown persona:", *problems]))
        if config.custom_instructions is not None:
            if importlib.util.find_spec("jinja2") is None:
                msg = "user_simulator_config.custom_instructions needs the jinja2 package: pip install jinja2"
                raise ConfigError(msg, source=config.source)
            try:
                check_template(config.custom_instructions, needs_persona=bool(with_persona))
            except TemplateProblem as exc:
                msg = f"user_simulator_config.custom_instructions {exc}"
                if with_persona and "persona" in str(exc):
                    msg += f" (cases with a persona: {', '.join(with_persona[:5])})"
                raise ConfigError(msg, source=config.source) from None

    # -- identity --------------------------------------------------------------------
    @classmethod
    def prompt_identity(cls, config: UserSimulatorConfig) -> dict[str, str]:
        """``{"prompt_version", "prompt_sha256"}`` of the instructions this config uses."""
        if config.custom_instructions is not None:
            return {
                "prompt_version": f"{PROMPT_VERSION}+custom_instructions",
                "prompt_sha256": _sha256(prompts.DATA_RULES, config.custom_instructions),
            }
        return {"prompt_version": PROMPT_VERSION, "prompt_sha256": _sha256(*cls.TEMPLATES)}

    def describe(self) -> dict[str, Any]:
        identity = self.prompt_identity(self.config)
        return {"user_simulator": "llm_backed", "model": self.config.model, **identity}

    # -- one message -----------------------------------------------------------------
    def build_prompt(
        self, scenario: ConversationScenario, history: Sequence[Invocation], persona: Optional[UserPersona]
    ) -> tuple[str, str]:
        """The system instruction and the prompt that ask for the next user message."""
        lines = transcript(history, include_function_calls=self.config.include_function_calls)
        untrusted = {"conversation_history": lines}
        if self.config.custom_instructions is not None:
            material = {
                **untrusted,
                "conversation_plan": scenario.conversation_plan,
                "persona": _persona_json(persona) if persona is not None else None,
            }
            nonce = nonce_for(material, PROMPT_VERSION)
            prompt = render_template(
                self.config.custom_instructions,
                stop_signal=STOP_SIGNAL,
                conversation_plan=scenario.conversation_plan,
                conversation_history=block("conversation_history", lines, nonce),
                persona=persona,
            )
            return fill(prompts.DATA_RULES, {"nonce": nonce}), prompt
        behaviour = (
            prompts.DEFAULT_BEHAVIOUR
            if persona is None
            else fill(prompts.PERSONA_BEHAVIOUR, {"persona": encode(_persona_json(persona), indent=2)})
        )
        trusted = {
            "conversation_plan": encode(scenario.conversation_plan),
            "stop_signal": json.dumps(STOP_SIGNAL),
            "behaviour": behaviour,
        }
        nonce = nonce_for({**untrusted, **trusted}, PROMPT_VERSION)
        trusted["data_rules"] = fill(prompts.DATA_RULES, {"nonce": nonce})
        system = render(prompts.SYSTEM, untrusted={}, trusted=trusted, nonce=nonce)
        return system, render(prompts.PROMPT, untrusted=untrusted, trusted=trusted, nonce=nonce)

    async def next_message(self, ctx: SimulationContext) -> NextUserMessage:
        if self.judge is None:
            raise UserSimulatorError("no judge service to call the model with (see check_ready)")
        try:
            persona = resolve_persona(ctx.scenario.user_persona)
            system, prompt = self.build_prompt(ctx.scenario, ctx.history, persona)
        except (UnknownPersona, TemplateProblem) as exc:
            where = "custom_instructions " if isinstance(exc, TemplateProblem) else ""
            raise UserSimulatorError(f"{where}{exc}") from exc
        request = JudgeRequest(
            prompt=prompt, system_instruction=system, config=dict(self.config.model_configuration or {})
        )
        options = JudgeOptions(judge_model=self.config.model, num_samples=1)
        try:
            response = await self.judge.generate(request, options, sample_index=ctx.run_index)
        except JudgeUnavailable as exc:
            msg = f"the model {self.config.model!r} gave no message ({exc.code}): {exc}"
            raise UserSimulatorError(msg) from exc
        details = {"cached": response.cached, "model_version": response.model_version}
        text = _clean(response.text)
        if STOP_SIGNAL.lower() in text.lower():
            return NextUserMessage.stop(SimulatorStatus.STOP_SIGNAL_DETECTED, **details)
        if not text:
            excerpt = shorten(response.text, 120) or "(nothing)"
            raise UserSimulatorError(
                f"the model {self.config.model!r} answered with an empty message ({excerpt!r})"
            )
        return NextUserMessage.say(text, **details)
