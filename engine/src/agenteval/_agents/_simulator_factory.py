"""Choosing and building user simulators: ``user_simulator_factory(config, judge)``.

The factory loads the ``agenteval.user_simulators`` entry point named by
``config.type`` once, checks it before any work (``check_ready``) and then makes one
simulator per conversation, each with a ``JudgeClient`` of the run's judge service. Its
calls are counted in the judge activity under the name ``user_simulator``.
``prepare_user_simulators`` does all of that for the groups of cases of a run (one group
per eval file and its config).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Optional

from .._judging._service import USER_SIMULATOR_ACTIVITY
from .._loading._simulator_config import UserSimulatorConfig
from ..errors import AgentEvalError, ConfigError
from ..models import EvalCase
from ._simulator import UserSimulator

if TYPE_CHECKING:
    from .._judging import JudgeService
    from .._registry import ProviderRegistry

__all__ = [
    "USER_SIMULATOR_ACTIVITY",
    "UserSimulatorFactory",
    "prepare_user_simulators",
    "user_simulator_factory",
]


class UserSimulatorFactory:
    """Makes the user simulator of each conversation from one config.

    Call it with a case (``factory(case)``) for a new simulator; ``run_agent`` does.
    """

    def __init__(
        self,
        config: UserSimulatorConfig,
        simulator_class: type[UserSimulator],
        judge: Optional[JudgeService] = None,
    ) -> None:
        self.config = config
        self.simulator_class = simulator_class
        self.judge = judge

    @property
    def type(self) -> str:
        """The simulator type (``config.type``)."""
        return self.config.type

    def check_ready(self, cases: Iterable[EvalCase]) -> None:
        """Preflight for the conversation scenarios among ``cases`` (nothing to check
        when there are none): ``ConfigError`` saying what to fix."""
        scenarios = [case for case in cases if case.conversation_scenario is not None]
        if not scenarios:
            return
        try:
            self.simulator_class.check_ready(self.config, self.judge, scenarios)
        except AgentEvalError:
            raise
        except Exception as exc:  # a plugin's preflight failed: stop before any work
            msg = f"the {self.type!r} user simulator is not ready to run: {type(exc).__name__}: {exc}"
            raise ConfigError(msg, source=self.config.source) from exc

    def __call__(self, case: EvalCase) -> UserSimulator:
        client = self.judge.client(USER_SIMULATOR_ACTIVITY, case.eval_id) if self.judge is not None else None
        return self.simulator_class(self.config, client)


def user_simulator_factory(
    config: Optional[UserSimulatorConfig] = None,
    judge: Optional[JudgeService] = None,
    *,
    simulators: Optional[ProviderRegistry] = None,
) -> UserSimulatorFactory:
    """The factory for ``config`` (ADK's default ``llm_backed`` config when ``None``).

    ``judge`` is the run's judge service (the simulator's model calls share its limits
    and cache); ``simulators`` is where simulator classes come from (default: installed
    entry points). Raises ``ConfigError`` for an unknown type (naming the installed ones)
    and ``PluginLoadError`` for a broken plugin.
    """
    from .._registry import USER_SIMULATORS_GROUP, ProviderRegistry

    config = config if config is not None else UserSimulatorConfig()
    registry = simulators or ProviderRegistry(group=USER_SIMULATORS_GROUP, kind="user simulator")
    names = registry.names()
    if config.type not in names:
        installed = ", ".join(names) or "none"
        from .._plugins import install_hint

        hint = install_hint("user simulator", config.type)
        fix = f"; it comes with {hint}" if hint else ""
        msg = (
            f"user_simulator_config.type: no user simulator {config.type!r} is installed{fix}. "
            f"Installed types: {installed}"
        )
        raise ConfigError(msg, source=config.source)
    klass = registry.load(config.type)  # the finder checks the simulator contract
    return UserSimulatorFactory(config, klass, judge)


def prepare_user_simulators(
    groups: Sequence[tuple[Optional[UserSimulatorConfig], Sequence[EvalCase]]],
    judge: Optional[JudgeService] = None,
    *,
    simulators: Optional[ProviderRegistry] = None,
) -> list[Optional[UserSimulatorFactory]]:
    """One factory per group of cases (``(its config's user_simulator, its cases)``), made
    and checked before any work: ``None`` for a group without conversation scenarios
    (nothing is loaded for it, so a run without scenarios needs no simulator installed);
    groups with equal configs share one factory. Raises as ``user_simulator_factory`` and
    ``UserSimulatorFactory.check_ready`` do."""
    made: list[UserSimulatorFactory] = []
    out: list[Optional[UserSimulatorFactory]] = []
    for config, cases in groups:
        scenarios = [case for case in cases if case.conversation_scenario is not None]
        if not scenarios:
            out.append(None)
            continue
        config = config if config is not None else UserSimulatorConfig()
        factory = next((f for f in made if f.config == config), None)
        if factory is None:
            factory = user_simulator_factory(config, judge, simulators=simulators)
            made.append(factory)
        factory.check_ready(scenarios)
        out.append(factory)
    return out
