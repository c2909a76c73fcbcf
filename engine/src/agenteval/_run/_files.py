"""The eval files of a run, held in memory only while they fit a budget.

Planning reads every file once (every problem is found before any work). A loaded eval
set costs about ten times its file size in memory (measured on each file: 9x for
expected cases, 12x for recorded turns in events form), so a 100,000-case run cannot
keep them all: ``EvalFiles`` keeps the files read first while their measured cost fits
the budget and drops the others once planning has checked them.

A dropped eval set keeps only where each of its cases is in the file (``CaseSpans``,
about 32 bytes a case): the run reads each case it reaches alone, a few kilobytes, so a
file larger than the budget is read whole once, by planning, however many cases it has.
A case read again must be the bytes planning checked (a digest of each), or the run stops
with an error saying the file changed.

Files without spans (ADK's legacy list formats) are read whole again when the run
reaches them (checked by sha256). The plan tells ``EvalFiles`` which eval sets use each
file (``schedule``) and the run tells it which set it has reached (``reached``): a file
no later set uses is let go, and when the budget is full the file needed furthest in the
future goes first.

Small runs (the budget holds every file) read each file exactly once.
"""

from __future__ import annotations

import os
import sys
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from pydantic import BaseModel

from .._loading import LoadedEvalSet, read_eval_file
from .._loading._case_spans import CaseSpans
from ..errors import DataError
from ..models import EvalCase

__all__ = ["DEFAULT_BUDGET_MB", "EvalFiles"]

#: The measured memory of the loaded eval sets kept at once (``AGENTEVAL_EVAL_CACHE_MB``).
DEFAULT_BUDGET_MB = 160
#: How many cases, spread over the file, are measured to price a loaded eval set.
_SAMPLED_CASES = 16


def _budget_from_environment() -> int:
    raw = os.environ.get("AGENTEVAL_EVAL_CACHE_MB", "")
    try:
        return max(0, int(raw)) * 1024 * 1024 if raw else DEFAULT_BUDGET_MB * 1024 * 1024
    except ValueError:
        return DEFAULT_BUDGET_MB * 1024 * 1024


def _as_path(path: Path) -> Path:
    return path if isinstance(path, Path) else Path(path)


def _size_of(value: Any, seen: set[int]) -> int:
    """Bytes of memory ``value`` holds, with what it refers to (each object counted once)."""
    if value is None or value is True or value is False or id(value) in seen:
        return 0
    seen.add(id(value))
    size = sys.getsizeof(value)
    if isinstance(value, BaseModel):
        for part in (value.__dict__, value.__pydantic_extra__, value.__pydantic_fields_set__):
            size += _size_of(part, seen)
    elif isinstance(value, dict):
        size += sum(_size_of(key, seen) + _size_of(item, seen) for key, item in value.items())
    elif isinstance(value, (list, tuple, set, frozenset)):
        size += sum(_size_of(item, seen) for item in value)
    return size


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
        budget: bytes of estimated memory for the files kept loaded (default
            ``DEFAULT_BUDGET_MB``, or ``$AGENTEVAL_EVAL_CACHE_MB``); 0 keeps none.
    """

    def __init__(self, budget: Optional[int] = None) -> None:
        self.budget = _budget_from_environment() if budget is None else budget
        self._kept: OrderedDict[Path, _File] = OrderedDict()
        self._cost = 0
        self._sha256: dict[Path, Optional[str]] = {}
        #: where the cases of each dropped file are, with their positions by id
        self._spans: dict[Path, tuple[CaseSpans, dict[str, int]]] = {}
        #: how many times a whole file was read again after planning dropped it
        self.rereads = 0
        #: how many cases were read alone from a dropped file
        self.case_reads = 0
        self._uses: dict[Path, list[int]] = {}
        self._position = 0

    def schedule(self, uses: dict[Path, list[int]]) -> None:
        """Which eval sets (by index, in run order) use each file."""
        self._uses = {Path(path): sorted(sets) for path, sets in uses.items()}

    def reached(self, set_index: int) -> None:
        """The run has started every case of the sets before ``set_index``: the files only
        those sets use are let go."""
        self._position = set_index
        for path in [p for p in self._kept if self._next_use(p) is None]:
            self._cost -= self._kept.pop(path).cost
        for path in [p for p in self._spans if self._next_use(p) is None]:
            del self._spans[path]

    def _next_use(self, path: Path) -> Optional[float]:
        """The first set at or after the run's position that uses ``path`` (``None``: no
        later set does; files without a schedule count as used now)."""
        sets = self._uses.get(path)
        if sets is None:
            return float(self._position)
        return next((float(i) for i in sets if i >= self._position), None)

    def read(self, path: Path) -> LoadedEvalSet:
        """Read and check ``path`` for planning (``DataError`` as ``read_eval_file``);
        kept loaded while the budget allows, so that the run needs no second read, else
        only where its cases are."""
        path = Path(path)
        kept = self._kept.get(path)
        if kept is not None:
            return kept.loaded
        loaded = read_eval_file(path)
        self._sha256[path] = loaded.sha256
        cost = measured_cost(loaded)
        if self._cost + cost <= self.budget:
            self._kept[path] = _File(loaded, cost)
            self._cost += cost
        elif loaded.case_spans is not None:
            positions = {case.eval_id: n for n, case in enumerate(loaded.eval_set.eval_cases)}
            self._spans[path] = (loaded.case_spans, positions)
        return loaded

    def sha256(self, path: Path) -> Optional[str]:
        """The sha256 of ``path`` as planning read it."""
        return self._sha256.get(Path(path))

    def get(self, path: Path) -> LoadedEvalSet:
        """``path``'s eval set for the run: from memory, or read again and checked to be
        the file planning read."""
        return self._file(_as_path(path)).loaded

    def case(self, path: Path, case_id: str) -> Optional[EvalCase]:
        """One case of ``path`` by id (``None`` when the file has no such case): from
        memory, or read alone from where planning found it."""
        path = _as_path(path)
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


def _changed(path: Path) -> DataError:
    return DataError(
        "the file changed on disk while the run was going; run again (or --resume) "
        "with the file as it is now",
        source=str(path),
    )
