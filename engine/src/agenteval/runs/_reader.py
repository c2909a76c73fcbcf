"""Reading run folders: the manifest, every complete record (a truncated or damaged line
is skipped and counted, never fatal), the last record of each key, and each case's result
combined over its runs, in the run's own order."""

from __future__ import annotations

import bisect
import collections
import contextlib
import functools
import glob
import itertools
import mmap
import operator
import os
import re
import shutil
import weakref
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, ClassVar, Optional, cast

import pydantic_core
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .._auto_runs import case_decided, runs_needed
from .._gc import gc_paused
from .._results import (
    AgentRunRecord,
    CaseResult,
    CriterionResult,
    ErrorInfo,
    EvalSetResult,
    RunResult,
    RunSummary,
    Status,
)
from .._verdicts import SummaryBuilder, case_criteria, case_status, not_evaluated, same_outputs, sum_activity
from ..errors import ConfigError
from ._briefs import (
    _STATUS,
    BRIEF_MARKS,
    BRIEF_PREVIEW,
    BRIEF_START,
    BRIEF_TAIL,
    BRIEFS,
    CaseBrief,
    brief_from_index,
    brief_from_line,
    brief_from_result,
    brief_from_scores,
    criteria_marks,
)
from ._folder import MANIFEST, RESULTS, SET_SUMMARIES, SUMMARY, complete_end, writer_alive
from ._index import (
    INDEX,
    INDEX_VERSION,
    criteria_well_formed,
    index_entry,
    read_index,
    read_lines_at,
    well_formed,
)
from ._records import CaseRecord, EvalSetEntry, Manifest, RunState, SummaryDocument, summary_digest
from ._scores import SCORES, Row, _tiled, json_lines, rows_well_formed, sealed_scores

__all__ = ["RecordedRun", "auto_runs_needed", "find_run", "list_runs", "remove_run"]


#: how many cases' brief lines a reader parses one by one (``_brief_line_ref``) before it
#: parses the heads of them all in one call (a reader of every case)
_LINE_READS = 1000
#: The most of ``results.jsonl`` mapped at once to check the byte before each record
#: (``_bytes_at``).
_WINDOW_BYTES = 32 << 20
#: a ``scores.jsonl`` line's key and its record's place
_KEY, _PLACE, _OFFSET = operator.itemgetter(0, 1, 2), operator.itemgetter(3, 4), operator.itemgetter(3)
_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)
#: a planned case's written brief line: ``((eval set index, case id), row, line)``
_Planned = tuple[tuple[int, str], int, dict]


class _Key(BaseModel):
    model_config = ConfigDict(extra="ignore", defer_build=True)
    eval_set_index: int
    case_id: str
    run_index: int = 1


class _Scored(BaseModel):
    """Of a record, what its case's result counts in the run's summary (``case_from_records``:
    the criteria, and the run id that seeds the intervals), where the turns came from and
    how long scoring took: the expected turns are skipped, a quarter of the parse of a whole
    ``CaseRecord``."""

    # built when first used (most readers never use it): not at every start of the CLI
    model_config = ConfigDict(extra="ignore", defer_build=True)
    run_id: str
    origin: str = "recorded"
    duration_s: float = 0.0
    criteria: list[CriterionResult] = Field(default_factory=list)


class _AgentError(BaseModel):
    """Of a record's ``actual`` (``AgentRunRecord``), its error only: its turns are skipped."""

    model_config = ConfigDict(extra="ignore", defer_build=True)
    error_code: Optional[str] = None
    error: Optional[ErrorInfo] = None


class _ScoredOne(_Scored):
    """One run per case: its outputs are compared with no other run's and its agent runs are
    not in the summary (``actual`` skipped too, but for its error: ``agent_error``)."""

    actual: ClassVar[None] = None
    #: the run's error (``AgentRunRecord.error_code`` and ``.error``, both ``None`` without
    #: one), read from ``actual`` without its turns; ``None`` for a record with no ``actual``
    agent_error: Optional[_AgentError] = Field(None, alias="actual")


class _ScoredRuns(_Scored):
    """Several runs per case: identical outputs over the runs change the case's intervals
    (``same_outputs``), so the actual turns are read."""

    actual: Optional[AgentRunRecord] = None


class _TurnId(BaseModel):
    """Of a recorded turn (``Invocation``, written by its camelCase aliases), its id only."""

    model_config = ConfigDict(extra="ignore", defer_build=True, populate_by_name=True)
    invocation_id: str = Field("", alias="invocationId")


class _TurnIds(BaseModel):
    """Of a record's ``actual`` (``AgentRunRecord``), its turns' ids only."""

    model_config = ConfigDict(extra="ignore", defer_build=True)
    invocations: list[_TurnId] = Field(default_factory=list)


class _Reported(_Scored):
    """A record as far as a report of its scores needs it (``records(scored=True)``): its
    key, status, criteria, origin and duration, and of its actual turns their ids."""

    eval_set_index: int
    eval_set_id: str
    case_id: str
    run_index: int = 1
    status: Status
    actual: Optional[_TurnIds] = None


class RecordedRun:
    """A run folder opened for reading. ``ConfigError`` when it is not one."""

    def __init__(self, folder: Path, manifest: Manifest) -> None:
        self.folder = folder
        self.manifest = manifest
        self.damaged_lines = 0
        self._offsets: Optional[dict[tuple[int, str, int], tuple[int, int]]] = None
        #: keys whose last record no index line covers, and where the others' lines are
        self._unindexed: set[tuple[int, str, int]] = set()
        self._index_lines: dict[int, tuple[int, str, int]] = {}
        #: ``results.jsonl`` kept open for ``record`` (a file descriptor, closed with this
        #: object): read by position (``os.pread``), so threads share it without a seek race.
        self._results_fd: Optional[int] = None
        #: ``scores.jsonl``'s lines when the sealed summary vouches for them (``False``: it
        #: does not; ``None``: not looked at yet), and the records' places they give
        self._score_rows: Any = None
        self._score_offsets: Optional[dict[tuple[int, str, int], tuple[int, int]]] = None
        #: the same of a run not finished (``_listed_scores``)
        self._open_score_rows: Any = None
        #: of each case's written brief (``briefs.jsonl``), its records' places and its hints
        #: (``_brief_ref``: a few numbers a case, kept; the lines themselves are not)
        self._brief_refs: Optional[dict[tuple[int, str], tuple[Any, Any]]] = None
        #: the same found lazily: ``briefs.jsonl``'s lines and each case's line number, as a
        #: listing found them (``_brief_marks``)
        self._brief_lines: Optional[tuple[Any, dict[tuple[int, str], int]]] = None
        self._brief_line_reads = 0
        #: the plan's rows and each row's record place, as a listing from ``scores.jsonl``
        #: found them (``record`` looks a few up there rather than keying every line)
        self._listed_places: Optional[tuple[dict[tuple[int, str], int], list[Any]]] = None

    @classmethod
    def open(cls, folder: Path) -> RecordedRun:
        folder = Path(folder)
        path = folder / MANIFEST
        if not path.is_file():
            raise ConfigError(
                f"{str(folder)!r} is not an agenteval run folder (no {MANIFEST}); "
                "list the runs with: agenteval runs list"
            )
        try:
            manifest = Manifest.model_validate_json(path.read_bytes())
            _check_manifest(manifest)
        except (OSError, ValidationError, ValueError) as exc:
            first = _first_problem(exc)
            raise ConfigError(
                f"the run folder's {MANIFEST} is damaged ({first}); this run cannot be read or resumed. "
                "Start a new run, or remove this one with: agenteval runs rm " + folder.name,
                source=str(path),
            ) from None
        return cls(folder, manifest)

    @property
    def run_id(self) -> str:
        return self.manifest.run_id

    @property
    def in_progress(self) -> bool:
        """The manifest says ``running`` and a live process holds the folder (a run killed
        with ``kill -9`` still says ``running``: it is not in progress)."""
        return self.manifest.state is RunState.RUNNING and writer_alive(self.folder) is not False

    def summary(self) -> Optional[SummaryDocument]:
        """``summary.json`` when the run got to write it and nothing changed it since (its
        ``sha256`` checks; an older engine's summary has none)."""
        path = self.folder / SUMMARY
        try:
            data = pydantic_core.from_json(path.read_bytes())
            if data.get("sha256") is not None and data["sha256"] != summary_digest(data):
                return None  # changed by hand or by another tool
            return SummaryDocument.model_validate(data)
        except (OSError, ValidationError, ValueError, AttributeError):
            return None

    def _lines(self, start: int = 0, stop: Optional[int] = None) -> Iterator[tuple[int, bytes]]:
        """``(offset, line)`` of ``results.jsonl`` from byte ``start`` up to ``stop``."""
        path = self.folder / RESULTS
        if not path.is_file():
            return
        with open(path, "rb") as handle:
            handle.seek(start)
            offset = start
            for line in handle:
                if stop is not None and offset >= stop:
                    return
                yield offset, line
                offset += len(line)

    def _scan(self, start: int, stop: Optional[int], offsets: dict, unindexed: set) -> int:
        """Key every line of ``results.jsonl`` between ``start`` and ``stop`` by reading it
        (records the index does not cover); the damaged lines found."""
        damaged = 0
        for offset, line in self._lines(start, stop):
            if not line.endswith(b"\n"):
                damaged += 1  # a killed writer's last line
                continue
            try:
                key = _Key.model_validate_json(line)
            except (ValidationError, ValueError):
                damaged += 1
                continue
            found = (key.eval_set_index, key.case_id, key.run_index)
            offsets[found] = (offset, len(line))
            unindexed.add(found)
        return damaged

    def _walk(self, parse: bool = False) -> Iterator[tuple[tuple[int, str, int], Any]]:
        """One pass that finds every record: ``index.jsonl`` where it can be trusted,
        ``results.jsonl`` itself elsewhere. Yields ``(key, index entry)`` for the records the
        index covers, in file order (the entry parsed with ``parse``, else its line's bytes);
        once it has run to the end, the byte offsets (``_index``) are known."""
        offsets: dict[tuple[int, str, int], tuple[int, int]] = {}
        unindexed: set[tuple[int, str, int]] = set()
        lines: dict[tuple[int, str, int], int] = {}  # key -> its index line's position
        damaged = 0
        end = 0
        verify = self.manifest.index_version < INDEX_VERSION
        for key, offset, length, position, line in (
            read_index(self.folder, RESULTS, parse=parse, verify=verify) or ()
        ):
            if offset > end:
                damaged += self._scan(end, offset, offsets, unindexed)
            offsets[key] = (offset, length)
            lines[key] = position
            if unindexed:
                unindexed.discard(key)
            end = offset + length
            yield key, line
        damaged += self._scan(end, None, offsets, unindexed)
        self._offsets = offsets
        self._unindexed = unindexed
        self._index_lines = {position: key for key, position in lines.items() if key not in unindexed}
        self.damaged_lines = damaged

    def _scores(self) -> Optional[list[Row]]:
        """``scores.jsonl``'s lines (``agenteval.runs._scores``) when the run's sealed, current
        summary vouches for them and they lay every record end to end; else ``None`` (read
        once)."""
        if self._score_rows is None:
            summary = self.summary()
            rows = None
            if summary is not None and self._summary_is_current(summary):
                rows = sealed_scores(self.folder, summary)
            self._score_rows = rows if rows is not None else False
        return self._score_rows if isinstance(self._score_rows, list) else None

    def _listed_scores(self) -> Optional[list[Row]]:
        """``scores.jsonl``'s lines: the ones the sealed summary vouches for (``_scores``),
        or, for a run not finished (killed, or still going: no summary seals them), its lines
        when they lay the records end to end over ``results.jsonl`` up to its last complete
        line, each at the start of a line, and the file is not older than ``results.jsonl``
        (a record's scores line is written after it and its index line: so checked, they are
        worth the index). Else ``None``: the index's way. Read once."""
        rows = self._scores()
        if rows is not None:
            return rows
        if self._open_score_rows is None:
            self._open_score_rows = self._unsealed_scores() or False
        return self._open_score_rows or None

    def _unsealed_scores(self) -> Optional[list[Row]]:
        manifest = self.manifest
        if manifest.state is not RunState.RUNNING or manifest.num_runs_policy == "auto":
            return None  # a finished run's lines count only under its seal
        scores, results = self.folder / SCORES, self.folder / RESULTS
        try:
            size = results.stat().st_size
            if not size or scores.stat().st_mtime_ns < results.stat().st_mtime_ns:
                return None  # records written (or changed) after the last line
            data = scores.read_bytes()
            rows = json_lines(data[: data.rfind(b"\n") + 1])  # a killed writer's last line cut
            end = complete_end(results)  # after it, a killed writer's last record
            with open(results, "rb") as handle:
                if _tiled(map(_PLACE, rows), end) != len(rows):
                    return None
                # the byte before each record: all of them newlines
                before = [offset - 1 for offset in map(_OFFSET, rows) if offset]
                if _bytes_at(handle, end, before).count(10) != len(before):
                    return None
            if not rows_well_formed(rows, _STATUS):
                return None
        except (OSError, ValueError, TypeError, IndexError, KeyError):
            return None
        self.damaged_lines = int(end != size)  # as a walk counts the cut record
        return rows

    def _index(self) -> dict[tuple[int, str, int], tuple[int, int]]:
        """Key -> (offset, length) of the last complete, valid line for that key."""
        if self._offsets is not None:
            return self._offsets
        rows = self._listed_scores() if self._score_offsets is None else None
        if rows is not None:
            # every record laid end to end (no damaged line): the last line of a key counts
            self._score_offsets = dict(zip(map(_KEY, rows), map(_PLACE, rows), strict=True))
        if self._score_offsets is not None:
            return self._score_offsets
        for _ in self._walk():
            pass
        assert self._offsets is not None
        return self._offsets

    def index_entries(self) -> Iterator[dict]:
        """The ``index.jsonl`` entries (``docs/run-folder.md``) of the run's records, as
        plain JSON data: read from the index where it covers a record, made from the record
        where it does not. One entry in memory at a time; far cheaper than reading the
        records when the index is there.

        Each key has one entry, the one of its last record, except when a key's record was
        written more than once (agenteval's own writer never does; another tool might):
        then the first time the run is read, each of its entries comes, in file order, and
        the last one counts. Order: the file's, then records the index does not cover."""
        if self._offsets is not None:
            yield from self._known_entries()
            return
        for _, entry in self._walk(parse=True):  # one pass: the offsets on the way
            yield entry
        yield from self._entries_from_records(self._unindexed)

    def _known_entries(self) -> Iterator[dict]:
        lines = self._index_lines
        seen: set[int] = set()
        try:
            for position, line in read_lines_at(self.folder, set(lines)):
                seen.add(position)
                key = lines[position]
                try:
                    entry = pydantic_core.from_json(line)
                    if tuple(entry["key"]) == key and well_formed(entry):
                        yield entry
                        continue
                except (ValueError, KeyError, TypeError):
                    pass
                yield from self._entries_from_records([key])  # the index changed since: the record
        except OSError:  # the index went away since: the records of the rest
            pass
        # Lines not found where they were (the index changed since): their records.
        rest = [key for position, key in lines.items() if position not in seen]
        yield from self._entries_from_records([*rest, *self._unindexed])

    def _entries_from_records(self, keys: Iterable[tuple[int, str, int]]) -> Iterator[dict]:
        offsets = self._index()
        for key in sorted(keys, key=offsets.__getitem__):
            found = self.record(key)
            if found is not None:
                yield index_entry(found, *offsets[key])

    def keys(self) -> set[tuple[int, str, int]]:
        """Every (eval set index, case id, run index) with a complete record."""
        return set(self._index())

    def records(self, *, scored: bool = False) -> Iterator[CaseRecord]:
        """The last record of every key, in the order first written; ``scored``: each only as
        far as a report of its scores needs it (its key, ``run_id``, ``status``,
        ``criteria``, ``origin`` and ``duration_s``, and of its actual turns only their
        ``invocation_id``: no expected turns, no turn's content), a small part of the parse."""
        path = self.folder / RESULTS
        index = self._index()
        if not index:
            return
        model: type[BaseModel] = _Reported if scored else CaseRecord
        with open(path, "rb") as handle:
            for offset, length in sorted(index.values()):
                handle.seek(offset)
                try:
                    yield cast(CaseRecord, model.model_validate_json(handle.read(length)))
                except (ValidationError, ValueError):
                    self.damaged_lines += 1

    def record(self, key: tuple[int, str, int], *, scored: bool = False) -> Optional[CaseRecord]:
        """The last record for ``key``, if any; ``scored``: only as far as its case's result
        needs it, as ``case_records(scored=True)`` reads it."""
        where = self._listed_place(key)
        if where is None:
            where = self._index().get(key)
        if where is None:
            return None
        model = self._record_model(scored)
        if not hasattr(os, "pread"):  # no positional reads here: a handle of its own
            with open(self.folder / RESULTS, "rb") as handle:
                return self._read_at(handle, where, model)
        if self._results_fd is None:
            self._results_fd = os.open(self.folder / RESULTS, os.O_RDONLY)
            weakref.finalize(self, os.close, self._results_fd)
        try:
            return cast(CaseRecord, model.model_validate_json(os.pread(self._results_fd, where[1], where[0])))
        except (ValidationError, ValueError):
            return None

    def _record_model(self, scored: bool) -> type[BaseModel]:
        """What a record is read as: whole, or (``scored``) as far as its case's result
        needs it, which with several runs per case includes the actual turns."""
        if not scored:
            return CaseRecord
        return _ScoredOne if self.manifest.num_runs == 1 else _ScoredRuns

    def _listed_place(self, key: tuple[int, str, int]) -> Optional[tuple[int, int]]:
        """Where ``key``'s record is, as a listing read it from ``scores.jsonl`` (the lines
        ``_index`` would key), while no other way has keyed the records; else ``None``."""
        found = self._listed_places
        if found is None or key[2] != 1 or self._offsets is not None or self._score_offsets is not None:
            return None
        row = found[0].get((key[0], key[1]))
        return found[1][row] if row is not None else None

    def case_briefs(self, *, previews: bool = True) -> Iterator[CaseBrief]:
        """Every planned case as a ``CaseBrief`` (typed; ``row`` is its place in the plan),
        with the folder's reading rules applied (``agenteval.runs._briefs``). Without
        ``previews`` a brief's ``user``, ``reply`` and ``rubric_texts`` may be left empty, and
        a finished run of one run per case is then read from its ``scores.jsonl`` when the
        sealed summary vouches for it (one parse; no index line read).

        A run of one run per case is read from its index entries (no record read), in the
        order its cases were recorded, then the cases never recorded in plan order; a case
        recorded twice (by another tool: agenteval's writer never does) comes twice, and the
        later one counts. Several runs per case are combined from their records
        (``case_result``), in plan order, one case's records in memory at a time."""
        manifest = self.manifest
        pending = self.in_progress
        if manifest.num_runs != 1:
            yield from self._combined_briefs(pending, previews)
            return
        plan, sets = self._plan()
        seen = bytearray(len(plan))
        point = manifest.confidence is not None
        rows = None if previews else self._listed_scores()
        if rows is not None:
            for line in rows:
                place = plan.get((line[0], line[1])) if line[2] == 1 else None
                if place is not None:  # else a case the plan does not have
                    seen[place] = 1
                    yield brief_from_scores(sets[line[0]], place, line, point)
        else:
            for found in self.index_entries():
                eval_set, case_id, run_index = found["key"]
                place = plan.get((eval_set, case_id)) if run_index == 1 else None
                if place is not None:  # else a case the plan does not have
                    seen[place] = 1
                    yield brief_from_index(sets[eval_set], place, found, point)
        yield from self._unrecorded_briefs(seen, pending)

    def _unrecorded_briefs(self, seen: bytearray, pending: bool) -> Iterator[CaseBrief]:
        """The briefs of the planned cases not ``seen`` (never recorded), in plan order."""
        row = 0
        make = CaseBrief._make
        for entry in self.manifest.eval_sets:
            rest: Optional[tuple] = None  # the same for every unrecorded case of the set
            for case_id in entry.case_ids:
                if not seen[row]:
                    if rest is None:
                        case = self.case_result(entry, case_id, [None], pending=pending)
                        rest = brief_from_result(entry, row, case)[3:]
                    yield make((entry, case_id, row, *rest))
                row += 1

    def case_scores(self) -> Iterator[tuple[int, str, Sequence[Sequence[Any]]]]:
        """Every planned case as ``(row, status, criteria)``, what ``case_briefs(previews=False)``
        says of it without making the briefs (for a reader that sums up a whole run): the
        case's status value and, per criterion, a sequence that starts ``(criterion, status
        value, score)``. A run of one run per case read from its ``scores.jsonl`` gives those
        lines' arrays as they are (then its unrecorded cases), a run of several runs per case
        whose every case has its written brief those lines' (in plan order); any other, its
        briefs' fields."""
        briefs = self.case_briefs(previews=False)
        if self.manifest.num_runs != 1:
            planned = self._planned_brief_lines(refs=True)
            if planned is not None:
                for _, row, line in planned:
                    yield row, line["status"], line["criteria"]
                return
        elif (rows := self._listed_scores()) is not None:
            plan, _ = self._plan()
            seen = bytearray(len(plan))
            for row_line in rows:
                place = plan.get((row_line[0], row_line[1])) if row_line[2] == 1 else None
                if place is not None:  # else a case the plan does not have
                    seen[place] = 1
                    yield place, row_line[5], row_line[6]
            briefs = self._unrecorded_briefs(seen, self.in_progress)
        for brief in briefs:
            yield brief.row, brief.status.value, [(c.name, c.status.value, c.score) for c in brief.criteria]

    def _planned_brief_lines(self, *, refs: bool = False) -> Optional[list[_Planned]]:
        """Every planned case's written brief line (``_written_briefs(previews=False)``) in
        plan order, as ``((eval set index, case id), row, line)``; ``None`` when any planned
        case has none (its brief is combined from its records: the briefs' way) or the run
        has one run per case. ``refs``: keep each case's records' places and hints from the
        lines too (a reader that prints cases seeks their records)."""
        if self.manifest.num_runs == 1:
            return None
        plan, _ = self._plan()
        with gc_paused():
            written = self._written_briefs(previews=False)
            if refs and written and self._brief_refs is None:
                self._brief_refs = _refs(written)
            if len(written) < len(plan):
                return None
            planned = []
            for key, row in plan.items():
                line = written.get(key)
                if line is None:
                    return None
                planned.append((key, row, line))
        return planned

    def _planned_columns(self) -> tuple[list[int], list[str]]:
        """Every planned case's eval set index and case id, in plan order, as two columns."""
        entries = self.manifest.eval_sets
        sets = [index for entry in entries for index in itertools.repeat(entry.index, len(entry.case_ids))]
        return sets, [case_id for entry in entries for case_id in entry.case_ids]

    def _brief_criteria(self) -> Optional[tuple[list[int], list[str], list[list[Any]]]]:
        """Every planned case's eval set index, case id and criterion arrays as its written
        brief line holds them (``_planned_brief_lines``: the same rules), in plan order, each
        line's key and criteria cut out of it by position and parsed together in one call
        (nothing else of a line parsed: a third of its bytes); ``None`` when not so read (then
        the lines' way): one run per case, a planned case with no line, a line not as
        ``brief_line`` writes it."""
        if self.manifest.num_runs == 1:
            return None
        try:
            data = self._briefs_data()
        except OSError:
            return None
        # every line ends in a newline and starts as ``brief_line`` writes it
        if not data.endswith(b"\n"):
            return None
        pieces: list[bytes] = []
        add, find, starts = pieces.extend, data.find, data.startswith
        # ``],"status":``, ``,"criteria":`` and ``,"preview":`` are never inside a JSON string
        # (a quote there is escaped): the first of each after the one before is the line's own;
        # looked for in the file's bytes (no line cut out: a copy of every byte)
        line, size = 0, len(data)
        while line < size:
            stop = find(b"\n", line)
            key = find(b'],"status":', line + 8, stop)
            start = find(b',"criteria":', key, stop)
            end = find(b',"preview":', start, stop)
            if key < 0 or start < 0 or end < 0 or not starts(BRIEF_START, line):
                return None
            add((b",[", data[line + 7 : key + 1], b",", data[start + 12 : end], b"]"))
            line = stop + 1
        pieces[0] = b"[["
        sets, cases = self._planned_columns()
        try:
            # arrays only: no key to cache, and case ids are each their own (``cache_strings``
            # would only look them up)
            lines = pydantic_core.from_json(b"".join(pieces) + b"]", cache_strings="keys")
            keys = list(map(_FIRST, lines))
            if list(map(_FIRST, keys)) == sets and list(map(_SECOND, keys)) == cases:
                return sets, cases, list(map(_SECOND, lines))  # one line a case, in plan order
            written = {(found[0][0], found[0][1]): found[1] for found in lines}  # the last line counts
            return sets, cases, list(map(written.__getitem__, zip(sets, cases, strict=True)))
        except (ValueError, TypeError, IndexError, KeyError):  # (``KeyError``: a case with no line)
            return None

    def _plan(self) -> tuple[dict[tuple[int, str], int], dict[int, EvalSetEntry]]:
        """Each planned (eval set index, case id)'s row, and the eval sets by index."""
        plan: dict[tuple[int, str], int] = {}
        sets: dict[int, EvalSetEntry] = {}
        for entry in self.manifest.eval_sets:
            sets[entry.index] = entry
            start = len(plan)
            keys = zip(itertools.repeat(entry.index), entry.case_ids)
            plan.update(zip(keys, range(start, start + len(entry.case_ids)), strict=True))
        return plan, sets

    def case_listing(self) -> Iterator[tuple[EvalSetEntry, str, Status, int, bool]]:
        """Every planned case in plan order as ``(eval set, case id, status, inconclusive,
        unreached)``: what a listing decides on before it reads a case (a ``CaseBrief``'s
        ``status``, ``inconclusive`` and ``unreached``; a later brief of a case replaces an
        earlier one). A finished run of one run per case is read column by column from its
        ``scores.jsonl`` when the sealed summary vouches for it (no brief made), any other
        from ``case_briefs``."""
        # a tuple per case, kept to the end, and no cycle among them: the collector would
        # walk them all over and over (and the lines of the files read) for nothing
        with gc_paused():
            listed = self._listed()
        yield from listed

    def _listed(self) -> list[Any]:
        rows = self._listed_scores() if self.manifest.num_runs == 1 else None
        plan, sets = self._plan()
        # plain tuples, not briefs: 100k briefs kept alive would cost memory and slow every
        # garbage collection down while they are read
        listed: list[Any] = [None] * len(plan)
        written = self._brief_marks() if self.manifest.num_runs != 1 else {}
        if written is None:  # an older engine's file (no marks), or lines not read so: parsed
            heads = self._brief_heads()
            if heads and self._brief_refs is None:
                self._brief_refs = _refs(heads)
            written = {key: (line["status"], *_marks(line)) for key, line in heads.items()}
        if written and written.keys() >= plan.keys():
            # several runs per case, every case's brief written as it finished
            if list(written) == list(plan):  # in the plan's order: column by column
                keys, marks = list(written), written.values()
                statuses, doubtful, unreached = zip(*marks, strict=True)
                listed[:] = zip(
                    map(sets.__getitem__, map(operator.itemgetter(0), keys)),
                    map(operator.itemgetter(1), keys),
                    map(_STATUS.__getitem__, statuses),
                    doubtful,
                    unreached,
                    strict=True,
                )
                return listed
            for (eval_set, case_id), place in plan.items():
                status, *marks_of = written[(eval_set, case_id)]
                listed[place] = (sets[eval_set], case_id, _STATUS[status], *marks_of)
            return listed
        if rows is None:
            criteria: Optional[tuple] = None
            shared = (0, False)
            for each in self.case_briefs(previews=False):
                if each.criteria is not criteria:  # an eval set's unrecorded cases share theirs
                    criteria, shared = each.criteria, (each.inconclusive, each.unreached)
                listed[each.row] = (each.entry, each.case_id, each.status, *shared)
            return listed  # case_briefs covers every planned case
        places: list[Any] = [None] * len(plan)
        for row_line in rows:
            at = plan.get((row_line[0], row_line[1])) if row_line[2] == 1 else None
            if at is not None:  # else a case the plan does not have
                listed[at] = (
                    sets[row_line[0]],
                    row_line[1],
                    _STATUS[row_line[5]],
                    *criteria_marks(row_line[6]),
                )
                places[at] = (row_line[3], row_line[4])  # the last line of a key counts, as in ``_index``
        self._listed_places = (plan, places)
        row = 0
        for entry in self.manifest.eval_sets:
            rest: Optional[tuple] = None  # the same for every unrecorded case of the set
            for case_id in entry.case_ids:
                if listed[row] is None:
                    if rest is None:
                        brief = brief_from_result(entry, row, self.case_result(entry, case_id, [None]))
                        rest = (brief.status, brief.inconclusive, brief.unreached)
                    listed[row] = (entry, case_id, *rest)
                row += 1
        return listed

    def _written_briefs(self, previews: bool = True) -> dict[tuple[int, str], dict]:
        """The lines of ``briefs.jsonl`` by (eval set index, case id) when the run's sealed
        summary covers that file as it is; else none. Without ``previews`` the lines may be
        read without their previews and rubric texts (``BRIEF_PREVIEW`` cut: half the bytes
        to parse)."""
        if not previews:
            cut = self._read_briefs(BRIEF_PREVIEW)
            if cut is not None:
                return cut
        return self._read_briefs() or {}

    def _read_briefs(self, tail: Optional[re.Pattern[bytes]] = None) -> Optional[dict[tuple[int, str], dict]]:
        """``briefs.jsonl``'s lines by case (``_written_briefs``), each with ``tail`` cut
        (``BRIEF_TAIL``: the heads only, ``None`` when a line has none, an older engine's
        file); ``None`` too when a line so cut is not JSON."""
        written: dict[tuple[int, str], dict] = {}
        try:
            data = self._briefs_data()
            for found in json_lines(tail.sub(b"}", data) if tail is not None else data):
                if tail is BRIEF_TAIL and "marks" not in found:
                    return None
                written[(found["key"][0], found["key"][1])] = found
            if not _briefs_well_formed(written.values(), criteria=tail is not BRIEF_TAIL):
                raise ValueError("a brief line not as brief_line writes it (a hand edit)")
        except (OSError, ValueError, TypeError, KeyError):
            return None if tail is not None else {}
        return written

    def _briefs_data(self) -> bytes:
        """``briefs.jsonl``'s bytes when the run's sealed summary covers that file as it is;
        else none (``OSError`` when it cannot be read)."""
        summary = self.summary()
        if summary is None or summary.briefs_bytes is None or not self._summary_is_current(summary):
            return b""
        data = (self.folder / BRIEFS).read_bytes()
        return data if len(data) == summary.briefs_bytes else b""

    def _brief_marks(self) -> Optional[dict[tuple[int, str], tuple[str, int, bool]]]:
        """Each case's status and marks (``criteria_marks``) as its written brief says, under
        the rules of ``_written_briefs``, found in the lines by ``BRIEF_MARKS`` (no line
        parsed; each case's line number kept for ``_brief_ref``); ``None`` when a line is
        not so read (an older engine's file: no marks) or the file cannot be read. The last
        line of a case counts."""
        try:
            data = self._briefs_data()
            lines = data.count(b"\n")
            # one start a line, at its start, and nowhere else: the n-th match is the n-th line
            if data and (not data.startswith(BRIEF_START) or data.count(BRIEF_START) != lines):
                return None
            if data.count(b"\n" + BRIEF_START) != max(lines - 1, 0):
                return None
            found = BRIEF_MARKS.findall(data)
            if len(found) != lines:
                return None
            # column by column, in C loops: 100k lines
            indexes, raw_ids, statuses, doubtful, unreached = zip(*found, strict=True) if found else ((),) * 5
            keys = list(zip(map(int, indexes), _strings(raw_ids), strict=True))
            marks = zip(_strings(statuses), map(int, doubtful), map(b"true".__eq__, unreached), strict=True)
            written = dict(zip(keys, marks, strict=True))  # the last line of a case counts
            numbers = dict(zip(keys, range(lines), strict=True))
        except (OSError, ValueError):
            return None
        self._brief_lines = (data, numbers)
        return written

    def _brief_heads(self) -> dict[tuple[int, str], dict]:
        """The heads of ``briefs.jsonl``'s lines (key, status, marks, places, hints: what a
        listing and a reader of a few cases need), by case, under the rules of
        ``_written_briefs``: a third of the bytes of the whole lines to parse (the whole
        lines when they have no head: an older engine's file)."""
        heads = self._read_briefs(BRIEF_TAIL)
        return heads if heads is not None else self._written_briefs()

    def _combined_briefs(self, pending: bool, previews: bool = True) -> Iterator[CaseBrief]:
        """Several runs per case, in plan order: each case's brief from ``briefs.jsonl`` when
        the run's sealed summary covers that file as it is (the briefs the run wrote as each
        case finished; without ``previews``, read without them), the others combined from
        their records. A line is parsed when its case comes (``_brief_marks`` found it): a
        reader of the first cases parses theirs only, and no reader holds every line parsed
        (four times the file's size). A line not as ``brief_line`` writes it (a hand edit the
        seal, a size, does not see) is that case's alone: it is combined from its records."""
        marks = self._brief_marks()
        if marks is None:  # an older engine's file (no marks), or unreadable: the lines parsed at once
            yield from self._combined_from(self._written_briefs(previews), pending)
            return
        assert self._brief_lines is not None
        numbers = self._brief_lines[1]
        rows, missing = self._plan_rows(numbers)
        combined = self._combined_of(missing, pending, rows) if missing else {}
        lines = self._split_brief_lines()
        handle: Optional[IO[bytes]] = None
        with contextlib.ExitStack() as stack:
            for entry in self.manifest.eval_sets:
                for case_id in entry.case_ids:
                    key = (entry.index, case_id)
                    number = numbers.get(key)
                    found = _brief_line(lines[number], previews) if number is not None else None
                    if found is not None:
                        yield brief_from_line(entry, rows[key], found)
                        continue
                    if number is None:
                        yield combined[key]
                        continue
                    # a line not as written: the case's records, found by the index (not the line)
                    index = self._index()
                    if handle is None and index:
                        with contextlib.suppress(FileNotFoundError):
                            handle = stack.enter_context(open(self.folder / RESULTS, "rb"))
                    records = self._records_of(entry, case_id, index, handle)
                    case = self.case_result(entry, case_id, records, pending=pending)
                    yield brief_from_result(entry, rows[key], case, records)

    def _combined_from(self, written: dict[tuple[int, str], dict], pending: bool) -> Iterator[CaseBrief]:
        """``_combined_briefs`` from lines parsed at once (``_written_briefs``: none when any
        is not as written)."""
        rows, missing = self._plan_rows(written)
        # every case's brief written: no record read, nor the offsets of any (a walk of the index)
        combined = self._combined_of(missing, pending, rows) if missing else {}
        for entry in self.manifest.eval_sets:
            for case_id in entry.case_ids:
                key = (entry.index, case_id)
                found = written.get(key)
                yield brief_from_line(entry, rows[key], found) if found is not None else combined[key]

    def _plan_rows(
        self, written: Container[tuple[int, str]]
    ) -> tuple[dict[tuple[int, str], int], set[tuple[int, str]]]:
        """Each planned case's row (``_plan``), and the planned cases ``written`` lacks."""
        rows = self._plan()[0]
        return rows, {key for key in rows if key not in written}

    def _combined_of(
        self, keys: set[tuple[int, str]], pending: bool, rows: dict[tuple[int, str], int]
    ) -> dict[tuple[int, str], CaseBrief]:
        """The briefs of the cases ``keys``, each combined from its records (one pass)."""
        return {
            (entry.index, case_id): brief_from_result(
                entry,
                rows[(entry.index, case_id)],
                self.case_result(entry, case_id, records, pending=pending),
                records,
            )
            for entry, case_id, records in self.case_records(only=keys)
        }

    def _split_brief_lines(self) -> list[bytes]:
        """``briefs.jsonl``'s lines as ``_brief_marks`` found them (split once, then kept
        split for ``_brief_line_ref``)."""
        assert self._brief_lines is not None
        data, numbers = self._brief_lines
        if isinstance(data, bytes):
            data = data.split(b"\n")
            self._brief_lines = (data, numbers)
        return data

    def case_records(
        self, only: Optional[set[tuple[int, str]]] = None, *, scored: bool = False
    ) -> Iterator[tuple[EvalSetEntry, str, list[Optional[CaseRecord]]]]:
        """Each planned case in plan order with its record for every run (``None`` for a
        run never recorded), read through one open file: one record in memory at a time;
        ``only``: just these (eval set index, case id) keys; ``scored``: each record only as
        far as the run's summary needs it (its ``criteria``, ``origin``, ``run_id`` and
        ``duration_s``; no expected turns, nor the actual ones with one run per case, whose
        ``actual`` is then ``None`` and its error, if any, ``agent_error``: ``error_code`` and
        ``error``), for ``result_summary`` and a report of every case's outcome.

        Under ``--num-runs auto`` a case lists only the runs it needed: all it has when the
        run completed, else up to the look it was in (``auto_runs_needed``), so a run its
        verdict made unnecessary is never taken for an interrupted one."""
        model = self._record_model(scored)
        briefed = model is _ScoredRuns and self.manifest.num_runs_policy != "auto"
        # the records' places: from the briefs where they say them, the index (every
        # ``scores.jsonl`` line parsed and kept: half a gigabyte at 100k cases of 3 runs)
        # only once a case's brief does not
        index = None if briefed else self._index()
        with contextlib.ExitStack() as stack:
            handle = None
            if index is None or index:
                with contextlib.suppress(FileNotFoundError):  # no record yet: nothing to read
                    handle = stack.enter_context(open(self.folder / RESULTS, "rb"))
            for entry in self.manifest.eval_sets:
                for case_id in entry.case_ids:
                    if only is None or (entry.index, case_id) in only:
                        records = self._briefed_records(entry, case_id, handle) if briefed else None
                        if records is None:
                            if index is None:
                                index = self._index()
                            records = self._records_of(
                                entry, case_id, index, handle if index else None, model
                            )
                        yield entry, case_id, records

    def _briefed_records(
        self, entry: EvalSetEntry, case_id: str, handle: Optional[IO[bytes]]
    ) -> Optional[list[Optional[CaseRecord]]]:
        """A case's runs read as far as their scores (``_scored_at``) where its written brief,
        current under the run's seal, says where every run's record is (``_briefed_places``);
        ``None`` (read them as ``case_records`` does) otherwise."""
        places = self._briefed_places(entry, case_id)
        if handle is None or places is None:
            return None
        return self._scored_at(places, handle)

    def _briefed_places(self, entry: EvalSetEntry, case_id: str) -> Optional[list[list[int]]]:
        """Where each of a case's runs was written, as its brief says, when it says so for
        every run; else ``None``."""
        places = self._brief_ref(entry, case_id)[0]
        if places is None or len(places) != self.manifest.num_runs or not all(places):
            return None
        return places

    def _scored_at(self, places: list[list[int]], handle: IO[bytes]) -> Optional[list[Optional[CaseRecord]]]:
        """The runs at ``places`` read as far as their scores (``_ScoredOne``: not their actual
        turns, most of a record's parse): records its run wrote and combined, whole then.
        Whether the runs' outputs were identical is read later, only where a verdict depends
        on it (``case_result``). ``None`` when a run's record is not there as said or the
        agent made it (its turns are the case's ``agent_runs``)."""
        records = [self._read_at(handle, (offset, length), _ScoredOne) for offset, length in places]
        if any(record is None or record.origin == "agent" for record in records):
            return None
        return records

    def case_runs(
        self, entry: EvalSetEntry, case_id: str, *, scored: bool = False
    ) -> list[Optional[CaseRecord]]:
        """One case's records, one per run, by the rules of ``case_records`` (``scored``
        too): read where its written brief says they are, when it says so for every run (no
        other record's place looked up)."""
        model = self._record_model(scored)
        places = self._briefed_places(entry, case_id)
        if places is not None:
            with open(self.folder / RESULTS, "rb") as results:
                records = self._scored_at(places, results) if model is _ScoredRuns else None
                if records is not None:
                    return records
                return [self._read_at(results, (offset, length), model) for offset, length in places]
        index = self._index()
        with contextlib.ExitStack() as stack:
            handle = stack.enter_context(open(self.folder / RESULTS, "rb")) if index else None
            return self._records_of(entry, case_id, index, handle, model)

    def _records_of(
        self,
        entry: EvalSetEntry,
        case_id: str,
        index: dict[tuple[int, str, int], tuple[int, int]],
        handle: Optional[IO[bytes]],
        model: type[BaseModel] = CaseRecord,
    ) -> list[Optional[CaseRecord]]:
        manifest = self.manifest
        auto = manifest.num_runs_policy == "auto"
        records: list[Optional[CaseRecord]] = []
        for run_index in range(1, manifest.num_runs + 1):
            where = index.get((entry.index, case_id, run_index))
            if where is None and auto and manifest.state is RunState.COMPLETE:
                break
            records.append(None if where is None or handle is None else self._read_at(handle, where, model))
        if auto and manifest.state is not RunState.COMPLETE:
            needed = auto_runs_needed(
                entry, case_id, records, manifest.looks, manifest.confidence, run_id=self.run_id
            )
            records = records[:needed]
        return records

    def _read_at(
        self, handle: IO[bytes], where: tuple[int, int], model: type[BaseModel] = CaseRecord
    ) -> Optional[CaseRecord]:
        handle.seek(where[0])
        try:  # a ``_Scored`` stands in for the record where only its scores are read
            return cast(CaseRecord, model.model_validate_json(handle.read(where[1])))
        except (ValidationError, ValueError):
            return None

    def case_result(
        self,
        entry: EvalSetEntry,
        case_id: str,
        records: Sequence[Optional[CaseRecord]],
        *,
        pending: Optional[bool] = None,
    ) -> CaseResult:
        """A case's result from its records (``case_records``) as the run itself gave it:
        the run's confidence, and a run never recorded ``pending`` while the run goes on
        (``pending``: ``in_progress`` when not given; a caller combining many cases asks
        once and passes it)."""
        if pending is None:
            pending = self.in_progress
        hints = identical = None
        if len(records) > 1:
            places, hints = self._brief_ref(entry, case_id)
            if places is not None and any(isinstance(record, _ScoredOne) for record in records):
                identical = functools.partial(self._same_outputs, places, records)  # read without turns
        return case_from_records(
            entry,
            case_id,
            records,
            self.manifest.confidence,
            pending=pending,
            hints=hints,
            identical=identical,
        )

    def _same_outputs(self, places: Sequence[Sequence[int]], records: Sequence[Optional[CaseRecord]]) -> bool:
        """``same_outputs`` of the runs whose records are at ``places`` (``records``: as read,
        ``None`` for a run that does not count), their turns read back as plain JSON (a third
        of a model's parse; a record whose run writer wrote it, vouched for by the run's seal),
        run after run until two differ; through the models when one is not as a writer writes
        it."""
        if len(places) < 2 or any(record is None for record in records):
            return False
        try:
            with open(self.folder / RESULTS, "rb") as results:
                first = None
                for offset, length in places:
                    results.seek(offset)
                    found = _outputs(pydantic_core.from_json(results.read(length))["actual"])
                    if found is None or (first is not None and found != first):
                        return False
                    first = found
            return True
        except (ValueError, TypeError, KeyError, AttributeError):
            pass
        with open(self.folder / RESULTS, "rb") as results:
            read = [self._read_at(results, (offset, length), _ScoredRuns) for offset, length in places]
        return same_outputs([record.actual if record is not None else None for record in read])

    def _brief_ref(self, entry: EvalSetEntry, case_id: str) -> tuple[Any, Any]:
        """Where the case's records are and its verdict hints, as its written brief says
        (``briefs.jsonl``, current under the run's seal: its records are the ones the brief
        was made of); ``None`` for what it does not say, or without a brief (and under
        ``--num-runs auto``: a reader may combine a case's records up to a look only)."""
        if self.manifest.num_runs == 1 or self.manifest.num_runs_policy == "auto":
            return None, None
        few = self._brief_line_reads < _LINE_READS
        if self._brief_refs is None and self._brief_lines is not None and few:
            self._brief_line_reads += 1
            found = self._brief_line_ref((entry.index, case_id))
            if found is not None:
                return found
        if self._brief_refs is None:
            with gc_paused():
                self._brief_refs = _refs(self._brief_heads())
        return self._brief_refs.get((entry.index, case_id), (None, None))

    def _brief_line_ref(self, key: tuple[int, str]) -> Optional[tuple[Any, Any]]:
        """``_brief_ref`` from the case's own line, where a listing found it (``_brief_marks``):
        its head alone parsed; ``None`` when that head is not JSON."""
        assert self._brief_lines is not None
        number = self._brief_lines[1].get(key)
        if number is None:
            return None, None
        data = self._split_brief_lines()  # split into lines the first time a case is looked up
        try:
            head = pydantic_core.from_json(BRIEF_TAIL.sub(b"}", data[number]))
            return head.get("at"), head.get("hints")
        except (ValueError, AttributeError):
            return None

    def case_results(self, *, scored: bool = False) -> Iterator[tuple[EvalSetEntry, CaseResult]]:
        """Each planned case's result in plan order: one run as recorded, several runs
        combined (``agenteval._verdicts.combine_runs``). A case with no record (the run was
        interrupted first) is NOT_EVALUATED with reason code ``interrupted`` (``pending``
        while the run is still going). ``scored``: as far as the run's summary needs them
        (``case_records``: a case's ``agent_runs`` left empty with one run per case)."""
        pending = self.in_progress
        for entry, case_id, records in self.case_records(scored=scored):
            yield entry, self.case_result(entry, case_id, records, pending=pending)

    def eval_set_results(self) -> list[EvalSetResult]:
        """Every eval set's case results (all in memory: for reports of a run)."""
        by_set: dict[int, list[CaseResult]] = {}
        for entry, case in self.case_results():
            by_set.setdefault(entry.index, []).append(case)
        return [
            EvalSetResult(eval_set_id=entry.eval_set_id, source=entry.path, cases=by_set.get(entry.index, []))
            for entry in self.manifest.eval_sets
        ]

    def result_summary(self) -> RunSummary:
        """The run's summary: its ``summary.json`` when that is the summary of the records as
        they are now (see ``_summary_is_current``: what the recomputation gives, without
        reading a record), else recomputed from the records by the run's own rules, one case
        at a time, with judge activity from ``summary.json`` when the run wrote it."""
        written = self.summary()
        if written is not None and self._summary_is_current(written):
            return written.summary
        builder = self._builder()
        restored = {i for i, (entry, state) in self._saved_sets().items() if _restored(builder, entry, state)}
        rest = None
        if restored:  # the records of the other eval sets only
            rest = {
                (e.index, c) for e in self.manifest.eval_sets if e.index not in restored for c in e.case_ids
            }
        pending = self.in_progress
        # With one run per case, the cases never recorded differ only by their id: each set's
        # first one's result is made, the others counted as its copies (as the run does)
        unrecorded: dict[int, tuple[EvalSetEntry, CaseResult, list[str]]] = {}
        one = self.manifest.num_runs == 1
        for entry, case_id, records in self.case_records(rest, scored=True) if rest is None or rest else ():
            first = unrecorded.get(entry.index) if one and records == [None] else None
            if first is not None:
                first[2].append(case_id)
                continue
            case = self.case_result(entry, case_id, records, pending=pending)
            builder.add(case, entry)
            if one and records == [None]:
                unrecorded[entry.index] = (entry, case, [])
        for entry, case, copies in unrecorded.values():
            builder.add_copies(case, entry, copies)
        return self._built(builder)

    def _saved_sets(self) -> dict[int, tuple[EvalSetEntry, dict]]:
        """What each eval set the run finished adds to the summary, as the run saved it in
        ``set_summaries.jsonl`` (``RunWriter.append_set_summary``), for the sets whose records
        are all the ones it sums up: every run of every case recorded before the line was
        written, none since (a resume that wrote them again makes the line stale). None under
        ``--num-runs auto`` (a case's runs there depend on how far the run got)."""
        manifest = self.manifest
        if manifest.num_runs_policy == "auto":
            return {}
        try:
            data = (self.folder / SET_SUMMARIES).read_bytes()
        except OSError:
            return {}
        entries = {entry.index: entry for entry in manifest.eval_sets}
        index = self._index() if data else {}
        runs = range(1, manifest.num_runs + 1)
        saved = {}
        for line in data.splitlines():
            try:
                found = pydantic_core.from_json(line)
                entry = entries.get(found["eval_set_index"])
                limit = found["results_bytes"]
                if entry is None or found["run_id"] != self.run_id or not isinstance(limit, int):
                    continue
            except (ValueError, KeyError, TypeError):
                continue  # a killed writer's last line, or not a line of ours
            places = [index.get((entry.index, case_id, run)) for case_id in entry.case_ids for run in runs]
            if all(place is not None and place[0] + place[1] <= limit for place in places):
                saved[entry.index] = (entry, found["state"])
        return saved

    def _summary_is_current(self, written: SummaryDocument) -> bool:
        """Whether ``written`` is the summary of the records as they are now: the run has
        finished (complete, interrupted or failed, however many runs per case), the summary
        was written by this run at its end over every planned case, sealed (it checks), after
        the last record, and ``results.jsonl`` and ``index.jsonl`` are still the sizes it
        records (a ``--resume`` or a hand edit since makes it stale)."""
        manifest = self.manifest
        planned = sum(len(entry.case_ids) for entry in manifest.eval_sets)
        if not (
            written.run_id == self.run_id
            and manifest.state is not RunState.RUNNING
            and written.state is manifest.state
            and written.cases_planned == planned
        ):
            return False
        if written.sha256 is None:
            return False  # an older engine's summary: nothing says which records it sums up
        try:
            results = (self.folder / RESULTS).stat()
            if results.st_mtime_ns > (self.folder / SUMMARY).stat().st_mtime_ns:
                return False  # records written after the summary
            if results.st_size != written.results_bytes:
                return False  # not the records it sums up
            index = self.folder / INDEX
            if (
                written.index_bytes is not None
                and index.exists()
                and index.stat().st_size != written.index_bytes
            ):
                return False
        except OSError:
            return False
        # Sealed by its writer over these very records, which then held a record of every
        # planned case: no need to read the index to know it (the listing reads it once).
        return True

    def _builder(self) -> SummaryBuilder:
        """A summary builder with the run's own statistics settings."""
        manifest = self.manifest
        level = manifest.set_confidence if manifest.set_confidence is not None else manifest.confidence
        return SummaryBuilder(level, self.run_id, manifest.set_verdict)

    def _summary(self, cases: Iterable[tuple[EvalSetEntry, CaseResult]]) -> RunSummary:
        builder = self._builder()
        for entry, case in cases:
            builder.add(case, entry)
        return self._built(builder)

    def _built(self, builder: SummaryBuilder) -> RunSummary:
        """``builder``'s summary, with the judge activity and budget the run's writer saw."""
        manifest = self.manifest
        written = self.summary()
        judge = user_simulator = None
        by_criterion = {}
        if written is not None:
            judge, user_simulator = written.summary.judge, written.summary.user_simulator
            by_criterion = {c.criterion: c.judge for c in written.summary.criteria if c.judge is not None}
        # what the run's limits allowed and used comes from its writer; the rest from the records
        budget = written.summary.budget if written is not None else None
        return builder.build(by_criterion, judge, user_simulator, prices=manifest.judge_prices, budget=budget)

    def result(self) -> RunResult:
        """The run's ``RunResult`` re-rendered from its records (every case in memory; a
        report reads ``case_results()`` instead): verdicts recomputed by the same rules."""
        eval_sets = self.eval_set_results()
        return RunResult(
            engine_version=self.manifest.engine_version,
            summary=self._summary(
                (entry, case)
                for entry, eval_set in zip(self.manifest.eval_sets, eval_sets, strict=True)
                for case in eval_set.cases
            ),
            eval_sets=eval_sets,
            warnings=list(self.manifest.warnings),
            interrupted=self.manifest.state is not RunState.COMPLETE,
            run_id=self.run_id,
        )


def _restored(builder: SummaryBuilder, entry: EvalSetEntry, state: dict) -> bool:
    """Whether ``state`` (a ``set_summaries.jsonl`` line's) now stands in ``builder`` for
    ``entry``'s cases (a damaged one does not: the set is read from its records)."""
    try:
        builder.restore_set(entry, state)
    except ValueError:
        return False
    return True


def _bytes_at(handle: IO[bytes], size: int, offsets: Sequence[int]) -> bytes:
    """The file's byte at each of ``offsets`` (ascending, each below ``size``), read through
    one window of at most ``_WINDOW_BYTES`` mapped at a time: a C-level pass per window, and
    at most a window's pages resident (mapped whole, a file's pages around every byte read
    are mapped in, and a 900 MB ``results.jsonl`` became as much resident memory)."""
    found = bytearray()
    granularity = mmap.ALLOCATIONGRANULARITY
    first = 0
    while first < len(offsets):
        start = offsets[first] - offsets[first] % granularity
        length = min(_WINDOW_BYTES, size - start)
        last = bisect.bisect_left(offsets, start + length, first)
        with mmap.mmap(handle.fileno(), length, access=mmap.ACCESS_READ, offset=start) as window:
            found += bytes(map(window.__getitem__, [offset - start for offset in offsets[first:last]]))
        first = last
    return bytes(found)


def _strings(raw: Sequence[bytes]) -> list[str]:
    """The insides of JSON strings (``raw``) decoded: in one call when none has an escape (a
    NUL byte is never raw inside one: it separates them), else each as JSON."""
    joined = b"\0".join(raw)
    if b"\\" not in joined:
        return joined.decode().split("\0") if raw else []
    return [pydantic_core.from_json(b'"' + each + b'"') for each in raw]


def _brief_line(line: bytes, previews: bool) -> Optional[dict]:
    """One ``briefs.jsonl`` line parsed (without ``previews``: cut before them, when it can
    be, half its bytes), ``None`` when it is not as ``brief_line`` writes it
    (``_briefs_well_formed``)."""
    found = None
    if not previews:
        with contextlib.suppress(ValueError):
            found = pydantic_core.from_json(BRIEF_PREVIEW.sub(b"}", line))
    try:
        if found is None:
            found = pydantic_core.from_json(line)
        return found if type(found) is dict and _briefs_well_formed([found]) else None
    except (ValueError, TypeError, KeyError):
        return None


def _marks(line: dict) -> tuple[int, bool]:
    """A brief line's marks: as written, or from its criteria (an older engine's line)."""
    marks = line["marks"] if "marks" in line else criteria_marks(line["criteria"])
    return marks[0], marks[1]


def _refs(briefs: dict[tuple[int, str], dict]) -> dict[tuple[int, str], tuple[Any, Any]]:
    """Each case's records' places and hints (``_brief_ref``) from its brief line."""
    return {key: (line.get("at"), line.get("hints")) for key, line in briefs.items()}


def _briefs_well_formed(lines: Iterable[dict], *, criteria: bool = True) -> bool:
    """Whether brief lines have the status and (unless cut off: not ``criteria``) the
    criteria ``brief_line`` writes (``criteria_well_formed`` with the runs' scores, over
    every line's at once): the summary seals the file by its size only, so a byte changed by
    hand is found here (``TypeError`` for a status that cannot be looked up)."""
    lines = list(lines)
    statuses = _STATUS
    if not all(found.get("status") in statuses for found in lines):
        return False
    if not criteria:
        return True
    arrays: list[Any] = [found.get("criteria") for found in lines]
    if not all(type(each) is list for each in arrays):
        return False
    return criteria_well_formed(list(itertools.chain.from_iterable(arrays)), run_scores=True)


def _check_manifest(manifest: Manifest) -> None:
    """``ValueError`` for what no run writes (a hand edit) and a reader would trip on: a
    criterion that gates without a threshold, or whose score range is upside down (every
    criterion a run resolves has neither: ``agenteval._resolve``), an eval set listed twice
    or a case listed twice in its set, or a shard record (``--shard I/N``) not as
    ``ShardInfo.record`` writes it."""
    indexes = [entry.index for entry in manifest.eval_sets]
    if len(set(indexes)) != len(indexes):
        raise ValueError(f"eval_sets: an index is given twice ({indexes})")
    for entry in manifest.eval_sets:
        if len(set(entry.case_ids)) != len(entry.case_ids):
            twice = sorted(c for c, n in collections.Counter(entry.case_ids).items() if n > 1)
            named = ", ".join(map(repr, twice[:3]))
            raise ValueError(f"eval set {entry.eval_set_id!r} lists case(s) twice: {named}")
        for criterion in entry.criteria:
            name, low, high = criterion.name, criterion.min_score, criterion.max_score
            if not criterion.informational and criterion.threshold is None:
                raise ValueError(f"criterion {name!r} gates (not informational) but has no threshold")
            if low is not None and high is not None and low > high:
                raise ValueError(f"criterion {name!r}: min_score {low} is above max_score {high}")
    shard = manifest.shard
    if shard is not None and not _shard_well_formed(shard):
        raise ValueError("shard: not an index and count, the plan's fingerprint and its case ids")


def _shard_well_formed(shard: dict[str, Any]) -> bool:
    index, count, ids = shard.get("index"), shard.get("count"), shard.get("plan_case_ids")
    if type(index) is not int or type(count) is not int or not 1 <= index <= count:
        return False
    if (
        type(shard.get("plan_fingerprint")) is not str
        or type(shard.get("fail_on_inconclusive", False)) is not bool
    ):
        return False
    return type(ids) is list and all(type(each) is list and all(type(i) is str for i in each) for each in ids)


def _first_problem(exc: Exception) -> str:
    """One line saying what is wrong: a validation error's first field and message."""
    if isinstance(exc, ValidationError) and exc.errors():
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        return f"{where}: {error['msg']}" if where else error["msg"]
    return str(exc).splitlines()[0]


def case_from_records(
    entry: EvalSetEntry,
    case_id: str,
    records: Sequence[Optional[CaseRecord]],
    confidence: Optional[float] = 0.95,
    *,
    run_id: Optional[str] = None,
    pending: bool = False,
    hints: Optional[Mapping[str, str]] = None,
    identical: Optional[Callable[[], bool]] = None,
) -> CaseResult:
    """A case's result from its per-run records (``None`` for a run never recorded), with
    the verdicts the run itself gave (same rules, same seeds: ``run_id`` defaults to the
    records' own). The run and every reader of its folder go through here. A run never
    recorded is NOT_EVALUATED ``interrupted``, or ``pending`` while the run is still going
    (``pending``: ``RecordedRun.in_progress``). ``hints``: the verdict hints the run wrote
    for these records (``agenteval._verdicts.verdict_hints``), not searched for again.
    ``identical``: whether the runs' outputs were identical, for records read without their
    turns (``same_outputs`` of theirs otherwise), asked only where a verdict depends on it.
    A record whose criteria are not the set's (a hand edit) is a damaged line: never
    recorded."""
    names = [c.name for c in entry.criteria]
    records = [r if r is None or [c.criterion for c in r.criteria] == names else None for r in records]
    per_run: list[list[CriterionResult]] = []
    why, code = (
        ("not scored yet: the run is still going", "pending")
        if pending
        else ("the run was interrupted before this case was scored", "interrupted")
    )
    for run_index, record in enumerate(records, start=1):
        if record is not None:
            per_run.append(list(record.criteria))
            continue
        per_run.append(
            [
                not_evaluated(c, f"run {run_index}: {why}" if len(records) > 1 else why, code)
                for c in entry.criteria
            ]
        )
    first = next((r for r in records if r is not None), None)
    results = case_criteria(
        entry.criteria,
        per_run,
        confidence=confidence,
        seed_parts=(
            run_id if run_id is not None else first.run_id if first is not None else "",
            entry.index,
            case_id,
        ),
        identical_outputs=(
            _Once(identical or functools.partial(_identical, records)) if len(records) > 1 else False
        ),
        hints=hints,
    )
    agent_runs = [r.actual for r in records if r is not None and r.actual is not None and r.origin == "agent"]
    return CaseResult(
        eval_id=case_id,
        status=case_status(results),
        criteria=results,
        agent_runs=agent_runs,
        judge=sum_activity(r.judge for r in results),
    )


class _Once:
    """``ask()``'s answer, asked the first time it is wanted (a case's criteria may each want
    it); lighter to make than ``functools.cache`` (one a case)."""

    __slots__ = ("_answer", "_ask")

    def __init__(self, ask: Callable[[], bool]) -> None:
        self._ask = ask
        self._answer: Optional[bool] = None

    def __call__(self) -> bool:
        if self._answer is None:
            self._answer = self._ask()
        return self._answer


def _identical(records: Sequence[Optional[CaseRecord]]) -> bool:
    """``same_outputs`` of the runs of ``records`` (``None``: never recorded)."""
    return same_outputs([r.actual if r is not None else None for r in records])


def _outputs(actual: Any) -> Optional[list[tuple[str, list[tuple[Any, Any]]]]]:
    """What ``same_outputs`` compares of a run, from its record's ``actual`` as plain JSON,
    as a run writer writes it (camelCase turns; a field left out is ``None``, as the models
    read it): each turn's final text and tool calls (name and arguments), as
    ``Invocation.final_text`` and ``tool_calls`` give them; ``None`` for a run that has none
    to compare (none, an error code, no turn). Raises ``KeyError``, ``TypeError`` or
    ``AttributeError`` on any other shape."""
    if actual is None or actual.get("error_code") is not None or not actual["invocations"]:
        return None
    return [
        (_final_text(turn.get("finalResponse")), _tool_calls(turn.get("intermediateData")))
        for turn in actual["invocations"]
    ]


def _final_text(content: Any) -> str:
    if content is None:
        return ""
    return "\n".join(text for part in content.get("parts") or () if (text := part.get("text")))


def _tool_calls(data: Any) -> list[tuple[Any, Any]]:
    if data is None:
        return []
    if "invocation_events" in data or "toolUses" not in data and "invocationEvents" not in data:
        raise KeyError("not as a run writer writes it")
    if "invocationEvents" not in data:  # the legacy form
        return [(call["name"], call.get("args")) for call in data["toolUses"]]
    return [
        (call["name"], call.get("args"))
        for event in data["invocationEvents"]
        if (content := event.get("content")) is not None
        for part in content.get("parts") or ()
        if (call := part.get("functionCall")) is not None
    ]


def auto_runs_needed(
    entry: EvalSetEntry,
    case_id: str,
    records: Sequence[Optional[CaseRecord]],
    looks: Sequence[int],
    confidence: Optional[float],
    *,
    run_id: Optional[str] = None,
) -> int:
    """How many runs a case of a ``--num-runs auto`` run needs by now, from its records in
    run order (``None``: not recorded): its first look's runs, and each next look's while
    the verdict at the last one is undecided (``agenteval._auto_runs``, the policy). The
    run and every reader of its folder apply this same rule."""

    def decided(look: int) -> bool:
        return case_decided(
            case_from_records(entry, case_id, records[:look], confidence, run_id=run_id).criteria
        )

    return runs_needed(records, looks, decided)


def list_runs(runs_dir: Path) -> list[RecordedRun]:
    """The readable runs in ``runs_dir``, oldest first (damaged ones are left out)."""
    if not runs_dir.is_dir():
        return []
    found = []
    for folder in sorted(p for p in runs_dir.iterdir() if p.is_dir()):
        try:
            found.append(RecordedRun.open(folder))
        except ConfigError:
            continue
    return found


def find_run(runs_dir: Path, ref: Optional[str] = None) -> RecordedRun:
    """A run by folder path, id, unique id prefix, or ``latest`` / ``None`` (the newest)."""
    if ref is not None and ref != "latest":
        path = Path(ref)
        if (path / MANIFEST).is_file() or path.is_dir() and path.parent != Path("."):
            return RecordedRun.open(path)
        if path.parent != Path(".") or path.is_absolute():
            raise ConfigError(f"{ref!r} is not a run folder (there is no folder there) and not a run id")
        prefix = glob.escape(ref)  # an id prefix, never a pattern
        candidates = sorted(runs_dir.glob(f"{prefix}*")) if runs_dir.is_dir() else []
        candidates = [c for c in candidates if c.is_dir()]
        if len(candidates) == 1:
            return RecordedRun.open(candidates[0])
        if len(candidates) > 1:
            names = ", ".join(c.name for c in candidates[:5])
            raise ConfigError(
                f"{ref!r} matches several runs in {str(runs_dir)!r} ({names}); give more of the id"
            )
        raise ConfigError(
            f"no run {ref!r} in {str(runs_dir)!r}; list them with: agenteval runs list"
            + ("" if runs_dir.is_dir() else " (the runs folder does not exist; --runs-dir moves it)")
        )
    runs = list_runs(runs_dir)
    if not runs:
        raise ConfigError(
            f"no recorded runs in {str(runs_dir)!r}; run agenteval run first (or give --runs-dir)"
        )
    return runs[-1]


def remove_run(run: RecordedRun) -> None:
    """Delete a run folder."""
    shutil.rmtree(run.folder)
