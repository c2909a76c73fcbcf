"""Live progress of a run, on standard error: a rich display on a terminal, one plain line
at most every 10 s otherwise (CI logs), nothing with ``--quiet``."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import IO, Any, Optional

from .._results import Status

__all__ = ["PlainProgress", "Progress", "RichProgress", "SilentProgress", "progress_for"]

#: Judge counters for the display: calls, cache hits, retries, waiting (429 back-off).
JudgeCounters = Callable[[], dict[str, int]]


class Progress:
    """The progress contract: ``start``, ``case_done`` per finished case, ``stop``."""

    def __init__(self, judge_counters: Optional[JudgeCounters] = None) -> None:
        self.total = 0
        self.done = 0
        self.counts = {status: 0 for status in Status}
        self.started = time.monotonic()
        self._judge = judge_counters
        #: How many workers run the units (set by the run when its executor is not ``local``).
        self.workers: Optional[int] = None

    def start(self, total: int, done: int = 0) -> None:
        self.total, self.done = total, done
        self.started = time.monotonic()

    def case_done(self, status: Status) -> None:
        self.done += 1
        self.counts[status] += 1

    def stop(self) -> None:
        """Called once at the end (interrupted or not)."""

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Within the block, no thread of the display's runs (the run forks a helper)."""
        yield

    def line(self) -> str:
        """One line: cases done of total (on how many workers, when not one process), outcomes
        so far, judge activity, elapsed, ETA."""
        elapsed = time.monotonic() - self.started
        parts = [f"{self.done}/{self.total} cases"]
        if self.workers is not None:
            parts[0] += f" on {self.workers} worker{'s' if self.workers != 1 else ''}"
        outcomes = [
            f"{self.counts[s]} {label}"
            for s, label in (
                (Status.PASSED, "passed"),
                (Status.FAILED, "failed"),
                (Status.ERRORED, "errored"),
                (Status.NOT_EVALUATED, "not evaluated"),
            )
            if self.counts[s]
        ]
        if outcomes:
            parts.append(", ".join(outcomes))
        if self._judge is not None:
            counters = self._judge()
            if counters.get("calls") or counters.get("cache_hits"):
                judge = f"judge {counters.get('calls', 0)} calls, {counters.get('cache_hits', 0)} cached"
                if counters.get("retries"):
                    judge += f", {counters['retries']} retried"
                if counters.get("waiting"):
                    judge += f", {counters['waiting']} waiting on rate limits"
                parts.append(judge)
        parts.append(f"{_clock(elapsed)} elapsed")
        if 0 < self.done < self.total:
            parts.append(f"ETA {_clock(elapsed / self.done * (self.total - self.done))}")
        return " · ".join(parts)


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return (
        f"{seconds // 60}:{seconds % 60:02d}"
        if seconds < 3600
        else f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    )


class SilentProgress(Progress):
    """Counts, shows nothing (``--quiet``, the embedding API)."""


class PlainProgress(Progress):
    """One plain line at most every ``interval`` seconds (not a terminal: CI logs)."""

    def __init__(
        self, stream: IO[str], judge_counters: Optional[JudgeCounters] = None, interval: float = 10.0
    ) -> None:
        super().__init__(judge_counters)
        self._stream = stream
        self._interval = interval
        self._last = time.monotonic()

    def case_done(self, status: Status) -> None:
        super().case_done(status)
        now = time.monotonic()
        if now - self._last >= self._interval:
            self._last = now
            self._write()

    def _write(self) -> None:
        try:
            self._stream.write(f"agenteval: {self.line()}\n")
            self._stream.flush()
        except (OSError, ValueError):
            pass


class RichProgress(Progress):
    """A live line on the terminal (rich), refreshed a few times a second."""

    def __init__(self, console: Any, judge_counters: Optional[JudgeCounters] = None) -> None:
        super().__init__(judge_counters)
        self._console = console
        self._live: Any = None

    def start(self, total: int, done: int = 0) -> None:
        super().start(total, done)
        from rich.live import Live
        from rich.text import Text

        outer = self

        class _Line:
            def __rich__(self) -> Text:
                return Text(outer.bar() + " " + outer.line(), style="dim")

        self._live = Live(_Line(), console=self._console, refresh_per_second=4, transient=True)
        self._live.start()

    def bar(self, width: int = 20) -> str:
        filled = int(width * self.done / self.total) if self.total else width
        return "[" + "#" * filled + "-" * (width - filled) + "]"

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        live = self._live
        if live is None:
            yield
            return
        thread = getattr(live, "_refresh_thread", None)  # (rich has no public handle on it)
        live.stop()  # tells its refreshing thread to end
        if thread is not None:
            thread.join(timeout=1)
        try:
            yield
        finally:
            live.start()


def progress_for(stream: IO[str], *, quiet: bool, judge_counters: Optional[JudgeCounters] = None) -> Progress:
    """The right display for ``stream``: rich on a terminal, plain lines otherwise."""
    if quiet:
        return SilentProgress(judge_counters)
    try:
        interactive = stream.isatty()
    except (AttributeError, ValueError):
        interactive = False
    if interactive:
        from rich.console import Console

        return RichProgress(Console(file=stream, stderr=stream is sys.stderr), judge_counters)
    return PlainProgress(stream, judge_counters)
