"""JSON paths and pydantic validation errors rendered for people."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any, Union

from pydantic import BaseModel, ValidationError
from pydantic.alias_generators import to_camel, to_snake

__all__ = ["describe_validation_error", "json_path", "suggest"]

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


def suggest(word: str, choices: Iterable[str]) -> str | None:
    """The closest valid choice to a misspelt key (camelCase compared as snake_case)."""
    choices = list(choices)
    candidates = {to_snake(c): c for c in choices}
    found = difflib.get_close_matches(to_snake(word), list(candidates), n=1, cutoff=0.75)
    return candidates[found[0]] if found else None


def _model_at(model: type[BaseModel], loc: Sequence[Union[str, int]]) -> type[BaseModel] | None:
    """The pydantic model that owns the last element of ``loc`` (best effort)."""
    import typing

    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int) or not (isinstance(current, type) and issubclass(current, BaseModel)):
            continue
        field = current.model_fields.get(part)
        if field is None:
            return None
        current = _first_model(field.annotation, typing)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


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
    owner = _model_at(model, tuple(error["loc"]))
    if not isinstance(parent, dict) or owner is None:
        return ""
    known = set(owner.model_fields) | {
        f.alias for f in owner.model_fields.values() if f.alias
    } | {to_camel(n) for n in owner.model_fields}
    strays = [k for k in parent if k not in known]
    return f" (the object has keys it does not know: {', '.join(map(repr, strays))})" if strays else ""


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def describe_validation_error(
    exc: ValidationError, model: type[BaseModel], *, prefix: Sequence[Union[str, int]] = ()
) -> str:
    """One line per problem: ``<json path>: <what is wrong> (<fix>)``."""
    lines = []
    errors = exc.errors(include_url=False)
    for error in errors[:MAX_ERRORS_SHOWN]:
        loc = tuple(prefix) + tuple(error["loc"])
        kind = error["type"]
        path = json_path(loc)
        if kind == "missing":
            lines.append(f"{path}: required key is missing{_strays(model, error)}")
        elif kind == "extra_forbidden":
            key = str(loc[-1])
            owner = _model_at(model, tuple(error["loc"]))
            valid = sorted(owner.model_fields) if owner else []
            hint = suggest(key, valid) if valid else None
            fix = f"did you mean {hint!r}?" if hint else (
                f"valid keys here: {', '.join(valid)}" if valid else "remove it"
            )
            lines.append(f"{path}: unknown key {key!r}; {fix}")
        else:
            msg = error["msg"]
            if msg.startswith("Value error, "):
                msg = msg[len("Value error, "):]
            lines.append(f"{path}: {msg} (got {_short(error.get('input'))})")
    if len(errors) > MAX_ERRORS_SHOWN:
        lines.append(f"... and {len(errors) - MAX_ERRORS_SHOWN} more problems")
    return "\n".join(lines)
