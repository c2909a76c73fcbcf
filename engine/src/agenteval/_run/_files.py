"""The eval files of a run: each read once, its cases kept in memory while they fit a budget.

Planning reads every file once (every problem is found before any work), and each case is
validated on its own (``read_eval_cases``), so that a file of any size is never held whole
as models. A loaded case costs about ten times its bytes in memory (measured on each file:
9x for expected cases, 12x for recorded turns in events form); ``EvalFiles`` keeps the
cases planning validated while their measured cost, with the file being read, fits the
budget, and hands each to the run once (``start_run``), which then reads nothing again and
reuses the memory the case held. The default budget is sized by measurement
(``DEFAULT_BUDGET_MB``).

A run whose cases cost more than the budget in all reads cases again whatever it keeps, and
its own per-case bookkeeping grows with it: it keeps less. Told the files planning will read
(``will_read``), ``EvalFiles`` estimates the whole run's cost (the files read so far as
measured, the others by their size at the cost per byte measured so far) and, past the
budget, keeps the share budget / total of the budget (``kept_limit``): a run twice the budget
keeps half of it, a 100,000-case run of ``benchmarks/scale.py`` about a tenth; a run that fits
keeps everything, as before, and the limit is continuous across the two.

A case not kept is read alone from where it is in the file (``CaseSpans``, about 32 bytes a
case): a few kilobytes, so a file larger than the budget is read whole once, by planning,
however many cases it has. A case read again must be the bytes planning checked (a digest
of each), or the run stops with an error saying the file changed.

A run past the budget validates most cases twice: planning checks them all, the run reads
them again. With two cores, the second process planning uses to check JSON ahead also
validates the cases planning will not keep of a large file, in parts from the last
(``validate_part``: the same checks, each case's bytes checked against its digest, and the
planning callbacks' notes, ``CaseNotes``), while this process goes from the first: it takes
the notes of a part done when it gets there and validates any other itself (never waiting),
so every error and warning is the one the file gives alone.

Planning does not wait for that process's check of a file either: while it is under way,
this process reads the file planning reads after it (``_read_next``: an ADK file whose cases
fit the budget with the one being checked), keeps its cases and hands them to planning in
that file's turn. A file that fails there is read again in its turn, so that its error is
met where planning always meets it. At 10,000 cases in one file of each kind, the expected
file is read while the other process checks the actual one, instead of waiting for it.

Files without spans (ADK's legacy list formats) are read whole again when the run needs a
case that was not kept (checked by sha256). The plan tells ``EvalFiles`` which eval sets
use each file (``schedule``) and the run tells it which set it has reached (``reached``): a
file no later set uses is let go, and when the budget is full the file needed furthest in
the future goes first.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from pydantic import BaseModel

from .._fork import can_fork
from .._loading import LoadedEvalSet, read_eval_file
from .._loading._case_spans import CaseSpans
from .._loading._eval_files import Checked, Part, check_eval_file, read_eval_cases, validate_part
from .._loading._formats import starts_as_eval_set
from ..errors import DataError
from ..models import EvalCase
from ._case_notes import CaseNotes

__all__ = ["DEFAULT_BUDGET_MB", "EvalFiles"]

#: The measured memory of the cases kept at once (``AGENTEVAL_EVAL_CACHE_MB``), with the
#: file being read. Measured on ``benchmarks/scale.py``'s cases (one turn, three tool calls):
#: a 10,000-case run's expected and recorded cases cost 316 MB with its largest file (18.5 MB)
#: being read, which this holds, so that such a run reads nothing twice. A run that costs
#: more keeps a share of it (``kept_limit``): at 100,000 cases in 100 files of 1,000, 37 MB of
#: 3 GB, and a 206 MB peak where keeping the whole budget gave 515 MB (one file of 100,000:
#: 262 MB, was 466 MB). At most a quarter of the memory available when the run starts.
DEFAULT_BUDGET_MB = 336
#: The measured memory of a loaded case per byte of its file, until a file has been measured
#: (``benchmarks/scale.py``: 12.5 for recorded turns in events form, 8.9 for expected cases).
_COST_PER_BYTE = 10
#: How many cases of a file are measured (the first ones, then one in ``_MEASURE_EVERY``)
#: to price its cases.
_SAMPLED_CASES = 16
_MEASURE_EVERY = 256
#: Files of at least this many bytes in all are checked ahead by a second process, each of
#: at most ``_AHEAD_FILE_BYTES`` (a larger file is checked here: the text of a file being
#: checked would take as much memory again in the other process, beside the cases kept here).
_AHEAD_BYTES = 8 * 1024 * 1024
_AHEAD_FILE_BYTES = 32 * 1024 * 1024
#: How many files the second process checks ahead of the one being read in a run past the
#: budget (more would queue the parts it validates behind them; in another run, all at once).
_CHECKS_AHEAD = 2
#: The parts of a file the second process validates: about ``_PARTS`` of its cases not
#: kept, each of ``_LEAST_PART`` to ``_MOST_PART`` cases (this process may do again at most
#: the one the other is on when they meet).
_PARTS = 8
_LEAST_PART = 64
_MOST_PART = 2000
#: The fewest cases not kept for a file to be split: the parts of a smaller one come back
#: too late to help (measured at 100,000 cases in files of 1,000: this process validated as
#: much as alone, the other twice its checks; in one file, half).
_LEAST_SPLIT = 8000
#: Wait for each part instead (tests: which parts come back must not depend on timing).
_WAIT_FOR_PARTS = False


def free_memory() -> Optional[int]:
    """Bytes of memory available to a new process (Linux's ``MemAvailable``, which counts
    the page cache it can reclaim; else the free pages), ``None`` when the system cannot tell."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # not every system can tell
        return None


def _default_budget() -> int:
    budget = DEFAULT_BUDGET_MB * 1024 * 1024
    free = free_memory()
    return budget if free is None or free <= 0 else min(budget, free // 4)


def _budget_from_environment() -> int:
    raw = os.environ.get("AGENTEVAL_EVAL_CACHE_MB", "")
    try:
        return max(0, int(raw)) * 1024 * 1024 if raw else _default_budget()
    except ValueError:
        return _default_budget()


def kept_limit(budget: int, total: int) -> int:
    """The memory the cases kept may take in a run whose cases cost ``total`` in all: the
    whole ``budget`` when they fit it, else its share ``budget / total`` of it (continuous
    at ``total == budget``; keeping less then costs reads in proportion, and frees memory
    for the bookkeeping of a run that large)."""
    return budget if total <= budget else budget * budget // total


def _as_path(path: Path) -> Path:
    return path if isinstance(path, Path) else Path(path)


#: Types that refer to nothing else (most of a case's objects).
_LEAVES = frozenset({str, int, float, bytes})
_SEQUENCES = frozenset({list, tuple, set, frozenset})


def _size_of(value: Any, seen: set[int]) -> int:
    """Bytes of memory ``value`` holds, with what it refers to (each object counted once):
    its own size, and for a model its ``__dict__``, extras and fields set, for a dict its
    keys and values, for a list, tuple or set its items. Walked with a stack, not a call
    per object (a sampled case has about a thousand objects)."""
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None or item is True or item is False or id(item) in seen:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        kind = type(item)
        if kind in _LEAVES:
            continue
        if kind is dict:
            stack.extend(item)
            stack.extend(item.values())
        elif kind in _SEQUENCES:
            stack.extend(item)
        elif isinstance(item, BaseModel):
            stack += (item.__dict__, item.__pydantic_extra__, item.__pydantic_fields_set__)
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
    return total


def measured_cost(loaded: LoadedEvalSet) -> int:
    """The memory a loaded eval set holds, measured on up to ``_SAMPLED_CASES`` of its cases
    spread over the file (within a few percent of what ``tracemalloc`` counts)."""
    cases = loaded.eval_set.eval_cases
    if not cases:
        return _size_of(loaded.eval_set, set())
    step = max(1, len(cases) // _SAMPLED_CASES)
    sample = cases[::step][:_SAMPLED_CASES]
    seen: set[int] = set()
    per_case = sum(_size_of(case, seen) for case in sample) / len(sample)
    return int(per_case * len(cases)) + sys.getsizeof(cases)


class _Pricer:
    """The measured memory of each case of one file: the mean over the cases measured so far
    (the first ``_SAMPLED_CASES``, then one in ``_MEASURE_EVERY``), what they share counted
    once, as ``measured_cost`` counts it."""

    def __init__(self) -> None:
        self._seen: set[int] = set()
        self._measured: list[EvalCase] = []  # held, so that no id in ``_seen`` is reused
        self._total = 0
        self._count = 0

    def cost(self, index: int, case: EvalCase) -> int:
        size = self.size(index, case)
        if size is not None:
            self.add(size)
        return self.each

    def size(self, index: int, case: EvalCase) -> Optional[int]:
        """Case ``index``'s measured memory, when it is one of those measured."""
        if index < _SAMPLED_CASES or index % _MEASURE_EVERY == 0:
            self._measured.append(case)
            return _size_of(case, self._seen)
        return None

    def add(self, size: int) -> None:
        """One more case measured (here or by ``_Noting`` in another process)."""
        self._total += size
        self._count += 1

    @property
    def each(self) -> int:
        """The mean so far (0 before any case)."""
        return self._total // self._count if self._count else 0


class _Noting:
    """What the second process notes of each case of a part it validates: the planning
    callback's note (``CaseNotes.note``) and, for the cases priced, their measured memory."""

    def __init__(self, path: Path, note: Callable[[Path, int, EvalCase], Any]) -> None:
        self.path = path
        self.note = note
        self.pricer: Optional[_Pricer] = None

    def __call__(self, index: int, case: EvalCase) -> tuple[Any, Optional[int]]:
        if self.pricer is None:
            self.pricer = _Pricer()
        return self.note(self.path, index, case), self.pricer.size(index, case)


def _no_note(path: Path, index: int, case: EvalCase) -> None:
    return None


#: Parts this process has done itself (by ``slot``, modulo its size), shared with the second
#: process (made before it forks), which then skips them. A hint only: a part skipped by
#: mistake is validated here. (Cancelling their futures instead would make the executor's
#: thread fail loudly if the second process died.)
_SKIPPED: Optional[Any] = None
_SLOTS = 4096


def _skip(slot: int, skipped: bool) -> None:
    if _SKIPPED is not None:
        _SKIPPED[slot % _SLOTS] = skipped


def _validate_part_ahead(slot: int, *args: Any) -> Optional[Part]:
    """``validate_part`` in the second process, unless this one took the part already."""
    if _SKIPPED is not None and _SKIPPED[slot % _SLOTS]:
        return None
    return validate_part(*args)


@dataclass
class _Cases:
    """One file's cases as planning read them: every id with its position, and the cases
    kept (the first ones, in file order) with the measured cost of each."""

    header: LoadedEvalSet
    positions: dict[str, int]
    by_id: dict[str, EvalCase]
    each: int

    @property
    def cost(self) -> int:
        return self.each * len(self.by_id)

    @property
    def complete(self) -> bool:
        """Every case of the file is in memory."""
        return len(self.by_id) == len(self.positions)


@dataclass
class _File:
    loaded: LoadedEvalSet
    cost: int
    by_id: Optional[dict[str, EvalCase]] = field(default=None, repr=False)

    def case(self, case_id: str) -> Optional[EvalCase]:
        if self.by_id is None:
            self.by_id = {case.eval_id: case for case in self.loaded.eval_set.eval_cases}
        return self.by_id.get(case_id)


class EvalFiles:
    """Eval files read for one run (see the module docstring).

    Args:
        budget: bytes of measured memory for the cases kept (default ``DEFAULT_BUDGET_MB``,
            at most a quarter of the available memory, or ``$AGENTEVAL_EVAL_CACHE_MB``); 0 keeps none.
    """

    def __init__(self, budget: Optional[int] = None) -> None:
        self.budget = _budget_from_environment() if budget is None else budget
        #: cases kept since planning, by file
        self._cases: dict[Path, _Cases] = {}
        #: planning is done: the run takes each kept case (``start_run``)
        self._running = False
        #: whole files read again (files without spans), least recently used first
        self._kept: OrderedDict[Path, _File] = OrderedDict()
        self._cost = 0
        self._sha256: dict[Path, Optional[str]] = {}
        #: where the cases of each file not kept whole are, with their positions by id
        self._spans: dict[Path, tuple[CaseSpans, dict[str, int]]] = {}
        #: how many times a whole file was read again after planning
        self.rereads = 0
        #: how many cases were read alone from their file
        self.case_reads = 0
        self._uses: dict[Path, list[int]] = {}
        self._position = 0
        #: the JSON checks done ahead by another process (``checking_ahead``), by file
        self._ahead: dict[Path, Future[Optional[Checked]]] = {}
        #: the files still to check ahead, in planning order, and how many at once
        self._to_check: list[Path] = []
        #: the file planning reads after each (``checking_ahead``), and which it reads with ``read``
        self._next: dict[Path, Path] = {}
        self._read_here: set[Path] = set()
        #: a file is being read ahead of planning (``_read_next``)
        self._reading_next = False
        self._window = _CHECKS_AHEAD
        #: the second process, while planning reads (``checking_ahead``)
        self._pool: Optional[ProcessPoolExecutor] = None
        #: how many cases the second process validated for planning
        self.cases_ahead = 0
        #: the next part's slot in ``_SKIPPED``
        self._slot = 0
        #: the size of each file planning will read and has not read yet (``will_read``)
        self._unread: dict[Path, int] = {}
        #: the measured cost of every case of the files planning read, and their size
        self._priced = 0
        self._priced_bytes = 0

    def will_read(self, paths: Iterable[Path]) -> None:
        """The files planning is about to read (in any order): their sizes price the whole
        run, so that a run over the budget keeps less (``kept_limit``)."""
        self._unread = {path: _file_size(path) for path in map(Path, paths)}

    def _limit(self) -> int:
        """``kept_limit`` of the whole run as estimated now: the files read as measured, the
        others by their size (``_unread``) at the cost per byte measured so far."""
        unread = sum(self._unread.values())
        return kept_limit(self.budget, self._priced + int(unread * self._per_byte()))

    def _per_byte(self) -> float:
        """The memory a case costs per byte of its file, as measured so far."""
        return self._priced / self._priced_bytes if self._priced_bytes else _COST_PER_BYTE

    @contextmanager
    def checking_ahead(self, paths: Iterable[Path], read_here: Iterable[Path] = ()) -> Iterator[None]:
        """Within the block, a second process checks the JSON of ``paths`` (the files
        planning reads, in its order) a file or two ahead of the one this process validates:
        the check is about a third of reading a file, and it gives only spans or nothing,
        cheap to hand back. In a run whose cases cost more than the budget, it also validates
        the part of each file planning will not keep (``read``). Only with two cores or more;
        checks for files of at most ``_AHEAD_FILE_BYTES`` each and ``_AHEAD_BYTES`` in all
        (the text of a file being checked takes as much memory again in the other process,
        beside the cases kept here), or, in a run past the budget (which keeps a small share
        of it), for every file but the first (which this process reads at once).
        Whatever the other process could not do is done here, so every error is the same.

        ``read_here``: the files among ``paths`` that planning reads with ``read`` (ADK's
        format). While the other process still checks one of them, this process reads the
        next ahead of planning (``_read_next``) rather than wait."""
        sizes = {path: _file_size(path) for path in map(Path, paths)}
        files = [path for path, size in sizes.items() if 0 < size <= _AHEAD_FILE_BYTES]
        parts = sum(sizes.values()) * _COST_PER_BYTE > self.budget
        if parts:  # a run past the budget keeps little: larger files too, but the first
            small = set(files)
            files = [path for n, (path, size) in enumerate(sizes.items()) if size and (n or path in small)]
        elif len(files) < 2 or sum(sizes[path] for path in files) < _AHEAD_BYTES:
            files = []
        if not (files or parts) or not _forkable():
            yield
            return
        global _SKIPPED
        if _SKIPPED is None:
            _SKIPPED = multiprocessing.get_context("fork").RawArray("b", _SLOTS)
        pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
        try:
            pool.submit(os.getpid)  # forked now, while this process holds little
            self._pool, self._to_check = pool, files
            order = list(sizes)
            self._next = dict(zip(order[:-1], order[1:], strict=True))
            self._read_here = set(map(Path, read_here))
            self._window = _CHECKS_AHEAD if parts else len(files)
            self._check_next()
            yield
        finally:
            self._pool, self._ahead, self._to_check = None, {}, []
            self._next, self._read_here = {}, set()
            pool.shutdown(wait=False, cancel_futures=True)

    def _check_next(self) -> None:
        """Keep ``_window`` files being checked by the other process."""
        waiting = sum(1 for future in self._ahead.values() if not future.done())
        while self._pool is not None and self._to_check and waiting < self._window:
            path = self._to_check.pop(0)
            try:
                self._ahead[path] = self._pool.submit(check_eval_file, str(path))
            except Exception:  # noqa: BLE001  (the other process is gone: files are checked here)
                self._to_check = []
                return
            waiting += 1

    def _checked(self, path: Path) -> Optional[Checked]:
        """The other process's check of ``path`` (waited for; but not by a file read ahead of
        planning, which then checks it here)."""
        future = self._ahead.pop(path, None)
        if future is None or (self._reading_next and not future.done()):
            return None
        try:
            return future.result()
        except Exception:  # noqa: BLE001  (the other process failed: the file is checked here)
            return None

    def _read_next(self, path: Path) -> None:
        """While the other process still checks ``path``, read the file planning reads after
        it, so that this process works instead of waiting: its cases are kept, and ``read``
        hands them out when planning reads that file (as for a file given twice). Only a file
        of ADK's format that planning reads with ``read``, and only when both files' cases fit
        the budget. A file that fails is left for planning to read again, in its turn, so that
        it meets the error where it always does."""
        future = self._ahead.get(path)
        after = self._next.get(path)
        if self._reading_next or future is None or future.done() or after is None:
            return
        if after not in self._read_here or after in self._cases:
            return
        sizes = (_file_size(path), _file_size(after))
        room = self._cost + sum(int(size * self._per_byte()) for size in sizes) + max(sizes)
        if not sizes[1] or room > self._limit() or not starts_as_eval_set(after):
            return
        self._reading_next = True
        try:
            self.read(after)
        except Exception:  # noqa: BLE001  (planning reads it again in its turn, and meets it there)
            self._cases.pop(after, None)
            self._unread[after] = sizes[1]
        finally:
            self._reading_next = False

    def schedule(self, uses: dict[Path, list[int]]) -> None:
        """Which eval sets (by index, in run order) use each file."""
        self._uses = {Path(path): sorted(sets) for path, sets in uses.items()}

    def start_run(self) -> None:
        """Planning is done: from now on a kept case is handed out once and let go (the
        run takes it), so that the memory it held serves the run; asked again, it is read
        alone from its file."""
        self._running = True

    def reached(self, set_index: int) -> None:
        """The run has started every case of the sets before ``set_index``: the files only
        those sets use are let go."""
        self._position = set_index
        for path in [p for p in self._kept if self._next_use(p) is None]:
            self._cost -= self._kept.pop(path).cost
        for path in [p for p in self._cases if self._next_use(p) is None]:
            self._cost -= self._cases.pop(path).cost
        for path in [p for p in self._spans if self._next_use(p) is None]:
            del self._spans[path]

    def _next_use(self, path: Path) -> Optional[float]:
        """The first set at or after the run's position that uses ``path`` (``None``: no
        later set does; files without a schedule count as used now)."""
        sets = self._uses.get(path)
        if sets is None:
            return float(self._position)
        return next((float(i) for i in sets if i >= self._position), None)

    def read(self, path: Path, each_case: Optional[Callable[[int, EvalCase], None]] = None) -> LoadedEvalSet:
        """Read and check ``path`` for planning (``DataError`` as ``read_eval_file``),
        handing each case to ``each_case(index, case)`` in file order. Returns the file's
        header (``read_eval_cases``: its ``eval_cases`` is empty). The cases are kept while
        the budget allows, so that the run reads nothing again; of the others, where they
        are in the file. With ``each_case`` a ``CaseNotes`` (or none), the cases planning
        will not keep may be validated by the other process (``checking_ahead``), which
        hands ``each_case.add`` its notes instead."""
        path = Path(path)
        self._read_next(path)
        limit = self._limit()
        self._unread.pop(path, None)
        held = self._cases.get(path)
        if held is not None:  # a file given twice (say, as expected and as actual), or read ahead
            if not held.complete:
                return read_eval_cases(path, each_case or _ignore)
            for index, case in enumerate(held.by_id.values()):
                if each_case is not None:
                    each_case(index, case)
            return held.header
        reading = _file_size(path)
        kept: dict[str, EvalCase] = {}
        ids: list[str] = []
        pricer = _Pricer()
        spent = 0
        checked = self._checked(path)
        self._check_next()

        def take(index: int, case: EvalCase) -> None:
            nonlocal spent
            if each_case is not None:
                each_case(index, case)
            ids.append(case.eval_id)
            cost = pricer.cost(index, case)
            if len(kept) == index and self._cost + spent + cost + reading <= limit:
                kept[case.eval_id] = case
                spent += cost

        def noted(index: int, eval_id: str, note: tuple[Any, Optional[int]]) -> None:
            if isinstance(each_case, CaseNotes):
                each_case.add(index, note[0])
            ids.append(eval_id)
            if note[1] is not None:
                pricer.add(note[1])

        splits = self._pool is not None and (each_case is None or isinstance(each_case, CaseNotes))
        split = self._splitter(path, each_case, limit - self._cost - reading, reading) if splits else None
        header = read_eval_cases(path, take, checked, split, noted)
        self._sha256[path] = header.sha256
        self._priced += pricer.each * len(ids)
        self._priced_bytes += reading
        positions = {case_id: n for n, case_id in enumerate(ids)}
        self._cases[path] = _Cases(header, positions, kept, spent // len(kept) if kept else 0)
        self._cost += self._cases[path].cost
        if header.case_spans is not None:
            self._spans[path] = (header.case_spans, positions)
        return header

    def _splitter(
        self, path: Path, each_case: Optional[Callable[[int, EvalCase], None]], room: int, reading: int
    ) -> Callable[[CaseSpans], list[tuple[int, Callable[[], Optional[Part]]]]]:
        """How ``read`` gives the other process the cases of ``path`` it will not keep (past
        those ``room`` bytes of memory would keep, counted generously): in parts, the last
        first, while this process goes from the first; each takes a part the other has done
        when it gets there, and does the others itself, so that it never waits."""
        note = type(each_case).note if isinstance(each_case, CaseNotes) else _no_note

        def split(spans: CaseSpans) -> list[tuple[int, Callable[[], Optional[Part]]]]:
            count = len(spans)
            per_case = max(1.0, reading * self._per_byte() / max(1, count))
            first = 0 if room <= 0 else min(count, int(2 * room / per_case) + _SAMPLED_CASES)
            each = max(_LEAST_PART, min(_MOST_PART, (count - first) // _PARTS))
            starts = list(range(first, count, each))
            if len(starts) > 1 and count - starts[-1] < each // 2:
                starts.pop()  # a short last part joins the one before
            if self._pool is None or count - first < _LEAST_SPLIT:
                return []
            parts: list[tuple[int, Callable[[], Optional[Part]]]] = []
            for number in reversed(range(len(starts))):
                start, end = starts[number], starts[number + 1] if number + 1 < len(starts) else count
                offset, bounds, digests = spans.part(start, end)
                slot, self._slot = self._slot, self._slot + 1
                _skip(slot, False)
                try:
                    future = self._pool.submit(
                        _validate_part_ahead,
                        slot,
                        str(path),
                        offset,
                        bounds,
                        digests,
                        start,
                        _Noting(path, note),
                    )
                except Exception:  # noqa: BLE001  (the other process is gone: validated here)
                    break
                parts.append((start, functools.partial(self._part, future, slot, end - start)))
            return parts[::-1]

        return split

    def _part(self, future: Future[Optional[Part]], slot: int, count: int) -> Optional[Part]:
        """What the other process found of a part, if it is done (``None``: validated here)."""
        if not future.done() and not _WAIT_FOR_PARTS:
            _skip(slot, True)
            return None
        try:
            part = future.result()
        except Exception:  # noqa: BLE001  (the other process failed: the part is validated here)
            return None
        if part is not None:
            self.cases_ahead += count
        return part

    def sha256(self, path: Path) -> Optional[str]:
        """The sha256 of ``path`` as planning read it."""
        return self._sha256.get(Path(path))

    def get(self, path: Path) -> LoadedEvalSet:
        """``path``'s whole eval set for the run: from memory, or read again and checked
        to be the file planning read."""
        path = _as_path(path)
        held = self._cases.get(path)
        if held is not None and held.complete:
            eval_set = held.header.eval_set.model_copy(update={"eval_cases": list(held.by_id.values())})
            return LoadedEvalSet(
                eval_set=eval_set,
                source=held.header.source,
                format=held.header.format,
                warnings=held.header.warnings,
                sha256=held.header.sha256,
            )
        return self._file(path).loaded

    def case(self, path: Path, case_id: str) -> Optional[EvalCase]:
        """One case of ``path`` by id (``None`` when the file has no such case): from
        memory, or read alone from where planning found it."""
        path = _as_path(path)
        held = self._cases.get(path)
        if held is not None:
            if case_id not in held.positions:
                return None
            found = held.by_id.pop(case_id, None) if self._running else held.by_id.get(case_id)
            if found is not None:
                if self._running:
                    self._cost -= held.each
                return found
        spans = self._spans.get(path) if path not in self._kept else None
        if spans is None:
            return self._file(path).case(case_id)
        where, positions = spans
        position = positions.get(case_id)
        if position is None:
            return None
        case = where.case(path, position)
        if case is None:
            raise _changed(path)
        self.case_reads += 1
        return case

    def _file(self, path: Path) -> _File:
        kept = self._kept.get(path)
        if kept is not None:
            self._kept.move_to_end(path)
            return kept
        loaded = read_eval_file(path, checked_sha256=self._sha256.get(path))
        if path in self._sha256 and loaded.sha256 != self._sha256[path]:
            raise _changed(path)
        self.rereads += 1
        made = _File(loaded, measured_cost(loaded))
        self._kept[path] = made
        self._cost += made.cost
        while self._cost > self.budget and len(self._kept) > 1:
            # the file needed furthest in the future (or never again) goes; LRU breaks ties
            others = [p for p in self._kept if p != path]
            victim = max(others, key=self._eviction_rank)
            self._cost -= self._kept.pop(victim).cost
        return made

    def _eviction_rank(self, path: Path) -> float:
        when = self._next_use(path)
        return float("inf") if when is None else when


def _file_size(path: Path) -> int:
    """``path``'s size in bytes (0: not a file)."""
    try:
        return path.stat().st_size if path.is_file() else 0
    except OSError:
        return 0


def _ignore(index: int, case: EvalCase) -> None:
    pass


def _changed(path: Path) -> DataError:
    return DataError(
        "the file changed on disk while the run was going; run again (or --resume) "
        "with the file as it is now",
        source=str(path),
    )


def _forkable() -> bool:
    """Whether the second process may be forked (``agenteval._fork.can_fork``, busy machine
    or not: it runs while planning does, a few seconds at most). Embedders (the viewer's
    server, a test runner) have threads; then the files are checked here."""
    return can_fork(idle=False)
