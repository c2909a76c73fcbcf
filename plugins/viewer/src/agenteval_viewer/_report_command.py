"""``agenteval report RUN``: the single-file HTML report of a recorded run.

Module-level imports stay light (click only): ``agenteval --help`` lists this command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import click
from agenteval.plugins import RUNS_DIR_OPTION, reports_errors

__all__ = ["report"]


@click.command()
@click.argument("run_ref", metavar="RUN", required=False)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the report (default: report.html in the run folder).",
)
@RUNS_DIR_OPTION
@click.option(
    "--max-mb",
    type=click.FloatRange(min=0.1),
    default=50.0,
    show_default=True,
    help="Size limit of the file: case details are added, failing cases first, until it is reached.",
)
@click.option(
    "--details",
    type=click.Choice(["nonpassing", "all", "none"]),
    default="all",
    show_default=True,
    help="Which cases carry their full details (expected vs actual, trajectory, judge samples).",
)
@reports_errors
def report(
    run_ref: Optional[str], output: Optional[Path], runs_dir: Optional[Path], max_mb: float, details: str
) -> None:
    """Write one self-contained HTML file for RUN (a run folder, an id, an id prefix or
    `latest`, the default): no network access, opens at 100k cases."""
    from agenteval.runs import default_runs_dir, find_run

    from ._report import build_report

    run = find_run(runs_dir or default_runs_dir(), run_ref)
    stats = build_report(run, output, max_mb=max_mb, details=details)
    left = f"; details of {stats.details_left_out} case(s) left out" if stats.details_left_out else ""
    click.echo(
        f"agenteval: report of run {run.run_id} ({stats.cases} case(s){left}) written to {stats.path} "
        f"({stats.bytes / 1_000_000:.1f} MB)",
        err=True,
    )
