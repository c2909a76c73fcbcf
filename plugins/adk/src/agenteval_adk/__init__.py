"""agenteval's agent adapter for Google ADK agents (entry point ``agenteval.agents: adk``).

Importing this package does not import google-adk: that happens when the agent is loaded.
"""

from .adk_agent import AdkAgent

__all__ = ["AdkAgent"]
__version__ = "0.5.0"
