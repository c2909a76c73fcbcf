"""The run history of a runs folder, for ``GET /api/runs``.

Each run is read once and kept while its ``manifest.json`` and ``summary.json`` keep their
modification time and size, so listing a folder of 1,000 runs again reads only the runs that
changed (a running one, a new one). A folder that is not a readable run is left out.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Optional

from ._store import file_stamp

__all__ = ["History", "run_entry"]

_MANIFEST = "manifest.json"
_SUMMARY = "summary.json"

_Stamp = tuple[int, int, int, int]


def run_entry(folder: Path) -> Optional[dict[str, Any]]:
    """One run's history entry, or ``None`` when ``folder`` is not a readable run.

    ``verdict`` and ``counts`` (cases by status) come from ``summary.json`` (``null`` and
    ``{}`` while a run that has not written it yet is going); ``criteria`` maps each
    criterion to its ``pass_rate`` (PASSED over the cases it judged; ``null`` when it judged
    none, and for an informational criterion, which reports values, never verdicts) and
    ``mean`` score.
    """
    from agenteval.errors import ConfigError
    from agenteval.runs import RecordedRun

    try:
        run = RecordedRun.open(folder)
    except (ConfigError, OSError):
        return None
    manifest = run.manifest
    written = run.summary()
    entry: dict[str, Any] = {
        "run_id": run.run_id,
        "state": manifest.state.value,
        "started_at": manifest.started_at,
        "finished_at": manifest.finished_at,
        "verdict": None,
        "counts": {},
        "criteria": {},
        "cases_planned": sum(len(s.case_ids) for s in manifest.eval_sets),
        "num_runs": manifest.num_runs,
        "eval_sets": [s.eval_set_id for s in manifest.eval_sets],
        "agent": (manifest.agent or {}).get("target"),
    }
    if written is not None:
        summary = written.summary
        entry["verdict"] = summary.status.value
        entry["counts"] = {status.value: n for status, n in summary.cases.items()}
        for item in summary.criteria:
            informational = any(s.value == "INFORMATIONAL" and n for s, n in item.counts.items())
            judged = sum(n for status, n in item.counts.items() if status.value != "INFORMATIONAL")
            passed = sum(n for status, n in item.counts.items() if status.value == "PASSED")
            entry["criteria"][item.criterion] = {
                "pass_rate": passed / judged if judged and not informational else None,
                "mean": item.mean_score,
            }
    return entry


class History:
    """The runs of one folder, newest first, each re-read only when its files change.

    Thread-safe: the server answers requests from several threads.
    """

    def __init__(self, runs_dir: Path) -> None:
        self.runs_dir = Path(runs_dir)
        self._cache: dict[str, tuple[_Stamp, Optional[dict[str, Any]]]] = {}
        self._lock = threading.Lock()
        #: How many run folders were read (not served from the cache): for tests.
        self.reads = 0

    def runs(self) -> list[dict[str, Any]]:
        """Every readable run's entry (``run_entry``), newest first."""
        try:
            names = sorted((e.name for e in os.scandir(self.runs_dir) if e.is_dir()), reverse=True)
        except OSError:
            return []
        found = []
        with self._lock:
            for name in names:
                folder = self.runs_dir / name
                stamp = (*file_stamp(folder / _MANIFEST), *file_stamp(folder / _SUMMARY))
                cached = self._cache.get(name)
                if cached is None or cached[0] != stamp:
                    self.reads += 1
                    cached = (stamp, run_entry(folder) if stamp[0] != -1 else None)
                    self._cache[name] = cached
                if cached[1] is not None:
                    found.append(cached[1])
            for gone in set(self._cache) - set(names):
                del self._cache[gone]
        return found
