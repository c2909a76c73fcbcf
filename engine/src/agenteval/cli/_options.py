"""Options and argument readers the subcommands share (each written once)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, overload

import click

__all__ = ["ECHO", "RUNS_DIR_OPTION", "comma_list", "runs_folder"]

#: ``--runs-dir``, shared by every command that writes or reads run folders.
RUNS_DIR_OPTION = click.option(
    "--runs-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The runs folder (default: $AGENTEVAL_RUNS_DIR, else .agenteval/runs).",
)


def runs_folder(runs_dir: Optional[Path]) -> Path:
    """``--runs-dir`` resolved: the option, else ``$AGENTEVAL_RUNS_DIR``, else ``.agenteval/runs``."""
    from ..runs import default_runs_dir

    return (runs_dir or default_runs_dir()).resolve()


@overload
def comma_list(value: str, empty: str) -> list[str]: ...
@overload
def comma_list(value: Optional[str], empty: str) -> Optional[list[str]]: ...
def comma_list(value: Optional[str], empty: str) -> Optional[list[str]]:
    """``a,b`` as names in order, each once; ``None`` when the option was not given. An
    option given with no name at all is a usage error saying ``empty``."""
    if value is None:
        return None
    names = [n.strip() for n in value.split(",") if n.strip()]
    if not names:
        raise click.UsageError(empty)
    return list(dict.fromkeys(names))


class _Echo:
    """A text stream over ``click.echo`` (standard output, encoding errors handled as click
    does), for writers that take a stream."""

    def write(self, text: str) -> int:
        click.echo(text, nl=False)
        return len(text)


#: Standard output as a stream, for documents written piece by piece.
ECHO = _Echo()
