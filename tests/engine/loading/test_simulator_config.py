"""``agents/_simulator_config.py``: ``user_simulator_config`` as ADK writes it, checked."""

from __future__ import annotations

import pytest
from agenteval._agents import parse_user_simulator_config
from agenteval.errors import ConfigError
from agenteval.plugins import UserSimulatorConfig


def parse(data, warnings=None) -> UserSimulatorConfig:
    return parse_user_simulator_config(data, source="cfg.json", warnings=warnings)


def error(data) -> str:
    with pytest.raises(ConfigError) as info:
        parse(data)
    return str(info.value)


def test_adk_defaults_for_a_config_without_type():
    config = parse({})
    assert config.type == "llm_backed" and config.model == "gemini-2.5-flash"
    assert config.max_allowed_invocations == 20 and not config.unlimited
    assert config.model_configuration is None and config.custom_instructions is None
    assert config.include_function_calls is False
    assert config.source == "cfg.json"
    assert parse({"type": None}).type == "llm_backed"  # null is the default too
    assert UserSimulatorConfig().model_dump() == parse({}).model_dump()


def test_every_adk_key_in_both_spellings():
    snake = {
        "type": "llm_backed",
        "model": "openai:llama3",
        "model_configuration": {"temperature": 0.3},
        "max_allowed_invocations": -1,
        "custom_instructions": "{{ stop_signal }} {{ conversation_plan }} {{ conversation_history }}",
        "include_function_calls": True,
    }
    camel = {
        "type": "llm_backed",
        "model": "openai:llama3",
        "modelConfiguration": {"temperature": 0.3},
        "maxAllowedInvocations": -1,
        "customInstructions": snake["custom_instructions"],
        "includeFunctionCalls": True,
    }
    assert parse(snake) == parse(camel)
    assert parse(snake).unlimited


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"max_allowed_invocations": 0},
            "user_simulator_config.max_allowed_invocations: must be -1 (no limit)",
        ),
        (
            {"max_allowed_invocations": -5},
            "at least 1 (the starting prompt counts as one invocation) (got -5)",
        ),
        ({"max_allowed_invocations": 2.5}, "user_simulator_config.max_allowed_invocations:"),
        ({"max_allowed_invocations": "many"}, "user_simulator_config.max_allowed_invocations:"),
        ({"model": ""}, "user_simulator_config.model:"),
        ({"model_configuration": [1]}, "user_simulator_config.model_configuration:"),
        ({"include_function_calls": "perhaps"}, "user_simulator_config.include_function_calls:"),
        ({"custom_instructions": "   "}, "user_simulator_config.custom_instructions: is empty"),
        ({"type": 5}, "user_simulator_config.type:"),
    ],
)
def test_bad_values_name_the_file_and_the_json_path(data, message):
    text = error(data)
    assert text.startswith("cfg.json: invalid user_simulator_config:\n"), text
    assert message in text


def test_llm_audio_is_refused_with_the_reason():
    text = error({"type": "llm_audio", "model": "gemini-2.5-flash"})
    assert text.startswith("cfg.json: user_simulator_config.type: 'llm_audio'")
    assert "live-audio" in text and "not supported" in text and "'llm_backed'" in text


def test_unknown_keys_warn_and_typos_are_errors():
    warnings: list[str] = []
    config = parse({"model": "m", "description": "ignored"}, warnings)
    assert config.model == "m" and config.model_extra == {}
    [warning] = warnings
    assert warning.startswith(
        "cfg.json: user_simulator_config.description: not a user simulator key; ignored"
    )
    assert "valid: type, model, model_configuration" in warning
    typo = error({"max_allowed_invocation": 5})
    assert (
        "user_simulator_config.max_allowed_invocation: unknown key; did you mean 'max_allowed_invocations'?"
        in (typo)
    )


def test_one_key_twice_is_an_error():
    text = error({"max_allowed_invocations": 5, "maxAllowedInvocations": 6})
    assert "given twice, as 'max_allowed_invocations' and 'maxAllowedInvocations'" in text


def test_another_type_keeps_its_own_keys_for_its_simulator():
    warnings: list[str] = []
    config = parse({"type": "scripted", "script": ["a", "b"], "max_allowed_invocations": 3}, warnings)
    assert config.type == "scripted" and config.model_extra == {"script": ["a", "b"]}
    assert warnings == []


def test_non_object():
    assert error([1]) == "cfg.json: user_simulator_config: expected an object, got a JSON array"
