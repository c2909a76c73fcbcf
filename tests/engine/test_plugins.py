"""The one plugin finder: every kind of plugin is discovered, loaded, checked and explained
the same way (duplicates, broken plugins, contracts, install hints)."""

from __future__ import annotations

import pytest
from agenteval._plugins import KINDS, PluginFinder, install_hint, known_plugins
from agenteval._registry import (
    AGENTS_GROUP,
    FORMAT_WRITERS_GROUP,
    FORMATS_GROUP,
    JUDGE_MODELS_GROUP,
    USER_SIMULATORS_GROUP,
    ProviderRegistry,
)
from agenteval.errors import PluginLoadError
from agenteval.plugins import Agent

from tests.fixtures.dists import make_dist, run_python


def test_one_row_per_extension_point():
    assert {k.name for k in KINDS.values()} == {
        "criterion",
        "judge model provider",
        "agent adapter",
        "user simulator",
        "reporter",
        "command",
        "custom metric runner",
        "data format",
        "data format writer",
        "executor",
    }


@pytest.mark.parametrize(
    ("group", "name", "fragment"),
    [
        (AGENTS_GROUP, "adk", "agenteval-adk (pip install -e ./plugins/adk)"),
        (JUDGE_MODELS_GROUP, "gemini", "agenteval-llm-judges"),
        (USER_SIMULATORS_GROUP, "llm_backed", "agenteval-llm-judges"),
        (FORMATS_GROUP, "otel", "agenteval-otel (pip install -e ./plugins/otel)"),
        (
            FORMATS_GROUP,
            "agent-platform",
            "agenteval-agent-platform (pip install -e ./plugins/agent_platform)",
        ),
        (FORMAT_WRITERS_GROUP, "agent-platform", "agenteval-agent-platform"),
    ],
)
def test_a_known_plugin_that_is_not_installed_names_its_distribution(group, name, fragment):
    with pytest.raises(PluginLoadError) as info:
        ProviderRegistry(classes={}, group=group).load(name)
    assert f"{name!r} is not installed: it comes from {fragment}" in str(info.value)
    assert install_hint(KINDS[group].name, name).startswith(fragment.split(" ")[0])


def test_an_unknown_plugin_gets_a_suggestion():
    with pytest.raises(PluginLoadError, match="did you mean 'parrot'"):
        ProviderRegistry(classes={"parrot": object}, group=AGENTS_GROUP).load("parot")


def test_every_kind_checks_its_contract():
    with pytest.raises(PluginLoadError, match="not a subclass of agenteval.plugins.Agent"):
        ProviderRegistry(classes={"odd": dict}, group=AGENTS_GROUP).load("odd")

    class Half(Agent):
        pass

    with pytest.raises(PluginLoadError, match="Half does not implement session"):
        ProviderRegistry(classes={"half": Half}, group=AGENTS_GROUP).load("half")
    with pytest.raises(PluginLoadError, match="not a subclass of agenteval.plugins.JudgeModel"):
        ProviderRegistry(classes={"odd": dict}).load("odd")


def test_two_distributions_with_one_name_are_an_error_for_every_kind(tmp_path):
    site = tmp_path / "site"
    for dist in ("agenteval-fake-a", "agenteval-fake-b"):
        make_dist(
            site,
            dist,
            entry_points={"twin": f"{dist.replace('-', '_')}:Twin"},
            modules={dist.replace("-", "_"): "class Twin: pass\n"},
            group=JUDGE_MODELS_GROUP,
        )
    found = run_python(
        site,
        """
        import json
        from agenteval._registry import ProviderRegistry
        from agenteval.errors import PluginLoadError
        try:
            ProviderRegistry().load("twin")
        except PluginLoadError as exc:
            print(json.dumps(str(exc)))
        """,
    )
    assert "'twin' is provided by more than one distribution" in found
    assert "agenteval-fake-a[twin] and agenteval-fake-b[twin]" in found


def test_version_lists_every_plugin_distribution(tmp_path):
    site = tmp_path / "site"
    make_dist(
        site,
        "agenteval-fake-agents",
        "3.2.1",
        entry_points={"fake": "ae_fake_agents:Fake"},
        modules={"ae_fake_agents": "raise RuntimeError('never imported')\n"},
        group=AGENTS_GROUP,
    )
    found = run_python(
        site,
        """
        import json
        from click.testing import CliRunner
        from agenteval.cli import main
        print(json.dumps(CliRunner().invoke(main, ["--version"]).output))
        """,
    )
    assert "agenteval-fake-agents 3.2.1" in found


def test_the_finder_imports_nothing_to_list(tmp_path):
    finder = PluginFinder(KINDS[AGENTS_GROUP], {"a": object, "b": object})
    assert finder.names() == ["a", "b"] and [r.distribution for r in finder.refs()] == ["<in-memory>"] * 2
    assert set(known_plugins("agent adapter")) == {"adk", "python", "http", "http-traces", "command"}


def test_plugins_pause_the_collector_with_the_engines_own_gc_paused():
    # one helper for every plugin that reads or builds many objects at once (reporters, the
    # viewer's store, trace readers): the engine's, whose host-freeze rules are tested in
    # tests/engine/loading/test_json.py
    import gc

    from agenteval import _gc
    from agenteval.plugins import gc_paused

    assert gc_paused is _gc.gc_paused
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
