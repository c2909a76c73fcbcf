"""The ``--format json`` document: ``RunResult`` as JSON (see docs/json-format.md)."""

from __future__ import annotations

from .._jsonsafe import dump_model
from ..results import RunResult

__all__ = ["render_json"]


def render_json(result: RunResult, *, indent: int = 2) -> str:
    """The stable JSON document: format_version, engine_version, summary, eval_sets, warnings.

    Serialised by pydantic's own encoder (several times faster than the standard library on
    large runs); non-finite numbers become ``null``, and a value pydantic cannot encode (a
    lone surrogate, nesting past its depth limit) is made writable instead of losing the
    report (``agenteval._jsonsafe``).
    """
    return dump_model(result, indent=indent) + "\n"
