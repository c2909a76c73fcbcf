"""``agenteval merge``: the run folders of ``agenteval run --shard I/N`` as one run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import click

from ._exit import reports_errors
from ._options import RUNS_DIR_OPTION, runs_folder

__all__ = ["merge"]


@click.command()
@click.argument("shards", nargs=-1, required=True, metavar="RUN...")
@click.option(
    "-o",
    "--output",
    required=True,
    metavar="RUN",
    help="The merged run to write: a new run id (a folder in the runs folder) or a new folder's path.",
)
@RUNS_DIR_OPTION
@reports_errors
def merge(shards: tuple[str, ...], output: str, runs_dir: Optional[Path]) -> None:
    """Join the shards of one plan (agenteval run ... --shard I/N) into one run folder.

    RUN is a shard's run folder or run id. Every shard of the plan must be given once and be
    complete; the merged run equals a one-process run of the whole plan (its records,
    summary and verdicts), so runs show, compare, reporters and the viewer read it as one.
    Exit codes: as agenteval run's for the merged run (0 passed, 1 failed, 3 inconclusive
    with --fail-on-inconclusive), 2 when the shards do not make one run (what is wrong is said).
    """
    from ..runs import find_run
    from ..runs._merge import merge_shards

    folder = runs_folder(runs_dir)
    found = [find_run(folder, ref) for ref in shards]
    target = Path(output) if Path(output).parent != Path(".") else folder / output
    merged = merge_shards(found, target, argv=["agenteval", "merge", *shards, "-o", output])
    summary = merged.result_summary()
    counts = ", ".join(f"{n} {s.value.lower()}" for s, n in summary.cases.items() if n) or "no cases"
    click.echo(f"merged {len(found)} shard(s) into {merged.folder}: {counts}")
    sys.exit(merged.manifest.exit_code or 0)
