"""JSON that is always written: outputs can never be lost to an odd value.

Agent replies and tool arguments are untrusted: a lone surrogate (``"\\ud800"``) cannot be
encoded as UTF-8, and a structure nested hundreds of levels deep exceeds pydantic's
serialisation depth. ``dump_model`` tries pydantic's fast encoder first; when it refuses,
the model's plain data is made writable (lone surrogates shown as the text ``\\ud800``,
levels below ``MAX_DEPTH`` replaced by a marker) and encoded again.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

__all__ = ["MAX_DEPTH", "dump_model", "writable"]

#: Deeper levels are replaced by ``TRUNCATED`` in the fallback encoding.
MAX_DEPTH = 100
TRUNCATED = "[nested deeper than 100 levels: cut here]"
_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(value: str) -> str:
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", value)


def _key(key: Any) -> str:
    inner = getattr(key, "value", None)  # an enum key (a status) is written as its value
    return _text(inner if isinstance(inner, str) else str(key))


def writable(value: Any, depth: int = 0) -> Any:
    """``value`` (plain data) with lone surrogates made visible and depth bounded."""
    if isinstance(value, str):
        return _text(value)
    if depth >= MAX_DEPTH and isinstance(value, (dict, list, tuple)):
        return TRUNCATED
    if isinstance(value, dict):
        return {_key(k): writable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [writable(v, depth + 1) for v in value]
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    if isinstance(value, BaseModel):
        return writable(value.model_dump(mode="python", by_alias=True), depth)
    if isinstance(getattr(value, "value", None), (str, int)):  # enums
        return value.value
    return _text(str(value))


def dump_model(
    model: BaseModel, *, indent: Optional[int] = None, by_alias: bool = False, **options: Any
) -> str:
    """``model.model_dump_json(...)``, or, when pydantic cannot encode a value in it, the
    same document with that value made writable (see the module docstring)."""
    try:
        return model.model_dump_json(indent=indent, by_alias=by_alias, **options)
    except (PydanticSerializationError, ValueError, RecursionError):
        data = writable(model.model_dump(mode="python", by_alias=by_alias, **options))
        return json.dumps(data, indent=indent, ensure_ascii=False, separators=None if indent else (",", ":"))
