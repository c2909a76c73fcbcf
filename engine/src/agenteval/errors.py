"""agenteval's exceptions. Every one of them means "stop before any work, exit code 2".

    AgentEvalError
    ├── DataError            a malformed eval file, actual-invocations file or selection
    ├── ConfigError          a malformed config or criterion parameters
    └── PluginLoadError      a requested plugin (criterion, judge-model provider, agent
                             adapter, user simulator) is unknown, not installed, broken,
                             breaks its contract, or is provided twice
                             (``CriterionLoadError`` is the same class, its former name)

Each carries a short, complete message: what is wrong, where (file, JSON path or
line:column), what is expected, and the fix. Failures *during* evaluation are never
raised as these: they become ERRORED or NOT_EVALUATED results.
"""

from __future__ import annotations

from typing import Optional

__all__ = ["AgentEvalError", "ConfigError", "CriterionLoadError", "DataError", "PluginLoadError"]


class AgentEvalError(Exception):
    """Base class: a problem with the user's input that stops a run before any work."""

    exit_code = 2

    def __init__(self, message: str, *, source: Optional[str] = None) -> None:
        self.message = message
        self.source = source
        super().__init__(f"{source}: {message}" if source else message)


class DataError(AgentEvalError, ValueError):
    """An eval file, actual-invocations file or case selection is malformed."""


class ConfigError(AgentEvalError, ValueError):
    """A config file or a criterion's parameters are malformed."""


class PluginLoadError(AgentEvalError, LookupError):
    """A requested plugin cannot be loaded (unknown, not installed, broken, breaks its
    contract, or provided by two distributions)."""


#: The former name of ``PluginLoadError`` (criteria were the first kind of plugin).
CriterionLoadError = PluginLoadError
