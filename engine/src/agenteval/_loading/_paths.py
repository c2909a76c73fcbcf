"""JSON paths and pydantic validation errors rendered for people."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Union

from pydantic import BaseModel, ValidationError
from pydantic.alias_generators import to_camel, to_snake

from ..text import suggest

__all__ = ["describe_validation_error", "json_path", "json_type", "model_at", "suggest"]

MAX_ERRORS_SHOWN = 5


def json_path(loc: Sequence[Union[str, int]]) -> str:
    """``('eval_cases', 0, 'eval_id')`` -> ``eval_cases[0].eval_id`` (``$`` for the root)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.isidentifier():
            out += f".{part}" if out else part
        else:
            out += f"[{part!r}]"
    return out or "$"


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type (``object``, ``array``, ``string``...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _is_model(value: Any) -> bool:
    try:
        return isinstance(value, type) and issubclass(value, BaseModel)
    except TypeError:  # Python 3.10 sees ``list[X]`` as a type that issubclass refuses
        return False


def _union_members(annotation: Any) -> dict[str, Any]:
    """Union members by the name pydantic puts in error locations: the ``Tag`` of a
    discriminated union, else the type's name (``UserPersona``, ``str``)."""
    import typing

    from pydantic import Tag

    members: dict[str, Any] = {}
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        inner, *metadata = typing.get_args(annotation)
        tags = [m.tag for m in metadata if isinstance(m, Tag)]
        if tags:
            return {tags[0]: inner}
        return _union_members(inner)
    if origin is Union or type(annotation).__name__ == "UnionType":
        for arg in typing.get_args(annotation):
            if arg is type(None):
                continue
            found = _union_members(arg)
            if found:
                members.update(found)
            elif isinstance(arg, type):
                members[arg.__name__] = arg
    return members


def _walk(model: type[BaseModel], loc: Sequence[Union[str, int]]) -> tuple[tuple[Union[str, int], ...], Any]:
    """``loc`` without pydantic's union-member names, and the model that owns its last
    element (``None`` when unknown)."""
    import typing

    clean: list[Union[str, int]] = []
    current: Any = model
    members: dict[str, Any] = {}
    for position, part in enumerate(loc):
        last = position == len(loc) - 1
        if isinstance(part, int):
            clean.append(part)
            continue
        fields = current.model_fields if _is_model(current) else {}
        if part not in fields and part in members:
            current, members = members[part], _union_members(members[part])
            continue
        clean.append(part)
        if last:
            break
        field = fields.get(part)
        if field is None:
            current, members = None, {}
            continue
        current = _first_model(field.annotation, typing)
        members = _union_members(field.annotation)
        if len([m for m in members.values() if _is_model(m)]) > 1:
            current = None  # which member applies is told by the next element, if at all
    return tuple(clean), (current if _is_model(current) else None)


def model_at(model: type[BaseModel], loc: Sequence[Union[str, int]]) -> type[BaseModel] | None:
    """The pydantic model that owns the last element of ``loc`` (best effort)."""
    return _walk(model, loc)[1]


def _first_model(annotation: Any, typing: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _first_model(arg, typing)
        if found is not None:
            return found
    return None


def _strays(model: type[BaseModel], error: Any) -> str:
    """For a missing key, name the keys present that the model does not know."""
    parent = error.get("input")
    owner = model_at(model, tuple(error["loc"]))
    if not isinstance(parent, dict) or owner is None:
        return ""
    known = (
        set(owner.model_fields)
        | {f.alias for f in owner.model_fields.values() if f.alias}
        | {to_camel(n) for n in owner.model_fields}
    )
    strays = [k for k in parent if k not in known]
    return f" (the object has keys it does not know: {', '.join(map(repr, strays))})" if strays else ""


def _short(value: Any) -> str:
    """The offending value as JSON (``null``, ``true``), as the file spells it."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


#: pydantic's type errors in JSON's words (its own say "dictionary", "instance of EvalCase").
_EXPECTED = {
    "model_type": "an object",
    "model_attributes_type": "an object",
    "dict_type": "an object",
    "list_type": "an array",
    "tuple_type": "an array",
    "string_type": "a string",
    "float_type": "a number",
    "float_parsing": "a number",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
}

#: Keys of the two forms of intermediate data, to explain a file that mixes them.
_INTERMEDIATE_FORMS = {
    "IntermediateData": ("tool_uses", "tool_responses", "intermediate_responses"),
    "InvocationEvents": ("invocation_events",),
}


def _mixed_forms_hint(owner: type[BaseModel], key: str) -> str | None:
    if owner.__name__ not in _INTERMEDIATE_FORMS:
        return None
    other_keys = next(keys for name, keys in _INTERMEDIATE_FORMS.items() if name != owner.__name__)
    if to_snake(key) not in other_keys:
        return None
    return (
        "intermediate data is either the legacy form (tool_uses, tool_responses, "
        "intermediate_responses) or the event form (invocation_events), not both; keep one form"
    )


def describe_validation_error(
    exc: ValidationError, model: type[BaseModel], *, prefix: Sequence[Union[str, int]] = ()
) -> str:
    """One line per problem: ``<json path>: <what is wrong> (<fix>)``."""
    lines = []
    errors = exc.errors(include_url=False)
    for error in errors[:MAX_ERRORS_SHOWN]:
        clean, owner = _walk(model, tuple(error["loc"]))
        loc = tuple(prefix) + clean
        kind = error["type"]
        path = json_path(loc)
        if kind == "missing":
            lines.append(f"{path}: required key is missing{_strays(model, error)}")
        elif kind == "extra_forbidden":
            key = str(loc[-1])
            valid = sorted(owner.model_fields) if owner else []
            hint = suggest(key, valid) if valid else None
            mixed = _mixed_forms_hint(owner, key) if owner else None
            if key in valid:  # the snake_case name beside its camelCase alias
                twice = f"{key!r} is given twice, as {key!r} and {to_camel(key)!r}; keep one spelling"
                lines.append(f"{path}: {twice}")
                continue
            if mixed:
                fix = mixed
            elif hint:
                fix = f"did you mean {hint!r}?"
            else:
                fix = f"valid keys here: {', '.join(valid)}" if valid else "remove it"
            lines.append(f"{path}: unknown key {key!r}; {fix}")
        elif kind in _EXPECTED:
            lines.append(f"{path}: expected {_EXPECTED[kind]}, got {_short(error.get('input'))}")
        else:
            msg = error["msg"]
            if msg.startswith("Value error, "):
                msg = msg[len("Value error, ") :]
            lines.append(f"{path}: {msg} (got {_short(error.get('input'))})")
    if len(errors) > MAX_ERRORS_SHOWN:
        lines.append(f"... and {len(errors) - MAX_ERRORS_SHOWN} more problems")
    return "\n".join(lines)
