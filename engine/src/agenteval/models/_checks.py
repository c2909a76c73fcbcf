"""Value checks shared by the eval models (raised as ``ValueError`` inside validators, so
pydantic reports them with their JSON path, together with the model's other problems)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Optional

__all__ = ["check_id", "check_unique_rubric_ids"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SEPARATORS = ("/", "\\")


def check_id(value: str, what: str, *, names_files: bool = False) -> str:
    """``value`` unless it is empty, blank, holds a control character (a line break, a
    tab, an escape: an id is shown on one line in every report, log and terminal) or a
    lone UTF-16 surrogate (a string no file, terminal or JSON document can carry); with
    ``names_files`` (an eval set's id, which names files: ``<id>.evalset.json`` for
    ``adk web``, ADK's eval history), also unless it holds a path separator."""
    if not value.strip():
        raise ValueError(f"{what} is empty; give it a name that identifies it")
    control = _CONTROL.search(value)
    if control is not None:
        code = ord(control.group())
        msg = (
            f"{what} holds the control character \\u{code:04x} at position {control.start()}; an id is "
            "shown on one line in every report, log and terminal: remove it"
        )
        raise ValueError(msg)
    separator = next((s for s in _SEPARATORS if s in value), None) if names_files else None
    if separator is not None:
        msg = (
            f"{what} {value!r} holds the path separator {separator!r}; it names files (adk web reads "
            f"<{what}>.evalset.json, ADK's eval history carries it), so it may not hold '/' or '\\': "
            "use letters, digits and '_', as ADK does"
        )
        raise ValueError(msg)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(value[exc.start])
        msg = f"{what} holds \\u{code:04x}, half of a UTF-16 surrogate pair without its other half"
        raise ValueError(msg) from None
    return value


def check_unique_rubric_ids(ids: Iterable[str], where: Optional[str] = None) -> None:
    """``ValueError`` naming the first rubric id given twice (``where`` says which list
    the earlier one is in, when they are two)."""
    seen: set[str] = set()
    for rubric_id in ids:
        if rubric_id in seen:
            also = f" ({where})" if where else ""
            msg = f"rubric_id {rubric_id!r} is used twice{also}; every rubric of a case needs its own id"
            raise ValueError(msg)
        seen.add(rubric_id)
