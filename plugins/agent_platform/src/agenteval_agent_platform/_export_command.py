"""``agenteval export FILE --to FORMAT -o DIR``: an eval file written in another format.

Module-level imports stay light (click only): ``agenteval --help`` lists this command.
``FILE`` is read as ``agenteval run`` reads it (ADK eval sets, legacy lists, and the
installed data formats); ``--to adk`` writes ``<id>.evalset.json``, any other name is an
installed writer (``agenteval.format_writers``). What the target format cannot hold is
printed, one line per case. Exit 0 written, 2 a file that cannot be read or written.
"""

from __future__ import annotations

from pathlib import Path

import click
from agenteval.plugins import reports_errors

__all__ = ["export"]


@click.command(name="export")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--to", "target", required=True, help="The format to write: adk, or an installed writer (agent-platform)."
)
@click.option(
    "-o",
    "--output",
    "folder",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder to write into (made when missing).",
)
@reports_errors
def export(file: Path, target: str, folder: Path) -> None:
    """Write an eval file (ADK eval set or Agent Platform dataset) in another format.

    --to agent-platform writes <id>-dataset.json exactly as google-cloud-aiplatform's
    EvaluationDataset.load_from_adk_eval_set converts the same eval set; --to adk writes
    <id>.evalset.json. Every field the target cannot hold is listed.
    """
    from agenteval.errors import DataError, PluginLoadError
    from agenteval.plugins import ADK_FORMAT, format_writer, format_writers, read_eval_file
    from agenteval.text import visible

    loaded = read_eval_file(file)
    warnings = list(loaded.warnings)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if target == ADK_FORMAT:
            warnings += [  # ADK has no history: its turns become turns ADK (and agenteval) score
                f"eval_cases[{n}] ({case.eval_id}): its first {case.context_turns} turn(s) are history, "
                "context that is not scored; an ADK eval set has no history, so they are written as "
                "ordinary turns, which ADK and agenteval score"
                for n, case in enumerate(loaded.eval_set.eval_cases)
                if case.context_turns
            ]
            written = [folder / f"{loaded.eval_set.eval_set_id}.evalset.json"]
            written[0].write_text(loaded.eval_set.to_json() + "\n", encoding="utf-8")
        else:
            installed = format_writers()
            if target not in installed:
                choices = ", ".join([f"{ADK_FORMAT} (built in)", *installed])
                raise PluginLoadError(
                    f"--to {target!r} is not a format agenteval writes; choose one of: {choices}"
                )
            writer = format_writer(target)
            try:
                written = writer.write(loaded.eval_set, folder)
            except DataError as exc:  # what the format cannot hold, at a JSON path of FILE
                raise DataError(exc.message, source=exc.source or str(file)) from None
            warnings += writer.warnings
    except OSError as exc:
        raise DataError(f"cannot write: {exc.strerror or exc}", source=str(folder)) from None
    for line in warnings:
        click.echo(f"warning: {visible(line)}", err=True)
    for path in written:
        click.echo(f"wrote {visible(str(path))} ({len(loaded.eval_set.eval_cases)} case(s))")
