"""The ``agenteval`` command line (click). Subcommands live in their own modules and
import the engine lazily, so ``agenteval --help`` stays fast and imports no plugin.

Distributions add subcommands through the entry-point group ``agenteval.commands`` (one
``click.Command`` each, e.g. ``agenteval view`` from agenteval-viewer); a plugin command is
imported only when it is run or listed by ``--help``. What such a command shares with the
built-in ones (``--runs-dir``, errors as one message and exit 2, the rerun command) is public
in ``agenteval.plugins``; ``main`` is the only public name here."""

from __future__ import annotations

import click

from ._calibrate import calibrate
from ._compare import compare
from ._criteria import criteria
from ._exit import ExitCode
from ._merge import merge
from ._migrate import migrate
from ._run import run
from ._runs import runs

__all__ = ["main"]

_COMMANDS_GROUP = "agenteval.commands"


class _CommandGroup(click.Group):
    """The built-in subcommands, then those installed plugins add (never replacing one)."""

    def _finder(self):
        from .._plugins import KINDS, PluginFinder

        if getattr(self, "_plugin_finder", None) is None:
            self._plugin_finder = PluginFinder(KINDS[_COMMANDS_GROUP])
        return self._plugin_finder

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(self._finder().names()))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        from .._plugins import install_hint
        from ..errors import PluginLoadError

        finder = self._finder()
        if cmd_name in finder.names():
            try:
                return finder.load_one(cmd_name)
            except PluginLoadError as exc:
                return _unavailable(cmd_name, str(exc))
        hint = install_hint("command", cmd_name)
        if hint is not None:
            return _unavailable(cmd_name, f"'agenteval {cmd_name}' is not installed: it comes from {hint}")
        return None


def _unavailable(name: str, why: str) -> click.Command:
    """A stand-in for a plugin command that cannot be loaded: says why, exits 2."""

    def explain() -> None:
        click.echo(f"error: {why}", err=True)
        raise SystemExit(ExitCode.USAGE)

    return click.Command(
        name,
        callback=explain,
        help=f"(not available: {why})",
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )


def _versions(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from .._registry import installed_distributions
    from .._version import __version__

    dists = installed_distributions()
    plugins = ", ".join(f"{d} {v}" for d, v in dists.items()) or "no plugins installed"
    click.echo(f"agenteval-engine {__version__} (plugins: {plugins})")
    ctx.exit()


@click.group(cls=_CommandGroup, context_settings={"help_option_names": ["-h", "--help"]})
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
main.add_command(calibrate)
main.add_command(merge)
