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


@functools.cache
def _template(cls: type[BaseModel]) -> tuple[dict[str, Any], tuple[tuple[str, Callable[[], Any]], ...]]:
    """Every field of ``cls`` in declaration order with its immutable default (``None`` in
    place of the others), and the fields whose default is made afresh for each model."""
    template: dict[str, Any] = {}
    made = []
    for name, make in _fields(cls):
        if isinstance(make, functools.partial) and make.func is _same:
            template[name] = make.args[0]
        else:
            template[name] = None
            made.append((name, make))
    return template, tuple(made)


def built(cls: type[M], values: dict[str, Any]) -> M:
    """``cls`` with ``values`` (by field name) and every other field at its default, as
    ``cls.model_construct(**values)`` makes it."""
    template, made = _template(cls)
    data = template.copy()  # the fields in declaration order, whatever the order of values
    data.update(values)
    for name, make in made:
        if name not in values:
            data[name] = make()
    if len(data) != len(template):  # a name that is no field: left out, as model_construct does
        data = {name: data[name] for name in template}
    model = cls.__new__(cls)
    _set(model, "__dict__", data)
    _set(model, "__pydantic_fields_set__", set(values))
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model
