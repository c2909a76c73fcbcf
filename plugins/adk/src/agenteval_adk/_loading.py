"""Importing an ADK agent from an agent folder or a dotted module, as ``adk eval`` and
``AgentEvaluator`` do, with every failure turned into a ``ConfigError``.

* a folder is loaded as a package named after the folder (so ``from . import agent``
  and ``import <folder>.tools`` work) without touching ``sys.path``; when another module
  already owns that name, a private alias is used instead. The nearest ``.env`` (in the
  folder, else the closest folder above it, as ``adk eval`` looks) is read first
  (variables already set win; ``ADK_DISABLE_LOAD_DOTENV=1`` skips it, as in ADK). The
  agent is looked up in the package's ``agent`` submodule, then in the package itself;
* a dotted module is imported normally, with the current directory appended to
  ``sys.path`` when it is not there; the agent is looked up in its ``agent`` attribute
  when that is a module, else in the module itself.

The agent is ``app`` (an ADK ``App``: its root agent, plugins and configs), else
``root_agent``, else the coroutine function ``get_agent_async``, which is only awaited
later, in the event loop the agent will run in. A ``reset_data`` function beside it is
kept: ADK calls it before each case's conversation, and so does the adapter.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Optional

from agenteval.errors import ConfigError

from ._target import AGENT_FILES

__all__ = ["LoadedAgent", "load_agent", "nearest_env_file", "require_adk"]

_INSTALL = "pip install agenteval-adk (or, from the agenteval repository, pip install -e plugins/adk)"


@dataclass(frozen=True)
class LoadedAgent:
    """What the target defines: exactly one of ``root_agent`` and ``factory`` is set."""

    name: str
    """The app's name: the folder's name, or the module's package name."""
    source: str
    """Where the agent was found, for messages (``my_pkg.agent``)."""
    root_agent: Any = None
    app: Any = None
    factory: Optional[Callable[[], Any]] = None
    reset_data: Optional[Callable[[], Any]] = None
    """The module's ``reset_data``, which ADK calls before each case's conversation."""


def require_adk(target: str) -> None:
    """Raise ``ConfigError`` when google-adk cannot be imported."""
    try:
        importlib.import_module("google.adk")
    except ImportError as exc:
        msg = (
            f"--agent {target!r}: running an ADK agent needs google-adk, which cannot be "
            f"imported ({type(exc).__name__}: {exc}). Install it with: {_INSTALL}"
        )
        raise ConfigError(msg) from None


def _one_line(text: str, limit: int = 400) -> str:
    text = "; ".join(line.strip() for line in text.splitlines() if line.strip())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _user_frame(exc: BaseException) -> str:
    """`` (at FILE:LINE)`` for the innermost frame in the user's own code, if any."""
    library = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix)}
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        path = Path(frame.filename)
        if frame.filename.startswith("<") or any(root in path.resolve().parents for root in library):
            continue
        if "agenteval_adk" in path.parts:
            continue
        return f" (at {frame.filename}:{frame.lineno})"
    return ""


def _user_error(target: str, what: str, exc: BaseException) -> ConfigError:
    """``ConfigError`` for an exception raised by the user's code: what failed, where in
    the user's files, and the fix."""
    msg = (
        f"--agent {target!r}: {what} failed with {type(exc).__name__}: {_one_line(str(exc))}"
        f"{_user_frame(exc)}. Fix that in the agent's code (or install the package it "
        "imports), then run again"
    )
    return ConfigError(msg)


def _module_name_for(folder: Path) -> str:
    """The folder's own name when it is free (or already this folder's package), else a
    private alias derived from the path."""
    name = folder.name
    if name.isidentifier():
        existing = sys.modules.get(name)
        if existing is None or folder in _module_folders(existing):
            return name
    digest = hashlib.sha1(str(folder).encode()).hexdigest()[:8]
    return f"_agenteval_adk_{''.join(c if c.isalnum() else '_' for c in name)}_{digest}"


def _module_folders(module: ModuleType) -> list[Path]:
    return [Path(p).resolve() for p in getattr(module, "__path__", None) or ()]


def _import_folder(folder: Path, name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    init = folder / "__init__.py"
    if init.is_file():
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(folder)])
    else:  # agent.py alone: a package with no code of its own
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = [str(folder)]
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        if spec.loader is not None:
            spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _candidates_in_folder(package: ModuleType, folder: Path) -> list[ModuleType]:
    inner = getattr(package, "agent", None)
    if not isinstance(inner, ModuleType) and (folder / "agent.py").is_file():
        inner = importlib.import_module(f"{package.__name__}.agent")
    return [m for m in (inner, package) if isinstance(m, ModuleType)]


def _find_agent(target: str, name: str, modules: list[ModuleType]) -> LoadedAgent:
    from google.adk.agents import BaseAgent
    from google.adk.apps import App
    from google.adk.workflow import BaseNode

    for module in modules:
        source = module.__name__
        reset = getattr(module, "reset_data", None)
        if reset is not None and not callable(reset):
            msg = (
                f"--agent {target!r}: {source}.reset_data is a {type(reset).__name__}; ADK calls it "
                "before each case, so it must be a function (or remove it)"
            )
            raise ConfigError(msg)
        app = getattr(module, "app", None)
        if isinstance(app, App):
            return LoadedAgent(name, f"{source}.app", root_agent=app.root_agent, app=app, reset_data=reset)
        root = getattr(module, "root_agent", None)
        if root is not None:
            if not isinstance(root, (BaseAgent, BaseNode)):
                hint = " (an App belongs in 'app')" if isinstance(root, App) else ""
                msg = (
                    f"--agent {target!r}: {source}.root_agent is a {type(root).__name__}, not an "
                    f"ADK agent{hint}. Bind root_agent to an agent such as google.adk.agents.Agent"
                )
                raise ConfigError(msg)
            return LoadedAgent(name, f"{source}.root_agent", root_agent=root, reset_data=reset)
        factory = getattr(module, "get_agent_async", None)
        if callable(factory):
            return LoadedAgent(name, f"{source}.get_agent_async()", factory=factory, reset_data=reset)
    searched = ", ".join(m.__name__ for m in modules)
    other_apps = [f"{m.__name__}.app is a {type(m.app).__name__}" for m in modules if hasattr(m, "app")]
    why = f" ({'; '.join(other_apps)}, not an ADK App)" if other_apps else ""
    msg = (
        f"--agent {target!r}: no ADK agent found in {searched}: it defines none of 'app' (an "
        f"ADK App), 'root_agent' or 'get_agent_async'{why}. Define root_agent in the folder's "
        "agent.py (with 'from . import agent' in its __init__.py), as adk eval expects"
    )
    raise ConfigError(msg)


def _load_folder(target: str, folder: Path) -> LoadedAgent:
    if not any((folder / f).is_file() for f in AGENT_FILES):
        msg = (
            f"--agent {target!r}: the folder has neither agent.py nor __init__.py, so it holds "
            "no ADK agent. Point --agent at the agent's folder (the one adk eval takes)"
        )
        raise ConfigError(msg)
    env_file = nearest_env_file(folder)
    if env_file is not None:
        from dotenv import load_dotenv

        load_dotenv(env_file, override=False)
    name = _module_name_for(folder)
    try:
        package = _import_folder(folder, name)
        modules = _candidates_in_folder(package, folder)
    except Exception as exc:  # the user's code failed: a config problem, stated once
        raise _user_error(target, f"importing the agent folder {str(folder)!r}", exc) from exc
    return _find_agent(target, folder.name, modules)


def nearest_env_file(folder: Path) -> Optional[Path]:
    """The ``.env`` file ``adk eval`` reads for an agent folder: in the folder, else in the
    closest folder above it; ``None`` when there is none or ``ADK_DISABLE_LOAD_DOTENV`` is
    true (ADK's switch)."""
    if (os.environ.get("ADK_DISABLE_LOAD_DOTENV") or "").strip().lower() in ("1", "true", "yes", "on"):
        return None
    for candidate in (folder, *folder.parents):
        env_file = candidate / ".env"
        if env_file.is_file():
            return env_file
    return None


def _load_module(target: str) -> LoadedAgent:
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.append(cwd)
    try:
        module = importlib.import_module(target)
    except ModuleNotFoundError as exc:
        if exc.name and (target == exc.name or target.startswith(exc.name + ".")):
            msg = (
                f"--agent {target!r}: no module named {exc.name!r} in the current directory or "
                "the installed packages. Give an agent folder (path/to/agent_folder) or the "
                "dotted name of an importable module that defines root_agent"
            )
            raise ConfigError(msg) from None
        raise _user_error(target, f"importing {target!r}", exc) from exc
    except Exception as exc:  # the user's code failed while importing
        raise _user_error(target, f"importing {target!r}", exc) from exc
    inner = getattr(module, "agent", None)
    modules = [inner, module] if isinstance(inner, ModuleType) else [module]
    parts = target.split(".")
    name = parts[-2] if len(parts) > 1 and parts[-1] == "agent" else parts[-1]
    return _find_agent(target, name, modules)


def load_agent(target: str) -> LoadedAgent:
    """Import the agent ``target`` names (a folder or a dotted module); ``ConfigError``
    saying what, why and how to fix it on any failure."""
    require_adk(target)
    # LiteLLM (which an agent may use through ADK) fetches a model-price map from the
    # internet when imported unless told to use its bundled copy: no call agenteval causes.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    path = Path(target)
    if path.is_dir():
        return _load_folder(target, path.resolve())
    if path.exists():
        msg = (
            f"--agent {target!r}: this is a file; an ADK agent is given as its folder "
            "(the one holding agent.py) or as a dotted module name (my_pkg.agent)"
        )
        raise ConfigError(msg)
    return _load_module(target)
