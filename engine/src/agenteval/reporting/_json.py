"""The ``--format json`` document: ``RunResult`` as JSON (see docs/json-format.md)."""

from __future__ import annotations

import json

from ..results import RunResult

__all__ = ["render_json"]


def render_json(result: RunResult, *, indent: int = 2) -> str:
    """The stable JSON document: format_version, engine_version, summary, eval_sets, warnings."""
    return json.dumps(result.model_dump(mode="json"), indent=indent, ensure_ascii=False) + "\n"
