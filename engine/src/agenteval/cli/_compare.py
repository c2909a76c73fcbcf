"""``agenteval compare A B``: regressions and improvements between two runs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import click

from ._exit import reports_errors
from ._options import RUNS_DIR_OPTION, comma_list, runs_folder

__all__ = ["compare"]


@click.command()
@click.argument("baseline", metavar="A")
@click.argument("candidate", metavar="B")
@RUNS_DIR_OPTION
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json", "markdown"]),
    default="table",
    show_default=True,
)
@click.option(
    "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report to this file."
)
@click.option(
    "--confidence",
    type=click.FloatRange(0.5, 0.999),
    default=0.95,
    show_default=True,
    help="Confidence level: a change is REGRESSED / IMPROVED when its Holm-adjusted p < 1 - confidence.",
)
@click.option(
    "--margin",
    type=click.FloatRange(min=0.0),
    default=None,
    help="Require non-inferiority: B may be worse by at most this much (score units), else exit 3.",
)
@click.option("--criteria", "criteria", metavar="A,B", help="Compare only these criteria.")
@click.option(
    "--allow-config-change",
    is_flag=True,
    help="Compare even when a criterion's threshold, parameters, plugin version or judge model differ.",
)
@click.option(
    "--fail-on-flip",
    is_flag=True,
    help=(
        "Exit 1 also when any case's verdict went from PASSED to anything else (FAILED, ERRORED, "
        "NOT_EVALUATED), whatever the statistics say: a strict CI gate."
    ),
)
@reports_errors
def compare(
    baseline: str,
    candidate: str,
    runs_dir: Optional[Path],
    output_format: str,
    output: Optional[Path],
    confidence: float,
    margin: Optional[float],
    criteria: Optional[str],
    allow_config_change: bool,
    fail_on_flip: bool,
) -> None:
    """Compare run B (the candidate) with run A (the baseline).

    A and B are run folders, run ids (or unique prefixes) in the runs folder, or ADK eval
    history (*.evalset_result.json files, or folders of them). Cases pair on (eval_set_id,
    eval_id). Exit codes: 0 no regression, 1 a criterion REGRESSED (or, with
    --fail-on-flip, a case went from PASSED to worse), 2 usage or pairing error, 3
    non-inferiority not shown (with --margin).
    """
    from .._gc import gc_paused
    from ..runs._comparison import compare_sides, load_sides, render_markdown

    folder = runs_folder(runs_dir)
    names = comma_list(criteria, "--criteria needs at least one criterion name")
    # two sides of up to 100k cases' data, none of it in a cycle: the collector would only
    # walk it over and over
    with gc_paused():
        report = compare_sides(
            *load_sides(baseline, candidate, folder),
            alpha=1 - confidence,
            margin=margin,
            allow_config_change=allow_config_change,
            criteria=names,
        )
    flipped = sum(flip.regression for flip in report.flips) if fail_on_flip else 0
    exit_code = 1 if flipped and report.exit_code != 1 else report.exit_code
    if output_format == "json":
        import json

        doc = report.to_json()
        doc["exit_code"] = exit_code
        text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    elif output_format == "markdown":
        text = render_markdown(report)
    else:
        text = None
    if text is not None:
        if output is not None:
            output.write_text(text, encoding="utf-8")
        else:
            click.echo(text, nl=False)
    else:
        from rich.console import Console

        from .._reporting import file_console

        if output is not None:
            with output.open("w", encoding="utf-8") as handle:
                _table(report, file_console(handle, 120))
        else:
            _table(report, Console())
    if flipped and exit_code != report.exit_code:
        click.echo(f"--fail-on-flip: {flipped} case verdict(s) went from PASSED to worse: exit 1", err=True)
    sys.exit(exit_code)


def _table(report, console) -> None:
    from rich.text import Text

    from .._terminal import visible

    style = {"REGRESSED": "bold red", "IMPROVED": "green", "NO DETECTABLE CHANGE": "dim"}
    console.print(
        Text(
            f"baseline A: {visible(report.a.source)}\ncandidate B: {visible(report.b.source)}\n", style="bold"
        )
        .append(f"{len(report.paired)} paired case(s)")
        .append(f", {len(report.only_a)} only in A" if report.only_a else "")
        .append(f", {len(report.only_b)} only in B" if report.only_b else "")
    )
    if report.comparison is not None:
        level = f"{report.comparison.level:.0%}"
        console.print(Text(f"\nper criterion, B - A ({level} intervals, Holm-adjusted p):", style="bold"))
        for item in report.comparison.criteria:
            head = Text(f"  {visible(item.criterion)}  ", style="bold").append(
                item.status.value, style=style.get(item.status.value, "")
            )
            console.print(head)
            console.print(
                f"    A {_num(item.mean_a)} → B {_num(item.mean_b)}   Δ {item.delta:+.3f} "
                f"[{item.interval.low:+.3f}, {item.interval.high:+.3f}]   p {item.p_holm:.3g}   "
                f"MDE {_num(item.mde)}   n {item.n_pairs}",
                highlight=False,
            )
    for name, why in report.skipped.items():
        console.print(Text(f"{visible(name)}: not compared: {why}", style="dim"))
    for change in report.config_changes:
        console.print(Text(f"configuration changed (allowed): {visible(change)}", style="yellow"))
    if report.flips:
        regressions = sum(f.regression for f in report.flips)
        console.print(
            Text(f"verdict flips: {len(report.flips)} ({regressions} regression(s), first)", style="bold")
        )
        for flip in report.flips[:50]:
            mark = "▼" if flip.regression else "▲"
            line = Text(
                f"  {mark} {visible(flip.eval_set_id)}/{visible(flip.case_id)} · {visible(flip.criterion)}: "
            )
            line.append(flip.status_a.value).append(" → ").append(flip.status_b.value, style="bold")
            if flip.flagged:
                line.append(f"  (q = {flip.q_value:.3g}, significant across repeated runs)", style="red")
            console.print(line)
        if len(report.flips) > 50:
            console.print(f"  … and {len(report.flips) - 50} more (--format json lists all)")
        note = report.case_flags_note()
        if note:
            console.print(Text(note, style="dim"))
    else:
        console.print(Text("no case changed its verdict", style="green"))
    regressed = report.comparison.regressed if report.comparison is not None else ()
    worse = sum(f.regression for f in report.flips)
    if regressed:
        console.print(Text(f"REGRESSED: {', '.join(c.criterion for c in regressed)}", style="bold red"))
    elif worse:
        console.print(
            Text(
                f"no statistically detectable regression, but {worse} case verdict(s) went from PASSED "
                "to worse: look at them, or add cases or runs to decide (--fail-on-flip makes this exit 1)",
                style="bold yellow",
            )
        )
    else:
        console.print(Text("no regression detected", style="bold green"))


def _num(value: Optional[float]) -> str:
    return "—" if value is None else f"{value:.3f}"
