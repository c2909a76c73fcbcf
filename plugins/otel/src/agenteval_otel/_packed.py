"""A turn's ``Invocation`` kept packed until a case's run reads it.

Held as the engine's pydantic models, every turn of a large trace file stays in memory at
once (`benchmarks/otel_import.py` prints the peak); marshalled and compressed, a turn's plain
dict takes a small part of that. A turn is checked once when the file is read (what
no message can hold is an error then, before any case runs): by a walk of its shape
(``_shape``) when it has the turn builder's plain shape, else by pydantic; and kept as its
packed dict. ``build`` validates that dict into an ``Invocation``.

``Conversation`` is a case's turns as the ``--actual`` reader returns them: a sequence that
builds its invocations when read (the engine lists it once, when the case's run starts).
"""

from __future__ import annotations

import marshal
import zlib
from collections.abc import Iterator, Sequence
from typing import Any, Union, overload

from agenteval.models import Invocation, MissingInput
from agenteval.plugins import gc_paused

from ._shape import check_invocation

__all__ = ["Conversation", "PackedInvocation"]


class PackedInvocation:
    """An ``Invocation``'s plain dict, validated, packed; with the little its readers ask of
    every turn (its id and user text) kept as they are."""

    __slots__ = ("_data", "invocation_id", "missing", "user_text")

    def __init__(self, record: dict[str, Any], missing: tuple[MissingInput, ...] = ()) -> None:
        """``record``: what ``Invocation.model_validate`` takes (a ``ValueError``, pydantic's
        ``ValidationError``, when it cannot); ``missing``: ``Invocation.mark_missing``'s."""
        check_invocation(record)
        self.invocation_id: str = record.get("invocation_id", "")
        parts = record["user_content"].get("parts") or ()
        #: ``Content.text()`` of the user message (read from the checked dict as from the model).
        self.user_text: str = "\n".join(p["text"] for p in parts if p.get("text"))
        self.missing = missing
        self._data: Union[bytes, dict[str, Any]]
        try:  # parsed JSON and the dicts built from it: plain values, which marshal keeps exactly
            self._data = zlib.compress(marshal.dumps(record), 1)
        except ValueError:  # a value of another type (none is expected): the dict is kept as it is
            self._data = record

    def build(self) -> Invocation:
        """A new ``Invocation`` equal to the one validated when the turn was read (with the
        cyclic collector paused, as for a read: a turn's hundreds of objects hold no cycle, and
        the collections they would trigger walk everything a large run holds)."""
        data = self._data
        with gc_paused():
            record = marshal.loads(zlib.decompress(data)) if isinstance(data, bytes) else data
            invocation = Invocation.model_validate(record)
        invocation.mark_missing(self.missing)
        return invocation


class Conversation(Sequence[Invocation]):
    """A case's turns, each built (``PackedInvocation.build``) when it is read: nothing is
    held but the packed turns. Equal to any sequence of equal invocations."""

    __slots__ = ("_turns",)

    def __init__(self, turns: Sequence[PackedInvocation]) -> None:
        self._turns = tuple(turns)

    def __len__(self) -> int:
        return len(self._turns)

    @overload
    def __getitem__(self, index: int) -> Invocation: ...

    @overload
    def __getitem__(self, index: slice) -> list[Invocation]: ...

    def __getitem__(self, index: Union[int, slice]) -> Union[Invocation, list[Invocation]]:
        if isinstance(index, slice):
            return [turn.build() for turn in self._turns[index]]
        return self._turns[index].build()

    def __iter__(self) -> Iterator[Invocation]:
        return (turn.build() for turn in self._turns)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(other) == len(self) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # equal to lists, which are unhashable

    def __repr__(self) -> str:
        return f"Conversation({len(self)} turn(s), built when read)"
