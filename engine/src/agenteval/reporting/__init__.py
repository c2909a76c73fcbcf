"""Rendering a ``RunResult``: a terminal table (rich) and the JSON document."""

from ._json import render_json
from ._table import render_table

__all__ = ["render_json", "render_table"]
