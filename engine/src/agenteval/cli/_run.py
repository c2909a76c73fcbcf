"""``agenteval run``: score eval cases against the agent's actual invocations."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import click

from ._exit import ExitCode, reports_errors

if TYPE_CHECKING:  # imported lazily at run time, so that --help stays fast
    from .._runner import Job
    from ..judging import JudgeService

__all__ = ["run"]

_NO_ACTUAL = (
    "say where the agent's turns come from: --agent TARGET runs it (a Python agent is "
    "'package.module:function' or 'path/to/file.py:function'), or --actual FILE gives "
    "recorded invocations as an eval set whose cases carry the same eval_ids as the eval file"
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
@click.option(
    "--judge-concurrency",
    default=8,
    show_default=True,
    type=click.IntRange(min=1),
    help="How many judge-model calls may be in flight at once, over the whole run.",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the judge answer cache.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path(".agenteval"),
    show_default=True,
    help="Where the judge answer cache lives.",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Check everything and count the judge calls a run would make; call nothing.",
)
@click.option(
    "--agent",
    "agent_target",
    metavar="TARGET",
    help="Run this agent to get the actual invocations (e.g. my_pkg.agent:respond or agent.py:respond).",
)
@click.option(
    "--agent-type", metavar="NAME", help="The agent adapter to use (default: the one that claims TARGET)."
)
@click.option(
    "--agent-concurrency",
    default=4,
    show_default=True,
    type=click.IntRange(min=1),
    help="How many cases the agent runs at once.",
)
@click.option(
    "--agent-timeout",
    default=300.0,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds the agent may take for one turn.",
)
@click.option(
    "--num-runs",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="With --agent: run each case this many times; verdicts use the mean score, as ADK's num_runs.",
)
@click.option(
    "--save-actual",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --agent: write the agent's invocations as an eval set that --actual accepts later.",
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
    judge_concurrency: int,
    no_cache: bool,
    cache_dir: Path,
    dry_run: bool,
    agent_target: Optional[str],
    agent_type: Optional[str],
    agent_concurrency: int,
    agent_timeout: float,
    num_runs: int,
    save_actual: Optional[Path],
    strict: bool,
) -> None:
    """Score eval files against the agent's actual invocations.

    PATH is an eval file (*.test.json, *.evalset.json, or a legacy ADK list), a folder of
    them, or FILE:CASE_ID,CASE_ID to select cases. Exit codes: 0 all passed, 1 something
    failed, errored or was not evaluated, 2 bad usage, data, config or plugin, 130
    interrupted (what was scored is still reported).
    """
    from .._api import plan_from_paths, resolve_agent, run_agent_for
    from .._api import save_actual as write_actual
    from .._runner import run_jobs, run_sync
    from ..judging import JudgeCache, JudgeService

    if bool(actual) == bool(agent_target):
        raise click.UsageError(_NO_ACTUAL if not actual else "give --actual or --agent, not both")
    if save_actual is not None and not agent_target:
        raise click.UsageError("--save-actual records what --agent produced; it needs --agent")
    if num_runs > 1 and not agent_target:
        raise click.UsageError(
            "--num-runs runs the agent several times; it needs --agent "
            "(with --actual, give one file per run: --actual run1.json --actual run2.json)"
        )
    agent = resolve_agent(agent_target, agent_type) if agent_target else None
    judge = JudgeService(concurrency=judge_concurrency, cache=None if no_cache else JudgeCache(cache_dir))
    jobs, warnings = plan_from_paths(
        paths, actual, criteria_names=_split_criteria(criteria), config_path=config, judge=judge, agent=agent
    )
    if dry_run:
        _print_plan(jobs, judge, no_cache, num_runs=num_runs if agent is not None else None)
        sys.exit(ExitCode.OK)
    if agent is not None:
        run_sync(
            run_agent_for(
                jobs,
                agent,
                concurrency=agent_concurrency,
                timeout=agent_timeout,
                num_runs=num_runs,
                judge=judge,
            )
        )
        if save_actual is not None:
            written = write_actual(jobs, save_actual)
            for path, count in written:
                click.echo(f"agenteval: wrote the actual invocations of {count} case(s) to {path}", err=True)
            rescore = " ".join(f"--actual {path}" for path, _ in written)
            click.echo(
                f"agenteval: score them again with: agenteval run {' '.join(paths)} {rescore}", err=True
            )
    result = run_sync(run_jobs(jobs, concurrency=concurrency, strict=strict, warnings=warnings, judge=judge))
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
            (i, case.eval_id): (job.actual.get(case.eval_id, ()), case.conversation)
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
    if result.interrupted:
        click.echo("agenteval: interrupted; the results above are what was scored before", err=True)
        sys.exit(ExitCode.INTERRUPTED)
    sys.exit(ExitCode.OK if result.passed else ExitCode.NOT_PASSED)


def _print_plan(jobs: Sequence[Job], judge: JudgeService, no_cache: bool, *, num_runs: Optional[int]) -> None:
    """``--dry-run``: what the agent would run and how many judge calls each criterion (and
    the user simulator) would make, at most. ``num_runs`` is None without ``--agent``."""
    from .._runner import context_for

    planned: dict[str, int] = {}
    cases = 0
    runs = num_runs or 1
    for set_index, job in enumerate(jobs):
        for case in job.cases:
            cases += 1
            for criterion in job.criteria:
                # With --agent nothing has run yet: the expected turns stand in for its own.
                actual = job.actual.get(case.eval_id, case.conversation or [])
                ctx = context_for(case, actual, criterion, judge, f"{set_index}:{case.eval_id}")
                calls = criterion.evaluator.planned_judge_calls(ctx) * runs
                planned[criterion.name] = planned.get(criterion.name, 0) + calls
    click.echo(f"dry run: {cases} case(s), {len(planned)} criteria; nothing was called")
    if num_runs is not None:
        click.echo(f"  the agent: {cases} case(s) x {num_runs} run(s) = {cases * num_runs} conversation(s)")
        simulated = _simulator_calls(jobs, num_runs)
        if simulated is not None:
            planned["the user simulator"] = simulated
        elif any(job.user_simulator is not None for job in jobs):
            click.echo("  the user simulator: no turn limit (max_allowed_invocations: -1), calls not bounded")
    total = sum(planned.values())
    for name, calls in planned.items():
        click.echo(f"  {name}: {calls} judge call(s)" if calls else f"  {name}: no judge calls")
    cache_note = (
        "the cache is off (--no-cache)"
        if no_cache
        else "answers already in the cache will not be called again"
    )
    click.echo(f"at most {total} judge call(s); {cache_note}")


def _simulator_calls(jobs: Sequence[Job], num_runs: int) -> Optional[int]:
    """The most user-simulator calls: one per simulated message after the starting prompt,
    per scenario and run; None when some scenario has no turn limit."""
    total = 0
    for job in jobs:
        if job.user_simulator is None:
            continue
        limit = job.user_simulator.config.max_allowed_invocations
        scenarios = sum(1 for case in job.cases if case.conversation_scenario is not None)
        if scenarios and limit < 0:
            return None
        total += scenarios * max(limit - 1, 0) * num_runs
    return total
