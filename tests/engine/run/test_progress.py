"""Progress displays: a live line on a terminal, plain lines at most every interval
elsewhere, nothing when quiet; judge counters shown when there are any."""

from __future__ import annotations

import io

from agenteval import Status
from agenteval._run import PlainProgress, RichProgress, SilentProgress, progress_for


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_right_display_for_each_stream():
    assert isinstance(progress_for(io.StringIO(), quiet=False), PlainProgress)
    assert isinstance(progress_for(_Terminal(), quiet=False), RichProgress)
    assert isinstance(progress_for(_Terminal(), quiet=True), SilentProgress)


def test_a_terminal_shows_a_live_line_with_the_counts_and_judge_activity():
    from rich.console import Console

    stream = _Terminal()
    counters = {"calls": 12, "cache_hits": 3, "retries": 2, "waiting": 1}
    progress = RichProgress(Console(file=stream, force_terminal=True, width=120), lambda: counters)
    progress.start(total=4)
    progress.case_done(Status.PASSED)
    progress.case_done(Status.ERRORED)
    line = progress.line()
    assert line.startswith("2/4 cases · 1 passed, 1 errored · judge 12 calls, 3 cached, 2 retried")
    assert "1 waiting on rate limits" in line and "ETA" in line
    assert progress.bar(10) == "[#####-----]"
    progress.stop()
    assert "2/4 cases" in stream.getvalue()  # it was drawn on the terminal


def test_silent_progress_still_counts():
    progress = SilentProgress()
    progress.start(total=2)
    progress.case_done(Status.FAILED)
    assert progress.done == 1 and progress.counts[Status.FAILED] == 1


def test_a_paused_live_line_runs_no_thread_and_is_drawn_again_after():
    from rich.console import Console

    stream = _Terminal()
    progress = RichProgress(Console(file=stream, force_terminal=True, width=120))
    progress.start(total=3)
    refreshing = progress._live._refresh_thread
    assert refreshing.is_alive()
    with progress.paused():
        assert not refreshing.is_alive()  # ended, not only told to end: a fork copies none
        progress.case_done(Status.PASSED)
    assert progress._live._refresh_thread.is_alive()  # a new one
    drawn = len(stream.getvalue())
    progress.stop()
    assert "1/3 cases" in stream.getvalue()[drawn:]
    for quiet in (SilentProgress(), PlainProgress(io.StringIO())):
        with quiet.paused():
            pass
