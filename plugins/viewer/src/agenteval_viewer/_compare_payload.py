"""``GET /api/compare?a=&b=``: the engine's run-vs-run comparison as JSON.

The document is exactly what ``agenteval compare A B --format json`` prints (the engine's
``CompareReport.to_json()``: per-criterion Δ with intervals and Holm-adjusted p, verdict flips
with regressions first, unpaired cases). The viewer shows these statistics; it never computes
its own. Only runs of the served folder can be named (never a path), and a comparison is kept
while neither run's files change, since a large one takes seconds.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["ComparePayloads", "CompareRefused"]

_KEEP = 8


class CompareRefused(Exception):
    """The runs cannot be compared (no case pairs, a criterion's configuration changed):
    the message is the engine's, shown to the user as it is."""


class ComparePayloads:
    """Comparisons of runs in ``runs_dir``, cached by both runs' file stamps.

    ``stamp(run_id)`` gives something that changes when a run's files change.
    """

    def __init__(self, runs_dir: Path, stamp: Callable[[str], Any]) -> None:
        self.runs_dir = Path(runs_dir)
        self._stamp = stamp
        self._cache: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def payload(self, a: str, b: str) -> dict[str, Any]:
        """The comparison of candidate ``b`` with baseline ``a`` (run ids of this folder).
        ``CompareRefused`` when the engine refuses to compare them."""
        key = (a, b, self._stamp(a), self._stamp(b))
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        document = self._compare(a, b)
        with self._lock:
            self._cache[key] = document
            while len(self._cache) > _KEEP:
                self._cache.popitem(last=False)
        return document

    def _compare(self, a: str, b: str) -> dict[str, Any]:
        from agenteval.errors import AgentEvalError
        from agenteval.runs import compare_sides, load_side

        try:
            report = compare_sides(
                load_side(str(self.runs_dir / a), self.runs_dir, "A"),
                load_side(str(self.runs_dir / b), self.runs_dir, "B"),
            )
        except AgentEvalError as exc:
            raise CompareRefused(str(exc)) from None
        return report.to_json()
