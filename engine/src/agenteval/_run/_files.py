"""The eval files of a run, held in memory only while they fit a budget.

Planning reads every file once (every problem is found before any work). A loaded eval
set costs about ten times its file size in memory, so a 100,000-case run cannot keep
them all: ``EvalFiles`` keeps the files read first while their estimated cost fits the
budget, drops the others once planning has checked them, and reads a dropped file again
when the run reaches it. The plan tells it which eval sets use each file (``schedule``)
and the run tells it which set it has reached (``reached``): a file no later set uses is
let go, and when the budget is full the file needed furthest in the future goes first.
A file read again must be the file planning checked (same sha256), or the run stops with
an error saying so.

Small runs (the budget holds every file) read each file exactly once.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..errors import DataError
from ..loading import LoadedEvalSet, read_eval_file
from ..models import EvalCase

__all__ = ["DEFAULT_BUDGET_MB", "EvalFiles"]

#: The estimated memory of the loaded eval sets kept at once (``AGENTEVAL_EVAL_CACHE_MB``).
DEFAULT_BUDGET_MB = 160
#: Loaded eval sets take about this many times their file size in memory (measured:
#: 9x for expected cases, 12x for recorded turns in events form).
_COST_PER_BYTE = 10


def _budget_from_environment() -> int:
    raw = os.environ.get("AGENTEVAL_EVAL_CACHE_MB", "")
    try:
        return max(0, int(raw)) * 1024 * 1024 if raw else DEFAULT_BUDGET_MB * 1024 * 1024
    except ValueError:
        return DEFAULT_BUDGET_MB * 1024 * 1024


def _as_path(path: Path) -> Path:
    return path if isinstance(path, Path) else Path(path)


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
        #: how many times a file was read again after planning dropped it
        self.rereads = 0
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

    def _next_use(self, path: Path) -> Optional[float]:
        """The first set at or after the run's position that uses ``path`` (``None``: no
        later set does; files without a schedule count as used now)."""
        sets = self._uses.get(path)
        if sets is None:
            return float(self._position)
        return next((float(i) for i in sets if i >= self._position), None)

    def read(self, path: Path) -> LoadedEvalSet:
        """Read and check ``path`` for planning (``DataError`` as ``read_eval_file``);
        kept loaded while the budget allows, so that the run needs no second read."""
        path = Path(path)
        kept = self._kept.get(path)
        if kept is not None:
            return kept.loaded
        loaded = read_eval_file(path)
        self._sha256[path] = loaded.sha256
        cost = self._cost_of(path)
        if self._cost + cost <= self.budget:
            self._kept[path] = _File(loaded, cost)
            self._cost += cost
        return loaded

    def sha256(self, path: Path) -> Optional[str]:
        """The sha256 of ``path`` as planning read it."""
        return self._sha256.get(Path(path))

    def get(self, path: Path) -> LoadedEvalSet:
        """``path``'s eval set for the run: from memory, or read again and checked to be
        the file planning read."""
        return self._file(_as_path(path)).loaded

    def case(self, path: Path, case_id: str) -> Optional[EvalCase]:
        """One case of ``path`` by id (``None`` when the file has no such case)."""
        return self._file(_as_path(path)).case(case_id)

    def _file(self, path: Path) -> _File:
        kept = self._kept.get(path)
        if kept is not None:
            self._kept.move_to_end(path)
            return kept
        loaded = read_eval_file(path, checked_sha256=self._sha256.get(path))
        if path in self._sha256 and loaded.sha256 != self._sha256[path]:
            raise DataError(
                "the file changed on disk while the run was going; run again (or --resume) "
                "with the file as it is now",
                source=str(path),
            )
        self.rereads += 1
        made = _File(loaded, self._cost_of(path))
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

    @staticmethod
    def _cost_of(path: Path) -> int:
        try:
            return path.stat().st_size * _COST_PER_BYTE
        except OSError:
            return 0
