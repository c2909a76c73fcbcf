"""``agenteval run``: score eval cases against the agent's actual invocations."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, TypeVar, Union

import click

from ._exit import ExitCode, reports_errors
from ._finish import (
    finish_run,
    keep_report_cases,
    late_signals_ignored,
    remember_threads,
    scratch_runs_dir,
    write_reports,
)
from ._options import RUNS_DIR_OPTION, comma_list, runs_folder

if TYPE_CHECKING:  # imported lazily at run time, so that --help stays fast
    from .._judging import JudgeService
    from .._run import Plan

__all__ = ["run"]

#: The agent adapter that ``--agent-command CMD`` names (``--agent CMD --agent-type command``).
AGENT_COMMAND_TYPE = "command"

F = TypeVar("F", bound=Callable[..., Any])


def _judge_rate(what: str, how: str) -> Callable[[F], F]:
    """``--judge-rpm`` (``what``: requests) or ``--judge-tpm`` (tokens)."""
    letter = what[0]
    return click.option(
        f"--judge-{letter}pm",
        metavar="N",
        type=click.FloatRange(min=0, min_open=True),
        default=None,
        help=(
            f"Judge {what} a minute ({how}) each judge (provider, model, endpoint) may take, over "
            f"every worker of the run. Default: none (statistics.judge_{letter}pm)."
        ),
    )


_NO_ACTUAL = (
    "say where the agent's turns come from: --agent TARGET runs it (a Python agent is "
    "'package.module:function' or 'path/to/file.py:function'), --agent-command CMD starts it as a "
    "process, or --actual FILE gives "
    "recorded invocations as an eval set whose cases carry the same eval_ids as the eval file"
)


def _recorded_responses(paths: tuple[str, ...]) -> tuple[Path, ...]:
    """Without ``--actual`` and ``--agent``: the eval file itself when every case it selects
    carries a recorded response (said in one line); else nothing (the usage error follows)."""
    from .._loading import recorded_eval_file

    found = recorded_eval_file(paths)
    if found is None:
        return ()
    click.echo(f"no --actual or --agent: scoring the responses recorded in {_visible(str(found))}", err=True)
    return (found,)


class _NumRuns(click.ParamType):
    """``--num-runs``: a whole number of at least 1, or ``auto``."""

    name = "N|auto"

    def convert(self, value, param, ctx):
        if isinstance(value, int) or value == "auto":
            return value
        text = str(value).strip().lower()
        if text == "auto":
            return "auto"
        if text.isdigit() and int(text) >= 1:
            return int(text)
        self.fail(f"{value!r} is neither a whole number of at least 1 nor auto", param, ctx)


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option(
    "--actual",
    "actual",
    multiple=True,
    type=click.Path(),  # text: an empty one is refused below (as a Path it would be ".")
    help=(
        "The agent's actual invocations: an eval set file whose cases carry the same eval_ids, "
        "a run folder recorded earlier, or a file in an installed data format (e.g. OpenTelemetry "
        "traces with agenteval-otel). Repeatable (each one is a run)."
    ),
)
@click.option(
    "--format-in",
    "format_in",
    metavar="NAME",
    default=None,
    help="The data format of the --actual files (adk, or an installed one, e.g. otel); default: by content.",
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
    "--show",
    type=click.Choice(["all", "failing"]),
    default="failing",
    show_default=True,
    help="Which cases the table lists: all, or only those that did not pass (short and fast for big runs).",
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
    default=16,
    show_default=True,
    type=click.IntRange(min=1),
    help="How many judge-model calls may be in flight at once, over the whole run.",
)
@click.option(
    "--judge-sampling",
    type=click.Choice(["majority", "curtailed", "sequential", "pivotal"]),
    default=None,
    help=(
        "How every judge criterion samples, overriding its judge_sampling: majority of all samples "
        "(ADK), curtailed majority (same verdicts, fewer calls), sequential (SPRT), or pivotal "
        "(curtailed, and one sample per invocation once a case's verdict is decided)."
    ),
)
@click.option(
    "--judge-budget",
    metavar="CALLS",
    type=click.IntRange(min=0),
    default=None,
    help=(
        "The most judge calls the run's criteria may make; past it, what is left unjudged is "
        "INCONCLUSIVE (judge_budget)."
    ),
)
@click.option(
    "--max-judge-tokens",
    metavar="TOKENS",
    type=click.IntRange(min=0),
    default=None,
    help=(
        "A soft budget of judge tokens (input + output, as the providers report them): once reached, "
        "no new judge call starts and what is left is INCONCLUSIVE (judge_budget)."
    ),
)
@_judge_rate("requests", "calls evenly spaced")
@_judge_rate("tokens", "input + output, as the providers report them")
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
    "--agent-command",
    "agent_command",
    metavar="CMD",
    help=(
        "Start the agent as a process for the run (any language): it serves an OpenAI-compatible chat "
        "endpoint on $PORT and exports OTLP spans to $OTEL_EXPORTER_OTLP_ENDPOINT; its turns are read "
        f"from its spans (the {AGENT_COMMAND_TYPE!r} agent adapter of agenteval-otel)."
    ),
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
    "--agent-isolation",
    type=click.Choice(["none", "process"]),
    default="none",
    show_default=True,
    help="process: run the agent's calls in worker processes that are killed on a timeout or crash.",
)
@click.option(
    "--num-runs",
    default=None,
    metavar="N|auto",
    type=_NumRuns(),
    help=(
        "With --agent: run each case N times (default 1); verdicts use the mean score, as ADK's "
        "num_runs. auto: 3 runs, then 6, 12 and 24 for the cases still INCONCLUSIVE."
    ),
)
@click.option(
    "--run-budget",
    metavar="N",
    type=click.IntRange(min=1),
    default=None,
    help="With --num-runs auto: the most agent runs of the whole run.",
)
@click.option(
    "--save-actual",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --agent: write the agent's invocations as an eval set that --actual accepts later.",
)
@click.option(
    "--efficiency",
    is_flag=True,
    help="Also report ADK's informational efficiency criteria (tool calls, model calls, tokens, turn time).",
)
@click.option(
    "--confidence",
    type=click.FloatRange(0.5, 0.999),
    default=None,
    help="Level of the tri-state verdicts' intervals over repeated runs (default 0.95).",
)
@click.option(
    "--set-verdict",
    type=click.Choice(["holm", "any-case", "mean"]),
    default=None,
    help=(
        "How an eval set's verdict is drawn from its cases: holm (a case fails the set at Holm's "
        "levels across its cases; the default), any-case (any failing case fails it) or mean "
        "(the verdict of the mean over cases). Default: the config's statistics.set_verdict, else holm."
    ),
)
@click.option(
    "--calibration",
    metavar="FILE",
    type=click.Path(path_type=Path),
    default=None,
    help=(
        "Calibration cards (a calibration.json written by `agenteval calibrate`, or its run folder) "
        "gating the judge criteria: one without a current card, or below --min-kappa, gives "
        "INCONCLUSIVE instead of PASS or FAIL. Default: the config's statistics.calibration."
    ),
)
@click.option(
    "--min-kappa",
    type=click.FloatRange(-1.0, 1.0),
    default=None,
    help=(
        "With --calibration: the lowest lower bound of a card's κ interval that lets a judge "
        "criterion decide. Default: the config's statistics.min_kappa, else none."
    ),
)
@click.option("--no-stats", is_flag=True, help="No tri-state verdicts (only ADK's point verdicts).")
@click.option(
    "--fail-on-inconclusive",
    is_flag=True,
    default=None,
    help="Exit 3 when every point verdict passes but some tri-state verdict is INCONCLUSIVE.",
)
@click.option(
    "--executor",
    metavar="NAME",
    default="local",
    show_default=True,
    help=(
        "What runs the units of work (one case × run each): local (this process) or an installed "
        "executor plugin (e.g. ray from agenteval-ray). The run folder is written here either way."
    ),
)
@click.option(
    "--shard",
    metavar="I/N",
    default=None,
    help=(
        "Run only shard I of N of the cases (a stable slice by a hash of eval set and case ids, the "
        "same on every machine), into its own run folder; join the shards with agenteval merge."
    ),
)
@click.option("--raise-errors", is_flag=True, help="Re-raise evaluator exceptions (for plugin developers).")
@click.option("--strict", is_flag=True, hidden=True, help="Deprecated: the old name of --raise-errors.")
@RUNS_DIR_OPTION
@click.option("--no-record", is_flag=True, help="Write no run folder.")
@click.option(
    "--resume",
    "resume",
    is_flag=False,
    flag_value="latest",
    default=None,
    metavar="[RUN_ID]",
    help="Continue the latest interrupted run of the same inputs (or RUN_ID): finished cases are kept.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress display; only the report.")
@click.option(
    "--timeout",
    "run_timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Seconds the whole run may take; then it stops as interrupted (exit 124) and --resume continues it.",
)
@click.option(
    "--adk-history",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="With an ADK agent: write ADK's eval history here (default: <agent folder>/.adk/eval_history).",
)
@click.option("--no-adk-history", is_flag=True, help="With an ADK agent: do not write ADK's eval history.")
@click.option(
    "--report",
    "reports",
    metavar="A,B",
    help="Reporters to run on the recorded run, comma-separated (e.g. junit,github,markdown).",
)
@click.option(
    "--report-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where reporters write their files (default: the run folder's reports/).",
)
@reports_errors
def run(
    paths: tuple[str, ...],
    actual: tuple[Union[str, Path], ...],
    format_in: Optional[str],
    criteria: Optional[str],
    config: Optional[Path],
    output_format: str,
    output: Optional[Path],
    show: str,
    detailed: bool,
    concurrency: int,
    judge_concurrency: int,
    judge_sampling: Optional[str],
    set_verdict: Optional[str],
    calibration: Optional[Path],
    min_kappa: Optional[float],
    judge_budget: Optional[int],
    max_judge_tokens: Optional[int],
    judge_rpm: Optional[float],
    judge_tpm: Optional[float],
    no_cache: bool,
    cache_dir: Path,
    dry_run: bool,
    agent_target: Optional[str],
    agent_type: Optional[str],
    agent_command: Optional[str],
    agent_concurrency: int,
    agent_timeout: float,
    agent_isolation: str,
    num_runs: Union[int, str, None],
    run_budget: Optional[int],
    save_actual: Optional[Path],
    efficiency: bool,
    confidence: Optional[float],
    no_stats: bool,
    fail_on_inconclusive: Optional[bool],
    executor: str,
    shard: Optional[str],
    raise_errors: bool,
    strict: bool,
    runs_dir: Optional[Path],
    no_record: bool,
    resume: Optional[str],
    quiet: bool,
    run_timeout: Optional[float],
    adk_history: Optional[Path],
    no_adk_history: bool,
    reports: Optional[str],
    report_dir: Optional[Path],
) -> None:
    """Score eval files against the agent's actual invocations.

    PATH is an eval file (*.test.json, *.evalset.json, or a legacy ADK list), a folder of
    them, or FILE:CASE_ID,CASE_ID to select cases. Exit codes: 0 all passed, 1 something
    failed, errored or was not evaluated, 2 bad usage, data, config or plugin, 3 (with
    --fail-on-inconclusive) all passed but some verdict is INCONCLUSIVE, 130 interrupted
    (what was scored is still reported).
    """
    from .._agents import detach_std_streams
    from .._gc import data_frozen
    from .._run import RunOptions, RunRequest, assemble, progress_for, run_sync

    if strict:
        click.echo("warning: --strict is deprecated; it is now called --raise-errors", err=True)
        raise_errors = True
    if agent_command is not None:
        if agent_target:
            raise click.UsageError("give --agent or --agent-command, not both")
        if agent_isolation == "process":
            raise click.UsageError(
                "--agent-command runs the agent in its own process already; drop --agent-isolation process"
            )
        agent_target, agent_type = agent_command, agent_type or AGENT_COMMAND_TYPE
    blank = next((text for text in actual if not str(text).strip()), None)
    if blank is not None:
        raise click.UsageError(
            f"--actual {str(blank)!r} names no file: give a file or a run folder (is a shell variable unset?)"
        )
    actual = tuple(Path(text) for text in actual)
    from .._loading._selection import check_named

    check_named(paths)  # before anything looks at the paths (an empty one would be ".")
    if not actual and not agent_target:
        actual = _recorded_responses(paths)
    if bool(actual) == bool(agent_target):
        raise click.UsageError(_NO_ACTUAL if not actual else "give --actual or --agent, not both")
    if format_in is not None and not actual:
        raise click.UsageError("--format-in names the data format of the --actual files; it needs --actual")
    if save_actual is not None and not agent_target:
        raise click.UsageError("--save-actual records what --agent produced; it needs --agent")
    if num_runs is not None and num_runs != 1 and not agent_target:
        raise click.UsageError(
            "--num-runs runs the agent several times; it needs --agent "
            "(with --actual, give one file per run: --actual run1.json --actual run2.json)"
        )
    remember_threads()
    if agent_target:  # what an agent does to file descriptor 1 cannot reach the report on stdout
        click.get_current_context().call_on_close(detach_std_streams(fd1_to_stderr=True))
    # Output paths are fixed now (an agent may chdir) and checked before any work.
    output = _writable_file(output, "--output")
    save_actual = _writable_file(save_actual, "--save-actual")
    records_dir = None if no_record else runs_folder(runs_dir)
    reporters = _reporters(reports, no_record)
    report_dir = report_dir.absolute() if report_dir is not None else None
    request = RunRequest(
        paths=tuple(paths),
        actual=tuple(actual),
        format_in=format_in,
        agent=agent_target,
        agent_type=agent_type,
        criteria_names=_criteria(criteria),
        config_path=config,
        efficiency=efficiency,
        options=RunOptions(
            num_runs=num_runs,
            run_budget=run_budget,
            confidence=confidence,
            statistics=not no_stats,
            fail_on_inconclusive=fail_on_inconclusive,
            judge_budget=judge_budget,
            max_judge_tokens=max_judge_tokens,
            judge_rpm=judge_rpm,
            judge_tpm=judge_tpm,
            judge_sampling=judge_sampling,
            set_verdict=set_verdict,
            calibration=calibration.absolute() if calibration is not None else None,
            min_kappa=min_kappa,
            concurrency=concurrency,
            judge_concurrency=judge_concurrency,
            agent_concurrency=agent_concurrency,
            agent_timeout=agent_timeout,
            agent_isolation=agent_isolation,
            strict=raise_errors,
            cache_dir=None if no_cache else cache_dir,
            executor=executor,
            shard=shard,
        ),
    )
    assembled = assemble(
        request, on_warning=lambda message: click.echo(f"warning: {_visible(message)}", err=True)
    )
    plan, judge = assembled.plan, assembled.judge
    assert judge is not None  # a run from paths always has its judge service
    if plan.auto_runs and no_stats:
        raise click.UsageError("--num-runs auto stops each case once its verdict is decided; drop --no-stats")
    if dry_run:
        for warning in plan.warnings:
            click.echo(f"warning: {_visible(warning)}", err=True)
        _print_plan(plan, judge, no_cache)
        sys.exit(ExitCode.OK)
    evaluation = assembled.open(
        # Even an unrecorded run goes through a (temporary) folder: the report is read from it.
        runs_dir=records_dir if records_dir is not None or resume else scratch_runs_dir(),
        keep_results=False,
        resume=resume,
        progress=progress_for(sys.stderr, quiet=quiet, judge_counters=_judge_counters(judge)),
        adk_history=None if no_adk_history else _adk_history(plan, adk_history),
    )
    keep_report_cases(evaluation, output_format)
    # the run's data stays set aside from the collector until the report is out (the run
    # alone would hand it back as it ends, and the next full collection would walk it all)
    with late_signals_ignored(), data_frozen():
        result = run_sync(evaluation.execute(handle_signals=True, timeout=run_timeout))
        if reporters and evaluation.writer is not None:
            # Lines for the CI log (annotations) never go into a JSON document on stdout.
            log = sys.stderr if output_format == "json" and output is None else sys.stdout
            write_reports(reporters, evaluation.writer.folder, report_dir, log)
        try:
            finish_run(result, plan, evaluation, save_actual, paths, output_format, output, detailed, show)
        except SystemExit as done:
            if done.code == ExitCode.OK and assembled.settings.fail_on_inconclusive:
                _exit_if_inconclusive(result, plan)
            raise


def _criteria(value: Optional[str]) -> Optional[tuple[str, ...]]:
    names = comma_list(value, "give at least one criterion name, e.g. --criteria response_match_score")
    return None if names is None else tuple(names)


def _adk_history(plan: Plan, folder: Optional[Path]) -> Optional[Path]:
    """Where ADK's eval history goes: ``--adk-history``, else the ADK agent's own folder's
    ``.adk/eval_history`` (``None``: no ADK agent)."""
    if plan.agent is None:
        return None
    if folder is not None:
        return folder.absolute()
    app = plan.agent.adk_app()
    return app[0] / ".adk" / "eval_history" if app is not None else None


def _exit_if_inconclusive(result, plan: Plan) -> None:
    """``--fail-on-inconclusive``: exit 3 when some tri-state verdict is INCONCLUSIVE (the
    per-eval-set counts of the summary say how many)."""
    found = result.summary.inconclusive()
    if found:
        uncalibrated = sorted(
            {e.name for s in plan.sets for e in s.entries if e.calibration and e.calibration.problem}
        )
        why = (
            f"; {', '.join(uncalibrated)} {'is' if len(uncalibrated) == 1 else 'are'} not calibrated "
            "(--calibration): more runs do not settle those, a current calibration card does"
            if uncalibrated
            else ""
        )
        click.echo(
            f"agenteval: {found} criterion result(s) INCONCLUSIVE, each saying why{why}; "
            "exit 3 (--fail-on-inconclusive)",
            err=True,
        )
        sys.exit(ExitCode.INCONCLUSIVE)


def _reporters(names: Optional[str], no_record: bool) -> dict:
    """The reporter classes asked for, loaded before any work (exit 2 when one is unknown)."""
    if not names:
        return {}
    if no_record:
        raise click.UsageError("--report renders the recorded run; it cannot be combined with --no-record")
    from .._reporting import resolve_reporters

    return resolve_reporters(
        comma_list(names, "--report needs at least one reporter name, e.g. --report junit")
    )


def _visible(text: str) -> str:
    from .._terminal import visible

    return visible(text, newlines=True)


def _writable_file(path: Optional[Path], option: str) -> Optional[Path]:
    """``path`` made absolute; ``UsageError`` (exit 2) now when it cannot be written later."""
    if path is None:
        return None
    path = path.expanduser().absolute()
    folder = path.parent
    if path.is_dir():
        raise click.UsageError(f"{option} {str(path)!r} is a folder; give a file name")
    if not folder.is_dir():
        raise click.UsageError(
            f"{option} {str(path)!r}: the folder {str(folder)!r} does not exist; "
            "create it or give another path"
        )
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise click.UsageError(f"{option} {str(path)!r} cannot be written (no permission); give another path")
    return path


def _judge_counters(judge: JudgeService):
    def counters() -> dict[str, int]:
        activity = judge.activity()
        found = {}
        if activity is not None:
            found = {"calls": activity.calls, "cache_hits": activity.cache_hits, "retries": activity.retries}
        try:
            live = judge.progress()
        except Exception:  # noqa: BLE001 - the display must never break the run
            return found
        found["waiting"] = live.waiting
        found["retrying"] = live.retrying
        return found

    return counters


def _print_plan(plan: Plan, judge: JudgeService, no_cache: bool) -> None:
    """``--dry-run``: what the agent would run and how many judge calls each criterion (and
    the user simulator) would make, at most."""
    from .._run import context_for

    planned: dict[str, int] = {}
    cases = plan.case_count
    runs = plan.num_runs
    for item in plan.sets:
        for case in item.cases:
            recorded = plan.recorded.get((item.index, case.eval_id))
            for criterion in item.criteria:
                # With --agent nothing has run yet: the expected turns stand in for its own.
                first = recorded[0] if recorded else None
                actual = first if isinstance(first, (list, tuple)) else (case.conversation or [])
                ctx = context_for(case, actual, criterion, judge, f"{item.index}:{case.eval_id}")
                calls = criterion.evaluator.planned_judge_calls(ctx) * runs
                planned[criterion.name] = planned.get(criterion.name, 0) + calls
    click.echo(f"dry run: {cases} case(s), {len(planned)} criteria; nothing was called")
    if plan.agent is not None:
        if plan.auto_runs:
            most = cases * runs if plan.run_budget is None else min(cases * runs, plan.run_budget)
            click.echo(
                f"  the agent: {cases} case(s) x {plan.looks[0]} to {runs} runs (--num-runs auto, looks at "
                f"{', '.join(map(str, plan.looks))}) = {cases * plan.looks[0]} to {most} conversation(s)"
            )
        else:
            click.echo(f"  the agent: {cases} case(s) x {runs} run(s) = {cases * runs} conversation(s)")
        simulated = _simulator_calls(plan)
        if simulated is not None:
            planned["the user simulator"] = simulated
        elif any(item.user_simulator is not None for item in plan.sets):
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
    if judge.budget is not None:
        fits = "fit within" if total <= judge.budget else "exceed"
        click.echo(
            f"the planned judge calls {fits} the budget of {judge.budget} (--judge-budget)"
            + ("" if total <= judge.budget else "; judge results past it will be INCONCLUSIVE (judge_budget)")
        )
    if judge.max_tokens is not None:
        click.echo(
            f"judge tokens are capped at {judge.max_tokens:,} (--max-judge-tokens); once the tokens the "
            "providers report reach it, no new judge call starts and what is left is INCONCLUSIVE "
            "(judge_budget)"
        )


def _simulator_calls(plan: Plan) -> Optional[int]:
    """The most user-simulator calls: one per simulated message after the starting prompt,
    per scenario and run; None when some scenario has no turn limit."""
    total = 0
    for item in plan.sets:
        if item.user_simulator is None:
            continue
        limit = item.user_simulator.config.max_allowed_invocations
        scenarios = sum(1 for case in item.cases if case.conversation_scenario is not None)
        if scenarios and limit < 0:
            return None
        total += scenarios * max(limit - 1, 0) * plan.num_runs
    return total
