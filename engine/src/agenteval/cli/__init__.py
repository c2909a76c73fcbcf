"""The ``agenteval`` command line (click). Subcommands live in their own modules and
import the engine lazily, so ``agenteval --help`` stays fast and imports no plugin."""

from __future__ import annotations

import click

from ._compare import compare
from ._criteria import criteria
from ._exit import ExitCode
from ._migrate import migrate
from ._run import run
from ._runs import runs

__all__ = ["ExitCode", "main"]


def _versions(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from .._registry import installed_distributions
    from .._version import __version__

    dists = installed_distributions()
    plugins = ", ".join(f"{d} {v}" for d, v in dists.items()) or "no plugins installed"
    click.echo(f"agenteval-engine {__version__} (plugins: {plugins})")
    ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_versions,
    help="Show the engine's and installed plugins' versions.",
)
def main() -> None:
    """agenteval: score LLM agents' trajectories and responses against eval sets.

    Reads ADK's *.test.json / *.evalset.json / test_config.json files unchanged.
    """


main.add_command(run)
main.add_command(criteria)
main.add_command(migrate)
main.add_command(runs)
main.add_command(compare)
