"""The ``--format json`` document: ``RunResult`` as JSON (see docs/json-format.md)."""

from __future__ import annotations

from ..results import RunResult

__all__ = ["render_json"]


def render_json(result: RunResult, *, indent: int = 2) -> str:
    """The stable JSON document: format_version, engine_version, summary, eval_sets, warnings.

    Serialised by pydantic's own encoder (several times faster than the standard library on
    large runs); non-finite numbers become ``null``, so the document is always valid JSON.
    """
    return result.model_dump_json(indent=indent) + "\n"
