"""An ADK agent folder, as `adk eval` and `agenteval run --agent` take it."""

from . import agent  # noqa: F401 - adk eval finds the agent through the package
