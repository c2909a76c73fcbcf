"""The JSON report's cases kept as the run finishes them (``--format json``), so that the
report is written without reading every record back from the run folder.

Each finished case's result is rendered at once, as the report shows it, and set aside in
a temporary file (a 100k-case report does not fit in memory), unnamed where the system
allows it, in the run folder (the disk the records go to, not a memory-backed ``/tmp``);
the report then copies the cases in plan order. The cases an interruption left unstarted
differ only by their id: they are kept as one text and each id (not written out one by
one), and put together when the report reaches them. The text is the one the report would
render from the run folder: the same ``CaseResult`` (the run and every reader of the
folder combine records with one function), the same encoder, and the run folder's
credential scrubbing. A case the fast encoder refuses (a lone surrogate, nesting past its
depth) makes the spool unusable, and the report is read from the folder as before.
"""

from __future__ import annotations

import tempfile
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, NamedTuple, Optional, Union

import pydantic_core

from .._results import CaseResult
from .._secrets import scrubbed_bytes
from ..runs import Manifest

__all__ = ["CASE_INDENT", "CaseSpool", "case_text"]

#: How deep a case sits in the report (``eval_sets[i].cases[j]``).
CASE_INDENT = "\n        "


class _Copy(NamedTuple):
    """A case kept as a copy of another: the shared text around its id, and its id as JSON."""

    head: str
    tail: str
    eval_id: str


def case_text(case: CaseResult) -> str:
    """A case as the JSON report shows it (indented to its place), by pydantic's fast
    encoder; raises when that encoder refuses the case."""
    return case.model_dump_json(indent=2).replace("\n", CASE_INDENT)


_CASE_INDENT = CASE_INDENT.encode()


def _case_bytes(case: CaseResult) -> bytes:
    """``case_text(case)`` as UTF-8, encoded straight to bytes."""
    # by_alias=False as model_dump_json passes it (pydantic-core's own default was True until 2.11)
    data = type(case).__pydantic_serializer__.to_json(case, indent=2, by_alias=False)
    return data.replace(b"\n", _CASE_INDENT)


class CaseSpool:
    """Rendered report cases by ``(eval set index, case id)``, on disk until the report."""

    def __init__(
        self, scrub: Callable[[str], str] = lambda text: text, folder: Optional[Path] = None
    ) -> None:
        self._scrub = scrub
        self._folder = folder
        self._file: Optional[IO[bytes]] = None
        #: where each case is, by eval set index and case id: its slot (the texts in the file
        #: in the order written; a 100k-case run keeps no tuple per case), or the copy it is
        #: made from
        self._where: dict[int, dict[str, Union[int, _Copy]]] = {}
        #: where each slot's text starts in the file (it ends where the next one starts)
        self._starts = array("q")
        self._end = 0
        #: False once a case could not be rendered by the fast encoder.
        self.usable = True

    def add(self, set_index: int, case_id: str, case: CaseResult) -> None:
        """Keep ``case`` (a later result of the same case replaces an earlier one)."""
        if not self.usable:
            return
        try:
            data = _case_bytes(case)
        except (ValueError, RecursionError):  # PydanticSerializationError is a ValueError
            self.discard()
            return
        self._keep(set_index, case_id, scrubbed_bytes(data, self._scrub))

    def _keep(self, set_index: int, case_id: str, data: bytes) -> None:
        if self._file is None:
            self._file = tempfile.TemporaryFile(dir=self._folder, prefix=".report-cases-")
        self._file.write(data)
        self._set(set_index)[case_id] = len(self._starts)
        self._starts.append(self._end)
        self._end += len(data)

    def _set(self, set_index: int) -> dict[str, Union[int, _Copy]]:
        found = self._where.get(set_index)
        if found is None:
            found = self._where[set_index] = {}
        return found

    def add_copies(self, set_index: int, case: CaseResult, case_ids: Sequence[str]) -> None:
        """Keep, for each id of ``case_ids``, ``case`` with that id (rendered once: only the
        id differs from one copy's text to the next)."""
        if not self.usable or not case_ids:
            return
        try:
            text = case_text(case)
            own = pydantic_core.to_json(case.eval_id).decode("utf-8")
        except (ValueError, RecursionError):  # PydanticSerializationError is a ValueError
            self.discard()
            return
        head, found, tail = text.partition(f'"eval_id": {own}')
        if not found or '"' in head:  # not laid out as expected: each copy on its own
            for case_id in case_ids:
                self.add(set_index, case_id, case.model_copy(update={"eval_id": case_id}))
            return
        head += '"eval_id": '
        where = self._set(set_index)
        for case_id in case_ids:
            try:
                encoded = pydantic_core.to_json(case_id).decode("utf-8")
            except (ValueError, RecursionError):
                self.discard()
                return
            where[case_id] = _Copy(head, tail, encoded)

    def covers(self, manifest: Manifest) -> bool:
        """Whether every planned case of ``manifest`` is here."""
        if not self.usable:
            return False
        for entry in manifest.eval_sets:
            where = self._where.get(entry.index, {})
            if not all(case_id in where for case_id in entry.case_ids):
                return False
        return True

    def text(self, set_index: int, case_id: str) -> str:
        """The rendered case (``covers`` first)."""
        place = self._where[set_index][case_id]
        if isinstance(place, _Copy):
            return self._scrub(place.head + place.eval_id + place.tail)
        assert self._file is not None
        offset = self._starts[place]
        end = self._starts[place + 1] if place + 1 < len(self._starts) else self._end
        if self._file.tell() != offset:
            self._file.seek(offset)
        return self._file.read(end - offset).decode("utf-8")

    def prepare_reading(self) -> None:
        """Make what was written readable (call once, before ``text``)."""
        if self._file is not None:
            self._file.flush()
            self._file.seek(0)

    def discard(self) -> None:
        """Drop every kept case; the spool is unusable from now on."""
        self.usable = False
        self._where.clear()
        self._starts = array("q")
        if self._file is not None:
            self._file.close()
            self._file = None
