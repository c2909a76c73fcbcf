"""``agenteval runs``: list, show and remove recorded runs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import click

from ._exit import ExitCode, reports_errors
from ._finish import render_report
from ._options import RUNS_DIR_OPTION, comma_list, runs_folder

if TYPE_CHECKING:
    from ..runs import RecordedRun

__all__ = ["runs"]


@click.group()
def runs() -> None:
    """Recorded runs: list them, show one again, remove them."""


@runs.command("list")
@RUNS_DIR_OPTION
@reports_errors
def list_command(runs_dir: Optional[Path]) -> None:
    """The runs in the runs folder, oldest first, with their state and case counts."""
    from .._terminal import visible
    from ..runs import list_runs

    folder = runs_folder(runs_dir)
    found = list_runs(folder)
    if not found:
        click.echo(f"no recorded runs in {folder}")
        return
    for run in found:
        manifest = run.manifest
        written = run.summary()
        planned = sum(len(s.case_ids) for s in manifest.eval_sets)
        if written is not None:
            counts = ", ".join(f"{n} {s.value.lower()}" for s, n in written.summary.cases.items() if n)
        else:
            most = planned * manifest.num_runs
            of = f"up to {most}" if manifest.num_runs_policy == "auto" else str(most)
            counts = f"{len(run.keys())} record(s) of {of}"
        sets = ", ".join(visible(s.eval_set_id) for s in manifest.eval_sets)
        agent = f" agent {visible(str(manifest.agent['target']))}" if manifest.agent else ""
        state = manifest.state.value
        click.echo(f"{manifest.run_id}  {state:<11}  {planned} case(s): {counts or '-'}  [{sets}]{agent}")


@runs.command("show")
@click.argument("run_ref", required=False, metavar="[RUN]")
@RUNS_DIR_OPTION
@click.option(
    "--format", "output_format", type=click.Choice(["table", "json"]), default="table", show_default=True
)
@click.option("--print-detailed-results", "detailed", is_flag=True, help="Show per-invocation details.")
@click.option(
    "--show",
    type=click.Choice(["all", "failing"]),
    default="failing",
    show_default=True,
    help="Which cases the table lists.",
)
@reports_errors
def show_command(
    run_ref: Optional[str], runs_dir: Optional[Path], output_format: str, detailed: bool, show: str
) -> None:
    """Print a recorded run's report again (RUN: an id, its prefix, a folder, or latest)."""
    from .._gc import gc_paused
    from ..runs import find_run

    # a short-lived reader of up to 100k cases' data, none of it in a cycle: the collector
    # would only walk it over and over
    with gc_paused():
        _show(find_run(runs_folder(runs_dir), run_ref), output_format, detailed, show)


def _show(run: RecordedRun, output_format: str, detailed: bool, show: str) -> None:
    """``show_command``'s report of ``run``; exits 0 when the run passed, else 1."""
    summary = run.result_summary()
    if run.damaged_lines:
        click.echo(
            f"warning: {run.damaged_lines} damaged line(s) in {run.folder}/results.jsonl were skipped",
            err=True,
        )
    render_report(run, summary, output_format, None, detailed, show)
    if output_format != "json":
        click.echo(
            f"run {run.run_id}: {run.manifest.state.value}, started {run.manifest.started_at}", err=True
        )
    sys.exit(ExitCode.OK if summary.status.ok else ExitCode.NOT_PASSED)


@runs.command("report")
@click.argument("run_ref", required=False, metavar="[RUN]")
@click.option(
    "--report", "reports", metavar="A,B", required=True, help="Reporters to run, e.g. junit,markdown."
)
@click.option(
    "--report-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the files go (default: the run folder's reports/).",
)
@RUNS_DIR_OPTION
@reports_errors
def report_command(
    run_ref: Optional[str], reports: str, report_dir: Optional[Path], runs_dir: Optional[Path]
) -> None:
    """Run reporters on a recorded run (RUN: an id, its prefix, a folder, or latest)."""
    from .._reporting import resolve_reporters, write_reports
    from ..runs import find_run

    run = find_run(runs_folder(runs_dir), run_ref)
    names = comma_list(reports, "--report needs at least one reporter name, e.g. --report junit")
    written = write_reports(resolve_reporters(names), run, report_dir)
    for name, paths in written.items():
        for path in paths:
            click.echo(f"{name}: {path}", err=True)


@runs.command("rm")
@click.argument("run_refs", nargs=-1, required=True, metavar="RUN...")
@RUNS_DIR_OPTION
@reports_errors
def rm_command(run_refs: tuple[str, ...], runs_dir: Optional[Path]) -> None:
    """Remove recorded runs (each RUN an id, its prefix or a folder)."""
    from ..runs import find_run, remove_run

    folder = runs_folder(runs_dir)
    chosen = [find_run(folder, ref) for ref in run_refs]
    for run in chosen:
        remove_run(run)
        click.echo(f"removed run {run.run_id}")
