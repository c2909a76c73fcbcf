"""A quiet machine before each timed run, so that every run is the same program.

The engine forks its helpers (planning's checks ahead, scoring ahead, agenteval-otel's
two-process read) only while a CPU is idle: the 1-minute load average under the CPUs less a
half (``agenteval._fork.cpu_idle``). That average trails: a run started right after another
CPU-heavy one (the previous size, the baseline's run, ADK's) can find it above that mark with
both CPUs free, and then runs in one process, which a figure would silently mix with the runs
that had the helper. ``Quiet.settle()`` waits before a run until a CPU is idle by that rule
(at most ``limit`` seconds) and counts the waits; ``Quiet.line()`` says what they cost and how
many runs started on a busy machine anyway.
"""

from __future__ import annotations

import argparse
import time
from typing import Optional

from agenteval._fork import cpu_idle


def settle_option(parser: argparse.ArgumentParser) -> None:
    """A script's ``--settle SECONDS`` (``Quiet``'s limit)."""
    parser.add_argument(
        "--settle", type=float, default=120, help="seconds at most to wait for an idle CPU before each run"
    )


class Quiet:
    """Waits before timed runs (see the module docstring)."""

    def __init__(self, limit: float = 120.0) -> None:
        self.limit = limit
        self.waited = 0.0
        self.busy = 0
        self.runs = 0

    def settle(self) -> None:
        """Wait until a CPU is idle by the engine's rule, or ``limit`` seconds (0: no wait,
        and nothing counted)."""
        if self.limit <= 0:
            return
        self.runs += 1
        started = time.monotonic()
        while not cpu_idle():
            if time.monotonic() - started >= self.limit:
                self.busy += 1
                break
            time.sleep(1.0)
        self.waited += time.monotonic() - started

    def line(self) -> Optional[str]:
        """What the waits cost, and the runs that started on a busy machine (``None``: no wait)."""
        if self.waited < 1.0 and not self.busy:
            return None
        text = (
            f"waited {self.waited:.0f} s in all before {self.runs} runs for an idle CPU "
            "(the engine forks helpers only then)"
        )
        if self.busy:
            text += f"; {self.busy} run(s) started on a busy machine after {self.limit:.0f} s, in one process"
        return text

    def report(self) -> None:
        """Print ``line()``, when there is one."""
        said = self.line()
        if said:
            print(said)
