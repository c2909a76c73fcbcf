"""Running the agent under test: the adapter contract, the inference runner, and the
user-simulator contract for conversation scenarios.

Private: the contracts are public in ``agenteval.plugins``, their exceptions in
``agenteval.errors``; the runner is no API."""

from .._loading._simulator_config import UserSimulatorConfig, parse_user_simulator_config
from ._capture import detach_std_streams
from ._contract import Agent, AgentCrashed, AgentSession
from ._inference import (
    AgentBaseException,
    AgentFailure,
    AgentTurns,
    Isolation,
    SimulatedConversation,
    moved_to_workers,
    run_agent,
    run_case,
    stray_threads,
)
from ._isolation import ProcessIsolatedAgent, RemoteAgentError
from ._simulator import (
    NextUserMessage,
    SimulationContext,
    SimulatorStatus,
    UserSimulator,
    UserSimulatorError,
)
from ._simulator_factory import (
    USER_SIMULATOR_ACTIVITY,
    UserSimulatorFactory,
    prepare_user_simulators,
    user_simulator_factory,
)

__all__ = [
    "USER_SIMULATOR_ACTIVITY",
    "Agent",
    "AgentBaseException",
    "AgentCrashed",
    "AgentFailure",
    "AgentSession",
    "AgentTurns",
    "Isolation",
    "NextUserMessage",
    "ProcessIsolatedAgent",
    "RemoteAgentError",
    "SimulatedConversation",
    "SimulationContext",
    "SimulatorStatus",
    "UserSimulator",
    "UserSimulatorConfig",
    "UserSimulatorError",
    "UserSimulatorFactory",
    "detach_std_streams",
    "moved_to_workers",
    "parse_user_simulator_config",
    "prepare_user_simulators",
    "run_agent",
    "run_case",
    "stray_threads",
    "user_simulator_factory",
]
