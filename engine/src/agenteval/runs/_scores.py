"""``scores.jsonl``: each record's key, place, status and per-criterion results, one short
JSON array a line, written as the run goes (right after the record's index line).

A line is ``[eval_set_index, case_id, run_index, offset, length, status, criteria]``, each
criterion ``[criterion, status, score, reason_code, verdict, rubrics]`` as in the index
(``docs/run-folder.md``): the index without its previews, so a reader of a big run parses the
whole file in one call and pairs, counts and lists cases from it without reading a line of
``index.jsonl`` or a record.

It is only ever a shortcut: a reader takes it (``sealed_scores``) when the run's sealed
``summary.json`` is current (``RecordedRun._summary_is_current``) and records the file's size
and sha256, and its lines lay the records end to end over the whole of ``results.jsonl``
(every record has its line, in file order, and no other byte lies between); for a run still
going or killed (no seal), when its lines lay the records end to end up to the last complete
line of ``results.jsonl`` and it is not older than that file (``RecordedRun._listed_scores``).
Anything else — an older engine's folder, a line lost, a hand edit of a finished run's file —
and readers go the index's way, as before.
"""

from __future__ import annotations

import hashlib
import itertools
import operator
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, Optional

import pydantic_core

from .._gc import gc_paused
from .._jsonsafe import writable
from .._secrets import scrubbed_bytes
from ._index import criteria_well_formed, criterion_arrays
from ._records import CaseRecord, SummaryDocument

__all__ = [
    "SCORES",
    "ScoresFile",
    "json_lines",
    "rows_well_formed",
    "score_data",
    "score_line",
    "sealed_scores",
]

SCORES = "scores.jsonl"

#: a ``scores.jsonl`` line as ``sealed_scores`` gives it
Row = list[Any]


def score_data(
    record: CaseRecord, offset: int, length: int, criteria: Optional[list[list[Any]]] = None
) -> bytes:
    """``score_line`` as compact JSON (``writable`` first when pydantic's encoder refuses it)."""
    line_data = score_line(record, offset, length, criteria)
    try:
        return pydantic_core.to_json(line_data)
    except pydantic_core.PydanticSerializationError:  # a lone surrogate, an odd rubric value
        return pydantic_core.to_json(writable(line_data))


def score_line(
    record: CaseRecord, offset: int, length: int, criteria: Optional[list[list[Any]]] = None
) -> list[Any]:
    """The ``scores.jsonl`` line (as plain data) of ``record``, written at ``offset`` with
    ``length`` bytes (``criteria``: its ``criterion_arrays``, when made already)."""
    return [
        record.eval_set_index,
        record.case_id,
        record.run_index,
        offset,
        length,
        record.status.value,
        criteria if criteria is not None else criterion_arrays(record),
    ]


def rows_well_formed(rows: list[Any], statuses: Iterable[str]) -> bool:
    """Whether every one of ``rows`` is a line as ``score_line`` writes it: the key's types,
    a status of ``statuses`` and criteria as written (``criteria_well_formed``). Checked
    column by column over the whole file, in C loops."""
    if not rows:
        return True
    try:
        if set(map(type, rows)) != {list} or set(map(len, rows)) != {7}:
            return False
        sets, cases, runs, status = (map(operator.itemgetter(i), rows) for i in (0, 1, 2, 5))
        if set(map(type, sets)) != {int} or set(map(type, cases)) != {str} or set(map(type, runs)) != {int}:
            return False
        criteria = list(map(operator.itemgetter(6), rows))
        if not set(statuses).issuperset(status) or set(map(type, criteria)) != {list}:
            return False
    except TypeError:  # a status that is no string (a list, say) cannot be looked up
        return False
    return criteria_well_formed(list(itertools.chain.from_iterable(criteria)))


class ScoresFile:
    """The open ``scores.jsonl`` of a run being written: its size and running sha256 are
    what the summary seals (``seal``)."""

    def __init__(self, handle: IO[bytes], digest: Any, size: int) -> None:
        self._handle = handle
        self._digest = digest
        self._size = size

    @classmethod
    def create(cls, folder: Path) -> ScoresFile:
        return cls(open(folder / SCORES, "ab"), hashlib.sha256(), 0)

    @classmethod
    def reopen(cls, folder: Path, results_size: int) -> Optional[ScoresFile]:
        """Continue an earlier session's file (``--resume``): kept when its lines lay every
        record of ``results.jsonl`` (``results_size`` bytes, its truncated last line cut)
        end to end, cut back to them; else removed, and the resumed run writes none (its
        readers go the index's way)."""
        path = folder / SCORES
        kept = _tiling_prefix(path, results_size)
        if kept is None:
            path.unlink(missing_ok=True)
            return None
        with open(path, "rb+") as handle:
            handle.truncate(len(kept))
        return cls(open(path, "ab"), hashlib.sha256(kept), len(kept))

    def append(
        self,
        record: CaseRecord,
        offset: int,
        length: int,
        scrub: Callable[[str], str],
        criteria: Optional[list[list[Any]]] = None,
    ) -> None:
        """Write ``record``'s line (``score_line``; ``scrub`` takes credentials out) and
        flush it (``criteria``: the record's ``criterion_arrays``, when made already)."""
        self.append_data(score_data(record, offset, length, criteria), scrub)

    def append_data(self, data: bytes, scrub: Callable[[str], str]) -> None:
        """Write a line's JSON (``score_data``) scrubbed, and flush it."""
        line = scrubbed_bytes(data, scrub) + b"\n"
        self._handle.write(line)
        self._handle.flush()
        self._digest.update(line)
        self._size += len(line)

    def seal(self) -> dict[str, Any]:
        """What ``summary.json`` records of the file: its size and sha256."""
        return {"scores_bytes": self._size, "scores_sha256": self._digest.hexdigest()}

    def close(self) -> None:
        self._handle.close()


def _tiling_prefix(path: Path, results_size: int) -> Optional[bytes]:
    """The lines of ``path`` that lay records end to end from the start of ``results.jsonl``
    up to ``results_size``, when they reach it (``_tiled``); ``None`` when they do not (or no
    file)."""
    try:
        data = path.read_bytes() if path.exists() else b""
    except OSError:
        return None
    lines = data.splitlines(keepends=True)

    def places() -> Iterator[Any]:
        for line in lines:
            try:
                place = pydantic_core.from_json(line)[3:5]
            except (ValueError, TypeError):
                place = None
            yield place if line.endswith(b"\n") else None  # a killed writer's last line: no place

    count = _tiled(places(), results_size)
    return None if count is None else data[: sum(map(len, lines[:count]))]


def _tiled(places: Iterable[Any], size: int) -> Optional[int]:
    """How many of ``places`` (each record's ``[offset, length]``, in file order) lay records
    end to end from the start of ``results.jsonl`` to exactly ``size`` bytes, no byte between
    them (the places after are not looked at); ``None`` when they do not reach it."""
    end = count = 0
    try:
        for offset, length in places:
            if end == size:
                break
            if offset != end:
                return None
            end = offset + length
            count += 1
    except (TypeError, ValueError):  # not a place
        return None
    return count if end == size else None


def json_lines(data: bytes) -> list[Any]:
    """Every line of a JSON-lines file's ``data`` (each ending in ``\\n``), parsed in one call
    with the collector paused (100k lines of small arrays are half a million objects);
    ``ValueError`` when any line is not JSON."""
    with gc_paused():
        return pydantic_core.from_json(b"[" + data[:-1].replace(b"\n", b",") + b"]") if data else []


def sealed_scores(folder: Path, summary: SummaryDocument) -> Optional[list[Row]]:
    """Every line of ``folder``'s ``scores.jsonl``, parsed in one call, when ``summary`` (the
    run's sealed summary, current: the caller checks) records the file as it is and its lines
    lay the records end to end over the whole of ``results.jsonl``; else ``None``."""
    if summary.scores_bytes is None or summary.scores_sha256 is None or summary.results_bytes is None:
        return None
    try:
        with open(folder / SCORES, "rb") as handle:
            data = handle.read(summary.scores_bytes + 1)
    except OSError:
        return None
    if len(data) != summary.scores_bytes or hashlib.sha256(data).hexdigest() != summary.scores_sha256:
        return None  # changed since the summary sealed it
    try:
        rows = json_lines(data)
        tiled = _tiled(map(operator.itemgetter(3, 4), rows), summary.results_bytes)
    except (ValueError, TypeError, IndexError, KeyError):
        return None
    return rows if tiled == len(rows) else None
