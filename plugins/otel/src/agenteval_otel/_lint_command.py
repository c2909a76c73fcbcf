"""``agenteval lint-trace FILE``: what a trace lacks for scoring, per trace and turn.

Module-level imports stay light (click only): ``agenteval --help`` lists this command.
Exit codes: 0 nothing lacking, 1 findings, 2 a file that cannot be read.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from agenteval.plugins import reports_errors

__all__ = ["lint_trace"]


@click.command(name="lint-trace")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@reports_errors
def lint_trace(file: Path) -> None:
    """Say what an OpenTelemetry trace file (OTLP/JSON or JSONL, Tempo, Jaeger) lacks for scoring.

    Per trace and turn: elided or absent message content, tool spans without arguments or
    results, turns with no final text or no user message, traces of an unknown schema; with
    the setting the agent must turn on. Exit 0 when nothing lacks, 1 when something does.
    """
    from agenteval.plugins import gc_paused
    from agenteval.text import visible

    from ._reader import sessions_of
    from ._select import read_turns
    from ._turns import CAPTURE_SETTING

    with gc_paused():
        turns, empty = read_turns(file, content=False)
    sessions = sessions_of(turns)
    traces = {t.trace_id for t in turns} | {trace_id for trace_id, _ in empty}
    click.echo(
        f"{visible(str(file))}: {len(traces)} trace(s), {len(sessions)} session(s), {len(turns)} turn(s)"
    )
    count = 0
    for trace_id, finding in empty:
        click.echo(f"trace {trace_id}\n  {finding.code}: {visible(finding.message)}")
        count += 1
    for session_id, session in sessions.items():
        for number, turn in enumerate(session, start=1):
            if not turn.findings:
                continue
            user = repr(visible(turn.user_text[:60])) if turn.user_text else "no user text"
            click.echo(f"trace {turn.trace_id}, session {visible(session_id)}, turn {number} ({user})")
            for finding in turn.findings:
                click.echo(f"  {finding.code}: {visible(finding.message)}")
                count += 1
    if not count:
        click.echo(
            "nothing lacking: every turn has its user message, tool arguments and results, and a final text"
        )
        return
    click.echo(f"{count} finding(s). Content is recorded only with {CAPTURE_SETTING}")
    sys.exit(1)
