"""The engine's layer order, read from its source (docs/architecture.md, "Layers").

Every import of ``agenteval.*`` inside the engine is found with ``ast``, lazy imports in
functions included, ``if TYPE_CHECKING:`` blocks excluded (they never run). A "unit" is a
first-level module or package of ``agenteval`` (``_judging``, ``_run``, ``models``...).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine" / "src" / "agenteval"
#: The plugin packages of this repository, which the engine must never import.
PLUGIN_PACKAGES = {
    "agenteval_builtin",
    "agenteval_llm_judges",
    "agenteval_vertex_safety",
    "agenteval_adk",
    "agenteval_viewer",
    "agenteval_otel",
    "pytest_agenteval",
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
