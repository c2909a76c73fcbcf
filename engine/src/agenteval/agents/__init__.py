"""Running the agent under test: the adapter contract and the inference runner."""

from ._contract import Agent, AgentSession
from ._inference import AgentFailure, run_agent

__all__ = ["Agent", "AgentFailure", "AgentSession", "run_agent"]
