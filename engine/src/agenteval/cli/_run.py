"""``agenteval run``: score eval cases against the agent's actual invocations."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import click

from ._exit import ExitCode, reports_errors

__all__ = ["run"]

_NO_ACTUAL = (
    "--actual is required: agenteval does not run agents yet. Give the agent's actual "
    "invocations as an eval set file whose cases carry the same eval_ids as the eval file "
    "(e.g. one written by `adk web` or your own harness): agenteval run EVALSET --actual ACTUAL.json"
)


def _split_criteria(value: Optional[str]) -> Optional[list[str]]:
    if value is None:
        return None
    names = [n.strip() for n in value.split(",") if n.strip()]
    if not names:
        raise click.BadParameter("give at least one criterion name, e.g. --criteria response_match_score")
    return list(dict.fromkeys(names))


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option(
    "--actual",
    "actual",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Eval set file with the agent's actual invocations (same eval_ids). Repeatable.",
)
@click.option(
    "--criteria",
    "criteria",
    metavar="A,B",
    help="Criteria to apply, comma-separated; overrides the config's set, keeping its thresholds.",
)
@click.option(
    "--config",
    "config",
    type=click.Path(dir_okay=False, path_type=Path),
    help=(
        "Config file (ADK's test_config.json format). "
        "Default: test_config.json beside each eval file, else ADK's defaults."
    ),
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--output",
    "output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the output to this file instead of standard output.",
)
@click.option(
    "--print-detailed-results",
    "detailed",
    is_flag=True,
    help="Show per-invocation scores, prompts, responses and tool calls.",
)
@click.option(
    "--concurrency",
    default=16,
    show_default=True,
    type=click.IntRange(min=1),
    help="How many evaluations may run at once.",
)
@click.option("--strict", is_flag=True, help="Re-raise evaluator exceptions (for plugin developers).")
@reports_errors
def run(
    paths: tuple[str, ...],
    actual: tuple[Path, ...],
    criteria: Optional[str],
    config: Optional[Path],
    output_format: str,
    output: Optional[Path],
    detailed: bool,
    concurrency: int,
    strict: bool,
) -> None:
    """Score eval files against the agent's actual invocations.

    PATH is an eval file (*.test.json, *.evalset.json, or a legacy ADK list), a folder of
    them, or FILE:CASE_ID,CASE_ID to select cases. Exit codes: 0 all passed, 1 something
    failed, errored or was not evaluated, 2 bad usage, data, config or plugin.
    """
    from .._api import plan_from_paths
    from .._runner import run_jobs, run_sync

    if not actual:
        raise click.UsageError(_NO_ACTUAL)
    jobs, warnings = plan_from_paths(
        paths, actual, criteria_names=_split_criteria(criteria), config_path=config
    )
    result = run_sync(run_jobs(jobs, concurrency=concurrency, strict=strict, warnings=warnings))
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    if output_format == "json":
        from ..reporting import render_json

        text = render_json(result)
        if output is not None:
            output.write_text(text, encoding="utf-8")
        else:
            click.echo(text, nl=False)
    else:
        from rich.console import Console

        from ..reporting import render_table

        conversations = {
            (i, case.eval_id): (job.actual[case.eval_id], case.conversation)
            for i, job in enumerate(jobs)
            for case in job.cases
        }
        if output is not None:
            with output.open("w", encoding="utf-8") as handle:
                render_table(
                    result,
                    Console(file=handle, width=120, no_color=True),
                    detailed=detailed,
                    conversations=conversations,
                )
        else:
            render_table(result, Console(), detailed=detailed, conversations=conversations)
    if output is not None or output_format == "json":
        counts = (
            ", ".join(f"{n} {s.value.lower()}" for s, n in result.summary.cases.items() if n) or "no case ran"
        )
        click.echo(f"agenteval: {counts}", err=True)
    sys.exit(ExitCode.OK if result.passed else ExitCode.NOT_PASSED)
