"""One field given in both spellings (``eval_id`` and ``evalId``) in one JSON object.

The eval models accept snake_case and camelCase keys; both at once is an error (ADK's
pydantic refuses it in most models and keeps two values in others). Pydantic's JSON
parser does not always see it (2.13 drops one of the two silently), so the check is made
on the raw JSON, for objects the models read; free-form objects (``args``, ``state``)
may hold any keys.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping, Sequence
from typing import Optional, Union

from pydantic import BaseModel
from pydantic.alias_generators import to_camel

from ._paths import model_at

__all__ = ["camel_spellings", "spelt_twice"]


def _models() -> list[type[BaseModel]]:
    from .. import models

    found = [getattr(models, name) for name in models.__all__]
    return [model for model in found if isinstance(model, type) and issubclass(model, BaseModel)]


@functools.lru_cache(maxsize=1)
def camel_spellings() -> Mapping[str, str]:
    """camelCase spelling -> field name, for every field of the eval models whose two
    spellings differ."""
    return {
        to_camel(name): name for model in _models() for name in model.model_fields if to_camel(name) != name
    }


def _snake_spellings() -> Mapping[str, str]:
    return {snake: camel for camel, snake in camel_spellings().items()}


def spelt_twice(
    root: type[BaseModel], loc: Sequence[Union[str, int]], key: str, seen: Collection[str]
) -> Optional[str]:
    """The other spelling of ``key`` among ``seen`` when both name one field of the model
    found at ``loc`` (a JSON path from ``root``); else ``None``."""
    camel = camel_spellings()
    other = camel.get(key) or _snake_spellings().get(key)
    if other is None or other not in seen:
        return None
    snake_loc = [camel.get(part, part) if isinstance(part, str) else part for part in loc]
    owner = model_at(root, [*snake_loc, camel.get(key, key)])
    field = camel.get(key, key)
    return other if owner is not None and field in owner.model_fields else None
