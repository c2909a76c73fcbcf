"""Whether a forked helper process may run beside this one (``can_fork``): the one rule the
engine's helpers (planning's checks ahead, scoring ahead) and plugins' (agenteval-otel's
readers) share."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Optional

__all__ = ["can_fork", "cpu_idle"]

#: How many times, and how far apart (seconds), the runnable tasks are counted (``cpu_idle``).
_LOOKS = 3
_LOOK_EVERY = 0.001


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
    it) under the CPUs this process may use, less a half; or, where the system counts the
    tasks runnable now (Linux), at every one of a few looks a millisecond apart no more of
    them beside this one than leave a CPU free. The average trails by about a minute: a
    run's own planning (two busy processes), or the run before it, holds it up while every
    CPU is free, and a CPU-bound neighbour is runnable at every look."""
    cpus = _cpus()
    if _load() < cpus - 0.5:
        return True
    others = _others_running()
    return others is not None and others <= cpus - 2


def _others_running() -> Optional[int]:
    """The fewest tasks runnable beside this one over ``_LOOKS`` looks (``None``: not told)."""
    fewest: Optional[int] = None
    for look in range(_LOOKS):
        if look:
            time.sleep(_LOOK_EVERY)
        running = _running()
        if running is None:
            return None
        fewest = running - 1 if fewest is None else min(fewest, running - 1)
    return fewest


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _load() -> float:
    """The 1-minute load average (0 where the system does not tell)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def _running() -> Optional[int]:
    """The tasks runnable on the system now, the one asking included (Linux's
    ``/proc/loadavg``: its fourth field, ``running/total``); ``None`` elsewhere."""
    try:
        with open("/proc/loadavg", encoding="ascii") as handle:
            return int(handle.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None
