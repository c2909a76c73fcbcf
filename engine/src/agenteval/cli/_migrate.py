"""``agenteval migrate``: convert a legacy ADK list file into the eval-set format.

Checked first as ADK's migration checks it (``agenteval._loading._migration``): the
``test_config.json`` beside the old file names only legacy criteria, and every turn has
the keys those criteria need (``reference`` for ``response_match_score``...).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from ._exit import reports_errors

__all__ = ["migrate"]


@click.command()
@click.argument("old", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--initial-session",
    "initial_session",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Legacy initial session file ({app_name, user_id, state}) for a flat list file.",
)
@click.option(
    "-o",
    "--output",
    "output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the eval set.",
)
@click.option("--force", is_flag=True, help="Overwrite OUTPUT if it exists.")
@reports_errors
def migrate(old: Path, initial_session: Optional[Path], output: Path, force: bool) -> None:
    """Convert a legacy list file (flat turns or multi-case) to an eval-set JSON file."""
    from pydantic import ValidationError

    from .._loading import read_eval_file
    from .._loading._json import read_json
    from .._loading._migration import check_migratable, migration_config
    from .._loading._paths import describe_validation_error
    from ..errors import DataError
    from ..models import SessionInput

    session = None
    if initial_session is not None:
        data = read_json(initial_session, what="an initial session")
        if not isinstance(data, dict):
            raise DataError(
                'expected an object {"app_name", "user_id", "state"}', source=str(initial_session)
            )
        picked = {k: data[k] for k in ("app_name", "user_id", "state") if k in data}
        try:
            session = SessionInput.model_validate(picked)
        except ValidationError as exc:
            raise DataError(
                describe_validation_error(exc, SessionInput), source=str(initial_session)
            ) from None
    loaded = read_eval_file(old, initial_session=session)
    if loaded.format == "evalset":
        raise DataError("already in the eval-set format; nothing to migrate", source=str(old))
    check_migratable(read_json(old, what="an eval file"), migration_config(old), source=str(old))
    if output.exists() and not force:
        raise DataError("exists; pass --force to overwrite it", source=str(output))
    output.write_text(loaded.eval_set.to_json() + "\n", encoding="utf-8")
    for warning in loaded.warnings:
        click.echo(f"warning: {warning}", err=True)
    cases = loaded.eval_set.eval_cases
    turns = sum(len(c.conversation or ()) for c in cases)
    click.echo(f"wrote {output}: {len(cases)} case(s), {turns} invocation(s) from a {loaded.format} file")
