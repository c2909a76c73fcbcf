"""``user_simulator_config``: ADK's keys for the user simulator, checked at config load.

ADK 2.13 keys (snake_case or camelCase): ``type`` (``llm_backed`` when absent or null),
``model``, ``model_configuration``, ``max_allowed_invocations`` (default 20, the starting
prompt counts; ``-1`` for no limit), ``custom_instructions``, ``include_function_calls``.

For ``llm_backed``, a key that looks like a typo of a real one is an error with the
suggestion; any other unknown key is ignored with a warning. For another ``type`` (a
third-party simulator), unknown keys are kept in ``model_extra`` for it to read.
``type: "llm_audio"`` (ADK's live-audio simulator) is refused: agenteval has no live mode.
``check_simulator_installed`` refuses, at config load, a ``type`` that no installed
distribution provides (as ADK refuses a type it does not know), from metadata only.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from ..errors import ConfigError

__all__ = [
    "DEFAULT_SIMULATOR_MODEL",
    "UserSimulatorConfig",
    "check_simulator_installed",
    "parse_user_simulator_config",
]

DEFAULT_SIMULATOR_MODEL = "gemini-2.5-flash"
DEFAULT_SIMULATOR_TYPE = "llm_backed"
_SECTION = "user_simulator_config"
#: The distribution that provides each simulator type agenteval knows of.


class UserSimulatorConfig(BaseModel):
    """How scenario cases' simulated users are played (see the module docstring).

    Attributes:
        type: the ``agenteval.user_simulators`` entry point to use.
        model: the model that plays the user, named like a judge model
            (``gemini-2.5-flash``, ``openai:MODEL``...).
        model_configuration: extra generation settings passed to the provider as given
            (for Gemini, a ``GenerateContentConfig``; ADK's default turns thinking on,
            ours leaves the model's defaults).
        max_allowed_invocations: the most user messages in one conversation, the starting
            prompt included; ``-1`` for no limit (the simulator must then stop by itself).
        custom_instructions: a Jinja template replacing the simulator's own instructions.
        include_function_calls: show the agent's tool calls and results to the simulator.
    """

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, loc_by_alias=False, extra="allow", frozen=True
    )

    type: str = DEFAULT_SIMULATOR_TYPE
    model: str = Field(default=DEFAULT_SIMULATOR_MODEL, min_length=1)
    model_configuration: Optional[dict[str, Any]] = None
    max_allowed_invocations: int = 20
    custom_instructions: Optional[str] = None
    include_function_calls: bool = False

    #: The config file it came from (for error messages), if any.
    _source: Optional[str] = PrivateAttr(default=None)

    @field_validator("type", mode="before")
    @classmethod
    def _default_type(cls, value: Any) -> Any:
        return DEFAULT_SIMULATOR_TYPE if value is None else value

    @field_validator("max_allowed_invocations")
    @classmethod
    def _limit(cls, value: int) -> int:
        if value != -1 and value < 1:
            raise ValueError(
                "must be -1 (no limit) or at least 1 (the starting prompt counts as one invocation)"
            )
        return value

    @field_validator("custom_instructions")
    @classmethod
    def _instructions(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and not value.strip():
            raise ValueError("is empty; remove the key to use the simulator's own instructions")
        return value

    @property
    def source(self) -> Optional[str]:
        """The config file this came from, if any."""
        return self._source

    @property
    def unlimited(self) -> bool:
        """``max_allowed_invocations`` is -1."""
        return self.max_allowed_invocations == -1


def _known_keys() -> dict[str, str]:
    """Accepted spelling -> field name."""
    keys: dict[str, str] = {}
    for name in UserSimulatorConfig.model_fields:
        keys[name] = name
        keys[to_camel(name)] = name
    return keys


def parse_user_simulator_config(
    data: Any, *, source: Optional[str] = None, warnings: Optional[list[str]] = None
) -> UserSimulatorConfig:
    """Check a config's ``user_simulator_config`` object; ``ConfigError`` (with the file
    and JSON path) when malformed. Warnings for ignored keys go to ``warnings``."""
    from ..text import suggest
    from ._paths import describe_validation_error, json_type

    where = source or "<config>"
    if not isinstance(data, dict):
        raise ConfigError(f"{_SECTION}: expected an object, got a JSON {json_type(data)}", source=where)
    kind = data.get("type")
    if kind == "llm_audio":
        msg = (
            f"{_SECTION}.type: 'llm_audio' (ADK's live-audio simulator, which speaks the user's "
            "messages to an agent in live bidirectional-streaming mode) is not supported: agenteval "
            f"runs agents in text mode. Use 'llm_backed' (or remove 'type') for a text simulator"
        )
        raise ConfigError(msg, source=where)
    known = _known_keys()
    seen: dict[str, str] = {}
    for key in data:
        name = known.get(key)
        if name is None:
            continue
        if name in seen:
            msg = f"{_SECTION}.{key}: given twice, as {seen[name]!r} and {key!r}; keep one spelling"
            raise ConfigError(msg, source=where)
        seen[name] = key
    is_default_type = kind in (None, DEFAULT_SIMULATOR_TYPE)
    valid = ", ".join(UserSimulatorConfig.model_fields)
    for key in data:
        if key in known or not is_default_type:
            continue
        hint = suggest(key, list(UserSimulatorConfig.model_fields))
        if hint:
            msg = f"{_SECTION}.{key}: unknown key; did you mean {hint!r}? Valid keys: {valid}"
            raise ConfigError(msg, source=where)
        if warnings is not None:
            warnings.append(f"{where}: {_SECTION}.{key}: not a user simulator key; ignored (valid: {valid})")
    kept = data if not is_default_type else {k: v for k, v in data.items() if k in known}
    try:
        config = UserSimulatorConfig.model_validate(kept)
    except ValidationError as exc:
        detail = describe_validation_error(exc, UserSimulatorConfig, prefix=(_SECTION,))
        raise ConfigError(f"invalid {_SECTION}:\n{detail}", source=where) from None
    config._source = source
    return config


def check_simulator_installed(config: UserSimulatorConfig) -> None:
    """``ConfigError`` unless an ``agenteval.user_simulators`` entry point named
    ``config.type`` is installed (read from metadata; nothing is imported). The message
    names the distribution to install when the type is one agenteval knows of, and the
    installed types."""
    from .._plugins import KINDS, PluginFinder, install_hint
    from .._registry import USER_SIMULATORS_GROUP

    installed = PluginFinder(KINDS[USER_SIMULATORS_GROUP]).names()
    if config.type in installed:
        return
    hint = install_hint("user simulator", config.type)
    fix = f"; it comes with {hint}" if hint else "; install its distribution"
    msg = (
        f"{_SECTION}.type: no user simulator {config.type!r} is installed{fix}. "
        f"Installed types: {', '.join(installed) or 'none'}"
    )
    raise ConfigError(msg, source=config.source)
