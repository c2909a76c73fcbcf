"""Subcommands added by plugins (entry-point group ``agenteval.commands``)."""

from __future__ import annotations

import click
import pytest
from agenteval._plugins import KINDS, PluginFinder
from agenteval.cli import main
from click.testing import CliRunner


@click.command()
@click.argument("who")
def hello(who: str) -> None:
    """Say hello."""
    click.echo(f"hello {who}")


@pytest.fixture
def plugin_commands(monkeypatch):
    def install(objects):
        monkeypatch.setattr(
            main, "_plugin_finder", PluginFinder(KINDS["agenteval.commands"], objects), raising=False
        )

    yield install
    monkeypatch.setattr(main, "_plugin_finder", None, raising=False)


def test_a_plugin_command_runs_and_is_listed(plugin_commands):
    plugin_commands({"hello": hello})
    result = CliRunner().invoke(main, ["hello", "you"])
    assert result.exit_code == 0, result.output
    assert result.output == "hello you\n"
    listing = CliRunner().invoke(main, ["--help"]).output
    assert "hello" in listing and "Say hello." in listing


def test_a_plugin_never_replaces_a_builtin_command(plugin_commands):
    plugin_commands({"run": hello})
    result = CliRunner().invoke(main, ["run", "--help"])
    assert "Score eval files" in result.output


def test_a_broken_plugin_command_is_exit_2_with_the_reason(plugin_commands):
    plugin_commands({"hello": object()})
    result = CliRunner().invoke(main, ["hello", "x"])
    assert result.exit_code == 2
    assert "not a click command" in result.output
    assert "Traceback" not in result.output


def test_a_known_command_not_installed_names_its_distribution(plugin_commands):
    plugin_commands({})
    result = CliRunner().invoke(main, ["view"])
    assert result.exit_code == 2
    assert "agenteval-viewer" in result.output and "pip install" in result.output


def test_an_unknown_command_is_clicks_usage_error(plugin_commands):
    plugin_commands({})
    result = CliRunner().invoke(main, ["nope"])
    assert result.exit_code == 2
    assert "No such command 'nope'" in result.output
