"""ADK's two key spellings, kept as the file has them.

The editor works on snake_case cases (``to_snake``). A saved case goes back through
``respell``: every key the file already had keeps its spelling and its place, a new key is
spelt as its neighbours are (camelCase beside camelCase, else snake_case, ADK's own on-disk
spelling) and comes after them. Free-form values (``args``, ``response``, ``state``...) and
unknown keys are data: their keys are never touched.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, Optional

__all__ = ["FREE_FORM", "respell", "to_snake"]

#: Fields whose value is free-form JSON (or a foreign model kept as given): never respelt.
FREE_FORM = frozenset(
    {
        "args",
        "response",
        "state",
        "final_session_state",
        "partial_args",
        "usage_metadata",
        "grounding_metadata",
        "agent_details",
        "inline_data",
        "file_data",
        "part_metadata",
        "video_metadata",
        "executable_code",
        "code_execution_result",
        "speech_metadata",
        "media_resolution",
    }
)


@functools.lru_cache(maxsize=1)
def _spellings() -> tuple[Mapping[str, str], Mapping[str, str], frozenset[str]]:
    from agenteval import models
    from pydantic import BaseModel

    names: set[str] = set()
    for name in models.__all__:
        model = getattr(models, name)
        if isinstance(model, type) and issubclass(model, BaseModel):
            names.update(model.model_fields)
    from pydantic.alias_generators import to_camel

    camel = {to_camel(n): n for n in names if to_camel(n) != n}
    snake = {v: k for k, v in camel.items()}
    return camel, snake, frozenset(names)


def _is_data(snake_key: str) -> bool:
    known = _spellings()[2]
    return snake_key in FREE_FORM or snake_key not in known


def to_snake(value: Any) -> Any:
    """``value`` (an eval set's part) with every model key in snake_case."""
    camel = _spellings()[0]
    if isinstance(value, list):
        return [to_snake(v) for v in value]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            snake = camel.get(key, key)
            out[snake] = item if _is_data(snake) else to_snake(item)
        return out
    return value


def _camel_object(obj: Mapping[str, Any], default: bool) -> bool:
    camel, snake, _ = _spellings()
    if any(k in camel for k in obj):
        return True
    if any(k in snake for k in obj):
        return False
    return default


def respell(original: Any, edited: Any, camel_default: bool = False) -> Any:
    """``edited`` (snake_case) spelt and ordered as ``original`` (the file's JSON) where the
    two share keys; lists are matched element by element."""
    camel, snake, _ = _spellings()
    if isinstance(edited, list):
        before = original if isinstance(original, list) else []
        return [
            respell(before[i] if i < len(before) else None, v, camel_default) for i, v in enumerate(edited)
        ]
    if not isinstance(edited, dict):
        return edited
    before_obj: Mapping[str, Any] = original if isinstance(original, dict) else {}
    use_camel = _camel_object(before_obj, camel_default)
    out: dict[str, Any] = {}
    taken = set()
    for key, old in before_obj.items():
        name = camel.get(key, key)
        if name not in edited:
            continue
        taken.add(name)
        new = edited[name]
        out[key] = (old if old == new else new) if _is_data(name) else respell(old, new, use_camel)
    for name, new in edited.items():
        if name in taken:
            continue
        key = snake.get(name, name) if use_camel else name
        out[key] = new if _is_data(name) else respell(None, new, use_camel)
    return out


def file_uses_camel(data: Any) -> Optional[bool]:
    """Whether the cases of a parsed eval set spell their keys in camelCase (``None``: no
    case says)."""
    camel, snake, _ = _spellings()
    for case in (data.get("eval_cases") or []) if isinstance(data, dict) else []:
        if isinstance(case, dict):
            if any(k in camel for k in case):
                return True
            if any(k in snake for k in case):
                return False
    return None
