"""Whether a forked helper process may run beside this one (``can_fork``): the one rule the
engine's helpers (planning's checks ahead, scoring ahead) and plugins' (agenteval-otel's
readers) share."""

from __future__ import annotations

import os
import sys
import threading

__all__ = ["can_fork", "cpu_idle"]


def can_fork(*, idle: bool = True) -> bool:
    """Whether a forked helper may run beside this process: ``fork`` exists and is safe (not
    on macOS, whose system libraries are not; no other thread runs, since a fork copies only
    the calling thread and a lock another one held would stay held in the copy), two CPUs or
    more, and, with ``idle``, one of them idle (``cpu_idle``: a helper on a busy machine only
    adds work)."""
    return (
        hasattr(os, "fork")
        and sys.platform != "darwin"
        and _cpus() >= 2
        and (not idle or cpu_idle())
        and threading.active_count() == 1
    )


def cpu_idle() -> bool:
    """Whether a CPU is idle for a helper: the 1-minute load average (this process counted in
    it) under the CPUs this process may use, less a half."""
    return _load() < _cpus() - 0.5


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _load() -> float:
    """The 1-minute load average (0 where the system does not tell)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0
