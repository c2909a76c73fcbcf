"""``custom_instructions``: a user's Jinja template for the simulator's prompt, as in ADK.

The template must reference ``stop_signal``, ``conversation_plan`` and
``conversation_history``, and also ``persona`` when a scenario it will play has a persona
(ADK's rule). It is rendered in Jinja's sandbox with ``StrictUndefined``, so a template
cannot reach Python internals and a misspelt variable is an error, not an empty string.

Variables: ``stop_signal`` and ``conversation_plan`` as text; ``conversation_history``
as the delimited data block (see ``_render``); ``persona`` as an object with ``id``,
``description`` and ``behaviors`` (each with ``name``, ``description``,
``behavior_instructions``, ``violation_rubrics`` and the helpers
``get_behavior_instructions_str()`` / ``get_violation_rubrics_str()``, as in ADK), or
``None``. Values are never rendered as templates themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from agenteval.models import UserBehavior, UserPersona

__all__ = ["REQUIRED", "TemplateProblem", "check_template", "render_template"]

REQUIRED = ("stop_signal", "conversation_plan", "conversation_history")


class TemplateProblem(ValueError):
    """The template cannot be used (syntax error, missing variable, render failure)."""


@dataclass(frozen=True)
class _BehaviourView:
    name: str
    description: str
    behavior_instructions: list[str]
    violation_rubrics: list[str]

    def get_behavior_instructions_str(self) -> str:
        return "\n".join(f"  * {item}" for item in self.behavior_instructions)

    def get_violation_rubrics_str(self) -> str:
        return "\n".join(f"  * {item}" for item in self.violation_rubrics)


@dataclass(frozen=True)
class _PersonaView:
    id: str
    description: str
    behaviors: list[_BehaviourView]


def _view(persona: Optional[UserPersona]) -> Optional[_PersonaView]:
    if persona is None:
        return None

    def behaviour(b: UserBehavior) -> _BehaviourView:
        return _BehaviourView(b.name, b.description, list(b.behavior_instructions), list(b.violation_rubrics))

    return _PersonaView(persona.id, persona.description, [behaviour(b) for b in persona.behaviors])


def _environment() -> Any:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    return SandboxedEnvironment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)


def check_template(template: str, *, needs_persona: bool = False) -> None:
    """``TemplateProblem`` unless ``template`` parses and references every required
    variable (``persona`` too with ``needs_persona``)."""
    from jinja2 import TemplateSyntaxError, meta

    try:
        parsed = _environment().parse(template)
    except TemplateSyntaxError as exc:
        raise TemplateProblem(f"is not a valid Jinja template: line {exc.lineno}: {exc.message}") from None
    used = meta.find_undeclared_variables(parsed)
    required = [*REQUIRED, "persona"] if needs_persona else list(REQUIRED)
    missing = [name for name in required if name not in used]
    if missing:
        listed = ", ".join("{{ " + name + " }}" for name in missing)
        why = " (a scenario it plays has a user_persona)" if needs_persona and "persona" in missing else ""
        raise TemplateProblem(f"must reference {listed}{why}; every one of {', '.join(required)} is required")


def render_template(
    template: str,
    *,
    stop_signal: str,
    conversation_plan: str,
    conversation_history: str,
    persona: Optional[UserPersona],
) -> str:
    """The rendered prompt; ``TemplateProblem`` when rendering fails."""
    try:
        return (
            _environment()
            .from_string(template)
            .render(
                stop_signal=stop_signal,
                conversation_plan=conversation_plan,
                conversation_history=conversation_history,
                persona=_view(persona),
            )
        )
    except Exception as exc:  # noqa: BLE001 - a sandbox refusal, an undefined name, a failing filter...
        raise TemplateProblem(f"could not be rendered: {type(exc).__name__}: {exc}") from None
