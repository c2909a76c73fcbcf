"""``benchmarks/_quiet.py``: each timed run starts once a CPU is idle by the engine's rule."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.doc_figures import load_script

QUIET = load_script(Path(__file__).resolve().parents[2] / "benchmarks" / "_quiet.py")


class _Clock:
    """A clock that moves only when slept on; ``idle`` answers ``cpu_idle`` in turn."""

    def __init__(self, idle: list[bool]) -> None:
        self.now = 0.0
        self.idle = idle

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def cpu_idle(self) -> bool:
        return self.idle.pop(0) if len(self.idle) > 1 else self.idle[0]


def _quiet(monkeypatch, idle: list[bool], limit: float = 120.0):
    clock = _Clock(idle)
    monkeypatch.setattr(QUIET, "cpu_idle", clock.cpu_idle)
    monkeypatch.setattr(QUIET.time, "monotonic", lambda: clock.now)
    monkeypatch.setattr(QUIET.time, "sleep", clock.sleep)
    return QUIET.Quiet(limit)


def test_an_idle_machine_starts_the_run_at_once_and_says_nothing(monkeypatch):
    quiet = _quiet(monkeypatch, [True])
    quiet.settle()
    quiet.settle()
    assert (quiet.runs, quiet.waited, quiet.busy) == (2, 0.0, 0) and quiet.line() is None


def test_a_busy_machine_is_waited_for_until_a_cpu_is_idle(monkeypatch):
    quiet = _quiet(monkeypatch, [False, False, False, True])
    quiet.settle()
    assert (quiet.waited, quiet.busy) == (3.0, 0)
    assert (
        quiet.line() == "waited 3 s in all before 1 runs for an idle CPU (the engine forks helpers only then)"
    )


def test_a_machine_busy_past_the_limit_starts_the_run_and_counts_it(monkeypatch):
    quiet = _quiet(monkeypatch, [False], limit=5)
    quiet.settle()
    assert (quiet.waited, quiet.busy) == (5.0, 1)
    assert quiet.line().endswith("; 1 run(s) started on a busy machine after 5 s, in one process")


def test_a_limit_of_zero_never_waits_nor_says_anything(monkeypatch):
    quiet = _quiet(monkeypatch, [False], limit=0)
    quiet.settle()
    assert (quiet.runs, quiet.waited, quiet.busy) == (0, 0.0, 0) and quiet.line() is None
