"""Value checks shared by the eval models (raised as ``ValueError`` inside validators, so
pydantic reports them with their JSON path, together with the model's other problems)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Optional

__all__ = ["check_id", "check_unique_rubric_ids"]


def check_id(value: str, what: str) -> str:
    """``value`` unless it is empty, blank or holds a lone UTF-16 surrogate (a string no
    file, terminal or JSON document can carry)."""
    if not value.strip():
        raise ValueError(f"{what} is empty; give it a name that identifies it")
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
