"""The end of ``agenteval run``: warnings, saved turns, the report, where the run folder is,
and the exit code (the run itself is in ``_run``)."""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Optional, Union

import click

from ._exit import ExitCode
from ._options import ECHO

if TYPE_CHECKING:
    from .._reporting import CaseSpool
    from .._results import RunResult, RunSummary
    from .._run import EvalRun, Plan
    from ..runs import RecordedRun

__all__ = [
    "finish_run",
    "keep_report_cases",
    "late_signals_ignored",
    "remember_threads",
    "render_report",
    "scratch_runs_dir",
    "write_reports",
]


def finish_run(
    result: RunResult,
    plan: Plan,
    evaluation: EvalRun,
    save_actual: Optional[Path],
    paths: Sequence[str],
    output_format: str,
    output: Optional[Path],
    detailed: bool,
    show: str,
) -> None:
    """Everything after the run: warnings, saved turns, the report, where the run is, the exit."""
    from .._run import SIGNAL_EXIT_CODES
    from .._run import save_actual as write_actual
    from .._terminal import visible
    from ..runs import RecordedRun

    folder = evaluation.writer.folder if evaluation.writer is not None else None
    # The report is read back from the run folder, one case at a time: the run kept none.
    source = RecordedRun.open(folder) if folder is not None else result
    for warning in result.warnings:
        click.echo(f"warning: {visible(warning, newlines=True)}", err=True)
    if save_actual is not None and plan.agent is not None:
        whole = source.result() if isinstance(source, RecordedRun) else result
        written = write_actual(whole, save_actual, plan)
        del whole
        for path, count in written:
            click.echo(f"agenteval: wrote the actual invocations of {count} case(s) to {path}", err=True)
        rescore = " ".join(f"--actual {shlex.quote(str(path))}" for path, _ in written)
        click.echo(f"agenteval: score them again with: agenteval run {_joined(paths)} {rescore}", err=True)
    from .._reporting import CaseSpool

    spool = evaluation.case_sink if isinstance(evaluation.case_sink, CaseSpool) else None
    try:
        render_report(source, result.summary, output_format, output, detailed, show, spool=spool)
    finally:
        if spool is not None:
            spool.discard()
    if output is not None or output_format == "json":
        counts = (
            ", ".join(f"{n} {s.value.lower()}" for s, n in result.summary.cases.items() if n) or "no case ran"
        )
        click.echo(f"agenteval: {counts}", err=True)
    if folder is not None and folder.parent not in _SCRATCH:
        click.echo(f"agenteval: run {evaluation.run_id} recorded in {folder}", err=True)
        where = _shown_path(folder)
        click.echo(f"agenteval: see it again: agenteval runs show {where}", err=True)
        click.echo(f"agenteval: open it: {_viewer_hint(where)}", err=True)
    for path in evaluation.adk_history_written:
        click.echo(f"agenteval: ADK eval history written to {path}", err=True)
    if evaluation.adk_history_error is not None:
        click.echo(f"warning: {evaluation.adk_history_error}", err=True)
    if evaluation.failed is not None:
        click.echo(f"error: {evaluation.failed}; the run stopped, what was recorded before is kept", err=True)
        _exit(ExitCode.NOT_PASSED)
    if result.interrupted:
        why = "reached --timeout" if evaluation.stopped_by == "timeout" else "interrupted"
        click.echo(f"agenteval: {why}; the results above are what was scored before", err=True)
        if folder is not None and folder.parent not in _SCRATCH:
            click.echo(f"agenteval: resume it with: {_resume_command(evaluation.run_id)}", err=True)
        _exit(SIGNAL_EXIT_CODES.get(evaluation.stopped_by or "SIGINT", ExitCode.INTERRUPTED))
    _exit(ExitCode.OK if result.passed else ExitCode.NOT_PASSED)


#: Runs folders made for a run asked not to be recorded (``--no-record``): the report is
#: still read from a folder, which is removed at exit.
_SCRATCH: set[Path] = set()


def scratch_runs_dir() -> Path:
    """A temporary runs folder for a run that is not to be kept (removed at exit)."""
    import atexit
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="agenteval-run-")).resolve()  # as open_run resolves it
    _SCRATCH.add(folder)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


_THREADS_AT_START: frozenset = frozenset()


def remember_threads() -> None:
    """Note the threads alive before the agent starts (those it leaves behind are told apart at exit)."""
    global _THREADS_AT_START
    _THREADS_AT_START = frozenset(t.ident for t in threading.enumerate())


def _exit(code: int) -> None:
    """Exit with ``code``; when the agent started threads that would keep the process alive
    (non-daemon threads still running), say so and leave at once. Not inside a test process
    (pytest imported): there the host owns the process."""
    from .._agents import stray_threads

    left = [t for t in stray_threads() if t.ident not in _THREADS_AT_START]
    if left and "pytest" not in sys.modules:
        names = ", ".join(t.name for t in left)
        click.echo(
            f"agenteval: the agent left {len(left)} thread(s) running ({names}); exiting without them",
            err=True,
        )
        sys.stdout.flush()
        sys.stderr.flush()
        for folder in _SCRATCH:  # os._exit runs no atexit hook
            shutil.rmtree(folder, ignore_errors=True)
        os._exit(int(code))
    sys.exit(code)


def write_reports(reporters: dict, folder: Path, report_dir: Optional[Path], log: IO[str]) -> None:
    from .._reporting import write_reports
    from ..runs import RecordedRun

    try:
        written = write_reports(reporters, RecordedRun.open(folder), report_dir, stream=log)
    except OSError as exc:
        click.echo(f"warning: a report could not be written: {exc.strerror or exc}", err=True)
        return
    for name, paths in written.items():
        for path in paths:
            click.echo(f"agenteval: {name} report written to {path}", err=True)


@contextlib.contextmanager
def late_signals_ignored() -> Iterator[None]:
    """While the run winds down and its report is printed, a further Ctrl-C, SIGTERM or
    SIGHUP is ignored: the report still comes out (the run's own handlers stop it). When the
    command is leaving (``SystemExit``) they stay ignored through the interpreter's shutdown,
    so that a late Ctrl-C cannot turn the exit code into a KeyboardInterrupt; not inside a
    test process (pytest imported), whose signals are its host's."""
    previous = {}
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None:
            previous[number] = signal.signal(number, signal.SIG_IGN)
    leaving = False
    try:
        yield
    except SystemExit:
        leaving = "pytest" not in sys.modules
        raise
    finally:
        if not leaving:
            for number, old in previous.items():
                signal.signal(number, old)


def _joined(paths: Sequence[str]) -> str:
    return " ".join(shlex.quote(p) for p in paths)


def _resume_command(run_id: str) -> str:
    """The command line that resumes this run: the same arguments plus ``--resume RUN_ID``."""
    args = list(sys.argv[1:])
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "--resume":
            skip = True
            continue
        if arg.startswith("--resume="):
            continue
        kept.append(arg)
    if kept and kept[0] != "run":
        kept.insert(0, "run")
    return "agenteval " + " ".join(shlex.quote(a) for a in kept) + f" --resume {run_id}"


def keep_report_cases(evaluation: EvalRun, output_format: str) -> None:
    """A JSON report's cases are rendered as the run finishes them (``CaseSpool``), so that
    ``finish_run`` reads no record back; the table reads the folder."""
    if output_format != "json" or evaluation.writer is None:
        return
    from .._reporting import CaseSpool

    evaluation.case_sink = CaseSpool(scrub=evaluation.writer.scrub, folder=evaluation.writer.folder)


@contextlib.contextmanager
def _naming(path: Path) -> Iterator[None]:
    """An ``OSError`` while ``path`` is written (a full disk) names ``path``."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or isinstance(exc, BrokenPipeError):
            raise
        raise OSError(exc.errno, exc.strerror, str(path)) from exc


def render_report(
    source: Union[RecordedRun, RunResult],
    summary: RunSummary,
    output_format: str,
    output: Optional[Path],
    detailed: bool,
    show: str,
    *,
    spool: Optional[CaseSpool] = None,
) -> None:
    """The report (``table`` or ``json``) to ``output`` or standard output, read from the
    run folder one case at a time (or from a result in memory; a JSON report's cases from
    ``spool`` when it has them all)."""
    with contextlib.ExitStack() as stack:
        handle = None
        if output is not None:
            stack.enter_context(_naming(output))
            handle = stack.enter_context(output.open("w", encoding="utf-8", errors="backslashreplace"))
        if output_format == "json":
            from .._reporting import write_json
            from .._terminal import json_visible

            write_json(source, handle or ECHO, summary=summary, transform=json_visible, spool=spool)
            return
        from rich.console import Console

        from .._reporting import file_console, render_table

        console = file_console(handle, 120) if handle is not None else Console()
        render_table(source, console, summary=summary, detailed=detailed, show=show)


def _shown_path(folder: Path) -> str:
    """The run folder as a command argument: relative to the current folder when inside it
    (every command that takes a RUN takes its folder, whatever --runs-dir was), quoted."""
    try:
        shown = str(folder.relative_to(Path.cwd()))
    except ValueError:
        shown = str(folder)
    return shlex.quote(shown)


def _viewer_hint(run: str) -> str:
    """How to look at a recorded run (``run``: its folder) in a browser: the viewer's
    commands when installed, else where they come from."""
    from .._plugins import KINDS, PluginFinder, install_hint

    if "view" in PluginFinder(KINDS["agenteval.commands"]).names():
        return f"agenteval view {run}  (or one HTML file: agenteval report {run} -o report.html)"
    return f"install {install_hint('command', 'view')} for agenteval view {run}"
