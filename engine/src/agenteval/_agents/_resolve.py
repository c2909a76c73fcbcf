"""The agent adapter for an ``--agent`` target."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from .._plugins import known_plugins
from .._registry import AGENTS_GROUP, ProviderRegistry
from ..errors import ConfigError, PluginLoadError
from ._contract import Agent

__all__ = ["resolve_agent"]


def resolve_agent(
    target: str, agent_type: Optional[str] = None, adapters: Optional[ProviderRegistry] = None
) -> Agent:
    """The adapter for ``--agent TARGET``: the one named by ``agent_type``, else the first
    installed adapter that claims the target. ``ConfigError`` when none does."""
    adapters = adapters or ProviderRegistry(group=AGENTS_GROUP, kind="agent adapter")
    if agent_type is not None:
        return adapters.load(agent_type)(target)
    broken: list[str] = []
    for name in adapters.names():
        try:
            klass = adapters.load(name)
        except PluginLoadError as exc:  # an adapter nobody named must not break the others
            broken.append(str(exc))
            continue
        if klass.claims(target):
            return klass(target)
    kinds = ", ".join(adapters.names()) or "none installed"
    msg = (
        f"--agent {target!r}: no agent adapter recognises it{_unparsed(target)}. A Python agent is "
        "'package.module:function', 'path/to/file.py:function' or a folder whose agent.py "
        f"defines respond(); name the adapter with --agent-type (installed: {kinds})"
    )
    missing = [
        (name, hint) for name, hint in known_plugins("agent adapter").items() if name not in adapters.names()
    ]
    if missing:
        msg += ". Not installed: " + "; ".join(f"{name} ({hint})" for name, hint in missing)
    if broken:
        msg += ". Adapters that could not be loaded: " + "; ".join(broken)
    raise ConfigError(msg)


def _unparsed(target: str) -> str:
    """Why an agent folder was not recognised, when its ``agent.py`` does not parse: the
    adapters read it without importing it, and a syntax error hides what it defines.
    Compiled only, never run."""
    source = Path(target) / "agent.py"
    try:
        compile(source.read_bytes(), str(source), "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f" (its agent.py does not parse: {exc.msg}, line {exc.lineno}; fix that and run again)"
    except (ValueError, OSError):  # no such file, or not a folder
        return ""
    return ""
