"""The workspace's own rules: each distribution owns its version, changelog and a bounded
range on the engine; every package ships py.typed; pip's and uv's dev-tool lists agree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = [
    ROOT / "engine",
    ROOT / "plugins" / "builtin",
    ROOT / "plugins" / "llm_judges",
    ROOT / "plugins" / "vertex_safety",
    ROOT / "plugins" / "adk",
    ROOT / "plugins" / "pytest",
    ROOT / "plugins" / "viewer",
    ROOT / "plugins" / "otel",
    ROOT / "plugins" / "agent_platform",
    ROOT / "docs" / "examples" / "agenteval-example-criterion",
]


def _project(folder: Path) -> dict:
    return tomllib.loads((folder / "pyproject.toml").read_text())["project"]


@pytest.mark.parametrize("folder", DISTRIBUTIONS, ids=lambda p: p.name)
def test_version_has_a_changelog_entry(folder):
    version = _project(folder)["version"]
    changelog = (folder / "CHANGELOG.md").read_text()
    assert re.search(rf"^## {re.escape(version)} \(\d{{4}}-\d{{2}}-\d{{2}}\)", changelog, re.MULTILINE), (
        f"{folder.name}: CHANGELOG.md has no '## {version} (date)' section"
    )


@pytest.mark.parametrize("folder", DISTRIBUTIONS[1:], ids=lambda p: p.name)
def test_plugins_depend_on_the_engine_with_a_bounded_range(folder):
    [requirement] = [d for d in _project(folder)["dependencies"] if d.startswith("agenteval-engine")]
    assert ">=" in requirement and "<" in requirement.replace("<=", ""), requirement
    assert "==" not in requirement


def test_engine_version_matches_the_package():
    from agenteval import __version__

    assert _project(ROOT / "engine")["version"] == __version__


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[ ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_pip_and_uv_dev_tools_agree():
    group = tomllib.loads((ROOT / "pyproject.toml").read_text())["dependency-groups"]["dev"]
    lines = [
        ln.strip()
        for ln in (ROOT / "requirements-dev.txt").read_text().splitlines()
        if ln.strip() and not ln.startswith(("#", "-e"))
    ]
    assert _names(group) == _names(lines)


@pytest.mark.parametrize(
    ("folder", "module"),
    [
        (ROOT / "plugins" / "builtin", "agenteval_builtin"),
        (ROOT / "plugins" / "adk", "agenteval_adk"),
        (ROOT / "plugins" / "vertex_safety", "agenteval_vertex_safety"),
        (ROOT / "plugins" / "viewer", "agenteval_viewer"),
        (ROOT / "plugins" / "otel", "agenteval_otel"),
        (ROOT / "plugins" / "agent_platform", "agenteval_agent_platform"),
    ],
    ids=lambda v: v if isinstance(v, str) else v.name,
)
def test_a_package_s_own_version_is_its_distribution_s(folder, module):
    init = next((folder / "src").glob(f"{module}/__init__.py"))
    found = re.search(r'^__version__ = "([^"]+)"', init.read_text(encoding="utf-8"), re.MULTILINE)
    assert found is not None and found.group(1) == _project(folder)["version"]


# Every member of the uv workspace too, so that a new plugin is checked as soon as it joins.
_MEMBERS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["uv"]["workspace"]["members"]


@pytest.mark.parametrize(
    "folder", sorted(set(DISTRIBUTIONS) | {ROOT / m for m in _MEMBERS}), ids=lambda p: p.name
)
def test_every_package_ships_py_typed(folder):
    # PEP 561: without the marker a type checker ignores the package's annotations, so a plugin
    # author typing against it gets Any.
    hatch = tomllib.loads((folder / "pyproject.toml").read_text())["tool"]["hatch"]
    for package in hatch["build"]["targets"]["wheel"]["packages"]:
        assert (folder / package / "py.typed").is_file(), f"{folder.name}: {package}/py.typed is missing"
