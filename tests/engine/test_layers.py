"""The engine's layer order, read from its source (docs/architecture.md, "Layers").

Every import of ``agenteval.*`` inside the engine is found with ``ast``, lazy imports in
functions included, ``if TYPE_CHECKING:`` blocks excluded (they never run). A "unit" is a
first-level module or package of ``agenteval`` (``_judging``, ``_run``, ``models``...).
The plugin distributions' sources (``plugins/*/src``) are read too: they import public
names of the engine only.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine" / "src" / "agenteval"
#: The source folders of this repository's plugin distributions (``plugins/<folder>/src``).
PLUGIN_SOURCES = sorted((ROOT / "plugins").glob("*/src"))
#: Their packages, which the engine must never import.
PLUGIN_PACKAGES = {
    package.name for source in PLUGIN_SOURCES for package in source.iterdir() if package.is_dir()
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ENGINE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                yield from _runtime_imports(ast.Module(body=[child], type_ignores=[]))
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        yield from _runtime_imports(node)


def _imported(path: Path) -> Iterator[tuple[str, int]]:
    """Every module ``path`` imports at run time, absolute, with its line."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        if node.module:
            yield target, node.lineno
        else:
            for alias in node.names:
                yield f"{target}.{alias.name}", node.lineno


def _edges() -> dict[tuple[str, str], list[str]]:
    """(importing unit, imported unit) -> where, for every import between two units."""
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(ENGINE.rglob("*.py")):
        source = _unit(_module_name(path))
        for target, line in _imported(path):
            if target == "agenteval" or target.startswith("agenteval."):
                unit = _unit(target)
                if unit != source:
                    found[(source, unit)].append(f"{path.relative_to(ENGINE.parent)}:{line}")
    return found


EDGES = _edges()


def _imports_of(unit: str) -> dict[str, list[str]]:
    return {target: where for (source, target), where in EDGES.items() if source == unit}


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one unit (Tarjan)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for source, target in EDGES:
        graph[source].add(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _where(unit: str, targets: set[str]) -> list[str]:
    return [f"{unit} -> {t} at {w}" for t, where in _imports_of(unit).items() if t in targets for w in where]


def test_the_engine_source_is_where_the_test_looks() -> None:
    assert (ENGINE / "__init__.py").is_file()
    assert ("cli", "_run") in EDGES  # a known edge: the scan sees lazy imports in functions


def test_no_import_cycles_between_units() -> None:
    cycles = _cycles()
    detail = [
        f"{a} -> {b} at {w}"
        for cycle in cycles
        for (a, b), where in EDGES.items()
        if a in cycle and b in cycle
        for w in where
    ]
    assert not cycles, "import cycles between engine units:\n" + "\n".join(detail)


def test_statistics_import_nothing_of_agenteval() -> None:
    assert not _imports_of("_stats"), _imports_of("_stats")


def test_the_data_model_imports_only_itself() -> None:
    assert not _imports_of("models"), _imports_of("models")


@pytest.mark.parametrize("unit", ["_judging", "_loading"])
def test_judging_and_loading_sit_below_the_runtime(unit: str) -> None:
    above = {"_agents", "_run", "cli", "_api", "_reporting"}
    assert not _where(unit, above), "\n".join(_where(unit, above))


def test_runs_and_reporting_never_run_anything() -> None:
    runtime = {"_agents", "_run", "cli", "_api", "_judging"}
    offending = _where("runs", runtime) + _where("_reporting", runtime)
    assert not offending, "\n".join(offending)


def test_the_engine_never_imports_a_plugin_package() -> None:
    offending = []
    for path in sorted(ENGINE.rglob("*.py")):
        for target, line in _imported(path):
            if target.split(".")[0] in PLUGIN_PACKAGES:
                offending.append(f"{path.relative_to(ENGINE.parent)}:{line} imports {target}")
    assert not offending, "\n".join(offending)


def test_every_plugin_package_is_known() -> None:
    assert {"agenteval_builtin", "agenteval_viewer", "agenteval_agent_platform", "pytest_agenteval"} <= (
        PLUGIN_PACKAGES
    )


def _private_names(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """Every ``agenteval`` module or name an import reaches whose dotted path has a private
    part (``agenteval._loading``, ``agenteval.runs._locate``, ``from agenteval import _x``);
    dunders (``__version__``) are public. ``if TYPE_CHECKING:`` imports count too: a type
    checker resolves them against the engine's internals all the same."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            paths = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            paths = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for dotted in paths:
            parts = dotted.split(".")
            if parts[0] == "agenteval" and any(
                p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in parts[1:]
            ):
                yield dotted, node.lineno


def test_plugins_import_only_public_names_of_the_engine() -> None:
    """A plugin distribution imports ``agenteval``'s public namespaces only (``agenteval``,
    ``agenteval.plugins``, ``agenteval.models``...): what it needs of the engine is a
    public name, so the engine may change its private modules without breaking a plugin."""
    offending = [
        f"{path.relative_to(ROOT)}:{line} imports {dotted}"
        for source in PLUGIN_SOURCES
        for path in sorted(source.rglob("*.py"))
        for dotted, line in _private_names(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert PLUGIN_SOURCES and not offending, "\n".join(offending)


def test_the_private_import_scan_sees_every_form() -> None:
    source = (
        "import agenteval._stats\nfrom agenteval._loading import x\nfrom agenteval.runs._locate import y\n"
        "from agenteval import _terminal, __version__\nfrom agenteval.plugins import Reporter\n"
        "def f():\n    from agenteval._plugins import KINDS\n"
    )
    found = sorted(_private_names(ast.parse(source)))
    assert found == [
        ("agenteval._loading.x", 2),
        ("agenteval._plugins.KINDS", 7),
        ("agenteval._stats", 1),
        ("agenteval._terminal", 4),
        ("agenteval.runs._locate.y", 3),
    ]
