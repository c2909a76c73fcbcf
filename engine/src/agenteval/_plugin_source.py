"""Reading a plugin's one-line description from its source, without importing it.

``agenteval criteria list`` must not import plugin modules (a broken or heavy plugin must
cost nothing until it is asked for). We find the module file on ``sys.path`` and read the
``info = EvaluatorInfo(description="...")`` literal of the class with ``ast``; failing
that, the first line of the class docstring.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Optional

__all__ = ["read_description"]


def _module_file(module: str) -> Optional[Path]:
    parts = module.split(".")
    for entry in sys.path:
        base = Path(entry or ".").joinpath(*parts)
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def _literal_description(node: ast.ClassDef) -> Optional[str]:
    for statement in node.body:
        targets = []
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        if not any(isinstance(t, ast.Name) and t.id == "info" for t in targets):
            continue
        if isinstance(value, ast.Call):
            for keyword in value.keywords:
                if keyword.arg == "description" and isinstance(keyword.value, ast.Constant):
                    if isinstance(keyword.value.value, str):
                        return keyword.value.value
    return None


def read_description(target: str) -> Optional[str]:
    """The description of ``module:Class`` read from source, or ``None`` if not found."""
    module, _, qualname = target.partition(":")
    path = _module_file(module.strip())
    if path is None or not qualname:
        return None
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    class_name = qualname.strip().split(".")[-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            found = _literal_description(node)
            if found:
                return " ".join(found.split())
            doc = ast.get_docstring(node)
            return doc.strip().splitlines()[0] if doc else None
    return None
