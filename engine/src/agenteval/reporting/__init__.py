"""Rendering a ``RunResult``: a terminal table (rich) and the JSON document.

Imported on first use, so that ``--format json`` never imports rich.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = ["render_json", "render_table"]

_MODULES = {"render_json": "._json", "render_table": "._table"}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'agenteval.reporting' has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)


if TYPE_CHECKING:
    from ._json import render_json
    from ._table import render_table
