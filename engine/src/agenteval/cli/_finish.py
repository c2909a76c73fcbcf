"""The end of ``agenteval run``: warnings, saved turns, the report, where the run folder is,
and the exit code (the run itself is in ``_run``)."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Optional

import click

from ._exit import ExitCode

if TYPE_CHECKING:
    from .._run import EvalRun, Plan
    from ..results import RunResult

__all__ = ["finish_run", "late_signals_ignored", "remember_threads", "write_reports"]


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
    from .._api import save_actual as write_actual
    from .._run import SIGNAL_EXIT_CODES
    from .._terminal import visible

    for warning in result.warnings:
        click.echo(f"warning: {visible(warning, newlines=True)}", err=True)
    if save_actual is not None and plan.agent is not None:
        written = write_actual(result, save_actual, plan)
        for path, count in written:
            click.echo(f"agenteval: wrote the actual invocations of {count} case(s) to {path}", err=True)
        rescore = " ".join(f"--actual {shlex.quote(str(path))}" for path, _ in written)
        click.echo(f"agenteval: score them again with: agenteval run {_joined(paths)} {rescore}", err=True)
    _render(result, plan, output_format, output, detailed, show)
    if output is not None or output_format == "json":
        counts = (
            ", ".join(f"{n} {s.value.lower()}" for s, n in result.summary.cases.items() if n) or "no case ran"
        )
        click.echo(f"agenteval: {counts}", err=True)
    if evaluation.writer is not None:
        click.echo(f"agenteval: run {evaluation.run_id} recorded in {evaluation.writer.folder}", err=True)
        click.echo(f"agenteval: see it again with: agenteval runs show {evaluation.run_id}", err=True)
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
        if evaluation.writer is not None:
            click.echo(f"agenteval: resume it with: {_resume_command(evaluation.run_id)}", err=True)
        _exit(SIGNAL_EXIT_CODES.get(evaluation.stopped_by or "SIGINT", ExitCode.INTERRUPTED))
    _exit(ExitCode.OK if result.passed else ExitCode.NOT_PASSED)


_THREADS_AT_START: frozenset = frozenset()


def remember_threads() -> None:
    """Note the threads alive before the agent starts (those it leaves behind are told apart at exit)."""
    global _THREADS_AT_START
    _THREADS_AT_START = frozenset(t.ident for t in threading.enumerate())


def _exit(code: int) -> None:
    """Exit with ``code``; when the agent started threads that would keep the process alive
    (non-daemon threads still running), say so and leave at once. Not inside a test process
    (pytest imported): there the host owns the process."""
    from ..agents import stray_threads

    left = [t for t in stray_threads() if t.ident not in _THREADS_AT_START]
    if left and "pytest" not in sys.modules:
        names = ", ".join(t.name for t in left)
        click.echo(
            f"agenteval: the agent left {len(left)} thread(s) running ({names}); exiting without them",
            err=True,
        )
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(int(code))
    sys.exit(code)


def write_reports(reporters: dict, folder: Path, report_dir: Optional[Path], log: IO[str]) -> None:
    from ..reporting import write_reports
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
    SIGHUP is ignored: the report still comes out (the run's own handlers stop it)."""
    previous = {}
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None:
            previous[number] = signal.signal(number, signal.SIG_IGN)
    try:
        yield
    finally:
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


def _render(result, plan, output_format: str, output: Optional[Path], detailed: bool, show: str) -> None:  # noqa: ANN001
    if output_format == "json":
        from .._terminal import json_visible
        from ..reporting import render_json

        text = json_visible(render_json(result))
        if output is not None:
            output.write_text(text, encoding="utf-8", errors="backslashreplace")
        else:
            click.echo(text, nl=False)
        return
    from rich.console import Console

    from ..reporting import render_table

    conversations = _conversations(result, plan) if detailed else None
    if output is not None:
        with output.open("w", encoding="utf-8", errors="backslashreplace") as handle:
            render_table(
                result,
                Console(file=handle, width=120, no_color=True),
                detailed=detailed,
                conversations=conversations,
                show=show,
            )
    else:
        render_table(result, Console(), detailed=detailed, conversations=conversations, show=show)


def _conversations(result, plan) -> dict:  # noqa: ANN001
    """(eval set index, eval_id) -> (actual of the first run, expected), for the detailed view."""
    found = {}
    for planned, eval_set in zip(plan.sets, result.eval_sets, strict=True):
        for case_plan, case in zip(planned.cases, eval_set.cases, strict=True):
            actual = ()
            if case.agent_runs:
                actual = case.agent_runs[0].invocations
            else:
                recorded = plan.recorded.get((planned.index, case.eval_id), ())
                if recorded and isinstance(recorded[0], (list, tuple)):
                    actual = recorded[0]
            found[(planned.index, case.eval_id)] = (actual, case_plan.conversation)
    return found
