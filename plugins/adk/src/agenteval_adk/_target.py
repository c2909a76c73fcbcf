"""Recognising an ADK agent target without importing anything.

Two forms are recognised:

* a folder holding an ADK agent, as ``adk eval`` takes: its ``agent.py`` or ``__init__.py``
  binds ``root_agent`` or ``app`` at module level (assignments and imports, also inside
  ``if``/``try`` blocks), or defines ``get_agent_async``. The source is read with ``ast``,
  never run. A file that does not parse counts when its text mentions ``root_agent`` or
  ``get_agent_async``: loading it then reports the syntax error;
* a dotted module name, as ``AgentEvaluator``'s ``agent_module`` takes (``my_pkg.agent``,
  ``my_pkg``): identifiers joined by dots, no ``:`` or ``/``, not an existing path and
  not ending in a file suffix such as ``.py`` or ``.json``.

A folder without those names is not claimed: the ``python`` adapter takes a folder whose
``agent.py`` defines ``respond`` and none of these names.
"""

from __future__ import annotations

import ast
import keyword
import re
from pathlib import Path

__all__ = ["AGENT_FILES", "claims", "is_adk_folder", "is_module_name"]

#: The files of an agent folder that may define the agent, in the order they are read.
AGENT_FILES = ("agent.py", "__init__.py")

_AGENT_NAMES = {"root_agent", "app", "get_agent_async"}
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_FILE_SUFFIXES = {"py", "pyc", "json", "yaml", "yml", "toml", "txt", "md", "cfg", "ini", "env"}
_UNPARSABLE_HINT = re.compile(r"\b(root_agent|get_agent_async)\b")


def _bound_names(body: list[ast.stmt]) -> set[str]:
    """Names bound at module level: assignments, imports and definitions, also inside
    ``if``/``try``/``with``/``for`` blocks, but not inside functions or classes."""
    names: set[str] = set()
    pending = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        for field in ("body", "orelse", "finalbody", "handlers"):
            pending.extend(getattr(node, field, None) or [])
    return names


def _defines_agent(source: str) -> bool:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return bool(_UNPARSABLE_HINT.search(source))
    return bool(_bound_names(tree.body) & _AGENT_NAMES)


def is_adk_folder(path: Path) -> bool:
    """Whether ``path`` is a folder whose ``agent.py`` or ``__init__.py`` defines an ADK
    agent (see the module docstring). Unreadable files count as not defining one."""
    if not path.is_dir():
        return False
    for name in AGENT_FILES:
        file = path / name
        try:
            if file.is_file() and _defines_agent(file.read_text(encoding="utf-8", errors="replace")):
                return True
        except OSError:
            continue
    return False


def is_module_name(target: str) -> bool:
    """Whether ``target`` looks like an importable dotted module name (and is no path)."""
    if not _MODULE.match(target) or Path(target).exists():
        return False
    parts = target.split(".")
    if any(keyword.iskeyword(p) for p in parts):
        return False
    return not (len(parts) > 1 and parts[-1].lower() in _FILE_SUFFIXES)


def claims(target: str) -> bool:
    """Whether ``target`` is an ADK agent folder or a dotted module name."""
    if "://" in target:
        return False
    return is_adk_folder(Path(target)) or is_module_name(target)
