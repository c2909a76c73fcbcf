"""Running the agent under test: the adapter contract, the inference runner, and the
user-simulator contract for conversation scenarios."""

from ._contract import Agent, AgentSession
from ._inference import AgentFailure, SimulatedConversation, run_agent, run_case
from ._simulator import (
    NextUserMessage,
    SimulationContext,
    SimulatorStatus,
    UserSimulator,
    UserSimulatorError,
)
from ._simulator_config import UserSimulatorConfig, parse_user_simulator_config
from ._simulator_factory import (
    USER_SIMULATOR_ACTIVITY,
    UserSimulatorFactory,
    prepare_user_simulators,
    user_simulator_factory,
)

__all__ = [
    "USER_SIMULATOR_ACTIVITY",
    "Agent",
    "AgentFailure",
    "AgentSession",
    "NextUserMessage",
    "SimulatedConversation",
    "SimulationContext",
    "SimulatorStatus",
    "UserSimulator",
    "UserSimulatorConfig",
    "UserSimulatorError",
    "UserSimulatorFactory",
    "parse_user_simulator_config",
    "prepare_user_simulators",
    "run_agent",
    "run_case",
    "user_simulator_factory",
]
