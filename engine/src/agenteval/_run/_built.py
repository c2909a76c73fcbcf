"""Result models made from values that are already what validation would make of them.

A run makes models per case and criterion (the evaluator's context, the case's record) from
parts that were validated when they were made. ``built`` makes what ``model_construct``
makes of them — the same field values, the same ``model_fields_set`` — at less cost:
``model_construct`` looks every field up under its alias too and asks each default factory
for its signature.

The caller vouches for the values, as for ``model_construct``: each is what validation
would return for it (models validated when they were made, values of the field's type).
"""

from __future__ import annotations

import copy
import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["built"]

M = TypeVar("M", bound=BaseModel)

_set = object.__setattr__


_IMMUTABLE = (type(None), bool, int, float, str, bytes)


@functools.cache
def _fields(cls: type[BaseModel]) -> tuple[tuple[str, Callable[[], Any]], ...]:
    """The fields of ``cls`` in declaration order, each with what makes its default; only
    for models that keep no private attributes, no unknown keys and no post-init hook, and
    whose default factories take no argument (else the model needs ``model_construct``)."""
    if cls.__private_attributes__ or cls.model_config.get("extra") == "allow" or cls.__pydantic_post_init__:
        raise TypeError(f"{cls.__name__} cannot be built without model_construct")
    fields: list[tuple[str, Callable[[], Any]]] = []
    for name, info in cls.model_fields.items():
        make: Callable[[], Any]
        if info.default_factory is not None:
            if _takes_data(info.default_factory):
                raise TypeError(f"{cls.__name__}.{name}'s default needs model_construct")
            make = info.default_factory  # type: ignore[assignment]  # takes no argument (checked)
        elif isinstance(info.default, _IMMUTABLE):
            make = functools.partial(_same, info.default)
        else:  # a mutable default is copied for each model, as pydantic does
            make = functools.partial(copy.deepcopy, info.default)
        fields.append((name, make))
    return tuple(fields)


def _takes_data(factory: Callable[..., Any]) -> bool:
    """Whether pydantic calls ``factory`` with the data validated so far (its rule: one
    positional parameter without a default)."""
    try:
        parameters = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):  # no signature to read: called without arguments
        return False
    return (
        len(parameters) == 1
        and parameters[0].kind in (parameters[0].POSITIONAL_ONLY, parameters[0].POSITIONAL_OR_KEYWORD)
        and parameters[0].default is parameters[0].empty
    )


def _same(value: Any) -> Any:
    return value


def built(cls: type[M], values: dict[str, Any]) -> M:
    """``cls`` with ``values`` (by field name) and every other field at its default, as
    ``cls.model_construct(**values)`` makes it."""
    data: dict[str, Any] = {}
    for name, default in _fields(cls):
        data[name] = values[name] if name in values else default()
    model = cls.__new__(cls)
    _set(model, "__dict__", data)
    _set(model, "__pydantic_fields_set__", set(values))
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model
