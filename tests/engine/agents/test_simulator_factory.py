"""``agents/_simulator_factory.py``: choosing the simulator type, preflight, one per conversation."""

from __future__ import annotations

import importlib.util

import pytest
from agenteval import JudgeService
from agenteval._agents import (
    USER_SIMULATOR_ACTIVITY,
    parse_user_simulator_config,
    prepare_user_simulators,
    user_simulator_factory,
)
from agenteval._registry import USER_SIMULATORS_GROUP, ProviderRegistry
from agenteval.errors import ConfigError, PluginLoadError
from agenteval.models import ConversationScenario
from agenteval.plugins import NextUserMessage, UserSimulator, UserSimulatorConfig
from agenteval.testing import make_case, make_invocation


class Quiet(UserSimulator):
    description = "never says anything"
    checked: list = []

    @classmethod
    def check_ready(cls, config, judge, cases):
        Quiet.checked.append([c.eval_id for c in cases])
        if config.model == "explode":
            raise RuntimeError("no credentials for explode")
        if config.model == "refuse":
            raise ConfigError("set REFUSE_KEY")

    async def next_message(self, ctx):
        return NextUserMessage.stop("no_message_generated")


class Abstract(UserSimulator):
    pass


def registry(**classes) -> ProviderRegistry:
    return ProviderRegistry(classes=classes, group=USER_SIMULATORS_GROUP, kind="user simulator")


def config(**data) -> UserSimulatorConfig:
    return parse_user_simulator_config({"type": "quiet", **data}, source="test_config.json")


SCENARIO = make_case(eval_id="s", scenario=ConversationScenario(starting_prompt="hi", conversation_plan="p"))
FIXED = make_case([make_invocation("hi", "x")], eval_id="f")


def test_an_unknown_type_names_the_installed_ones_and_the_file():
    with pytest.raises(ConfigError) as info:
        user_simulator_factory(config(type="scripted"), simulators=registry(quiet=Quiet, other=Quiet))
    assert str(info.value) == (
        "test_config.json: user_simulator_config.type: no user simulator 'scripted' is installed. "
        "Installed types: other, quiet"
    )


def test_the_default_type_says_which_distribution_provides_it():
    with pytest.raises(ConfigError) as info:
        user_simulator_factory(None, simulators=registry(quiet=Quiet))
    assert "no user simulator 'llm_backed' is installed; it comes with agenteval-llm-judges" in str(
        info.value
    )


def test_a_class_that_is_not_a_simulator_is_a_load_error():
    with pytest.raises(PluginLoadError, match="not a subclass of agenteval.plugins.UserSimulator"):
        user_simulator_factory(config(), simulators=registry(quiet=dict))
    with pytest.raises(PluginLoadError, match="Abstract does not implement next_message"):
        user_simulator_factory(config(), simulators=registry(quiet=Abstract))


def test_preflight_sees_only_scenarios_and_explains_failures():
    Quiet.checked = []
    factory = user_simulator_factory(config(), simulators=registry(quiet=Quiet))
    assert factory.type == "quiet"
    factory.check_ready([FIXED])
    assert Quiet.checked == []  # nothing to play, nothing to check
    factory.check_ready([FIXED, SCENARIO])
    assert Quiet.checked == [["s"]]
    with pytest.raises(ConfigError) as info:
        user_simulator_factory(config(model="explode"), simulators=registry(quiet=Quiet)).check_ready(
            [SCENARIO]
        )
    assert str(info.value) == (
        "test_config.json: the 'quiet' user simulator is not ready to run: "
        "RuntimeError: no credentials for explode"
    )
    with pytest.raises(ConfigError, match="^set REFUSE_KEY$"):
        user_simulator_factory(config(model="refuse"), simulators=registry(quiet=Quiet)).check_ready(
            [SCENARIO]
        )


def test_one_simulator_per_conversation_with_a_judge_client():
    judge = JudgeService()
    factory = user_simulator_factory(config(), judge, simulators=registry(quiet=Quiet))
    first, second = factory(SCENARIO), factory(SCENARIO)
    assert first is not second and isinstance(first, Quiet)
    assert first.config.type == "quiet"
    assert first.judge.criterion == USER_SIMULATOR_ACTIVITY and first.judge.scope == "s"
    assert user_simulator_factory(config(), simulators=registry(quiet=Quiet))(SCENARIO).judge is None


@pytest.mark.skipif(
    importlib.util.find_spec("agenteval_llm_judges") is None, reason="needs agenteval-llm-judges"
)
def test_the_installed_llm_backed_simulator_is_the_default():
    factory = user_simulator_factory(None, JudgeService())
    assert factory.type == "llm_backed"
    assert factory.simulator_class.__name__ == "LlmBackedUserSimulator"


def test_prepare_user_simulators_makes_one_checked_factory_per_config():
    Quiet.checked = []
    shared, other = config(), config(model="other")
    groups = [(shared, [SCENARIO]), (shared, [FIXED, SCENARIO]), (other, [SCENARIO]), (shared, [FIXED])]
    factories = prepare_user_simulators(groups, simulators=registry(quiet=Quiet))
    first, second, third, fourth = factories
    assert first is second and first is not third and fourth is None
    assert third.config.model == "other"
    assert Quiet.checked == [["s"], ["s"], ["s"]]  # every group with scenarios is checked
    # Without scenarios nothing is loaded: no simulator needs to be installed.
    assert prepare_user_simulators([(None, [FIXED])], simulators=registry()) == [None]
    with pytest.raises(ConfigError, match="no user simulator 'llm_backed' is installed"):
        prepare_user_simulators([(None, [SCENARIO])], simulators=registry())
