"""The public API, pinned: every public name of every public namespace, one path per object.

``public_surface.txt`` beside this file lists ``namespace.name`` for each name in a public
namespace's ``__all__``. A change to it is a change to the API users import, so it is made on
purpose: after adding, renaming or removing a public name, rewrite the snapshot with

    python tests/engine/test_public_surface.py

read its diff (``git diff tests/engine/public_surface.txt``), say what changed in
``engine/CHANGELOG.md``, and commit both. A new public namespace is added to ``NAMESPACES``
here and to docs/embedding.md's table of namespaces.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import agenteval

SNAPSHOT = Path(__file__).with_name("public_surface.txt")
ENGINE = Path(agenteval.__file__).parent
#: The public namespaces; every other module of the engine is private (its name, or a
#: parent's, starts with ``_``).
NAMESPACES = (
    "agenteval",
    "agenteval.calibration",
    "agenteval.cli",
    "agenteval.errors",
    "agenteval.models",
    "agenteval.plugins",
    "agenteval.runs",
    "agenteval.testing",
    "agenteval.text",
)


def _surface() -> list[str]:
    return [f"{ns}.{name}" for ns in NAMESPACES for name in sorted(importlib.import_module(ns).__all__)]


def _value(path: str) -> object:
    namespace, _, name = path.rpartition(".")
    return getattr(importlib.import_module(namespace), name)


def test_the_public_names_are_the_snapshot() -> None:
    recorded = SNAPSHOT.read_text(encoding="utf-8").splitlines()
    current = _surface()
    added, removed = sorted(set(current) - set(recorded)), sorted(set(recorded) - set(current))
    assert current == recorded, (
        f"the public API changed: added {added}, removed {removed}. If that is meant, run "
        "'python tests/engine/test_public_surface.py', review the snapshot's diff and note it "
        "in engine/CHANGELOG.md (see this test's docstring)"
    )


def test_every_public_name_resolves() -> None:
    for path in _surface():
        assert _value(path) is not None, path


def test_no_object_has_two_public_paths() -> None:
    paths: dict[int, list[str]] = {}
    for path in _surface():
        value = _value(path)
        if isinstance(value, (str, int, float, bool, type(None))):
            continue  # equal constants may share an interned object
        paths.setdefault(id(value), []).append(path)
    doubled = [found for found in paths.values() if len(found) > 1]
    assert not doubled, f"objects reachable by more than one public path: {doubled}"


def test_every_public_exception_is_in_the_errors_module() -> None:
    """Stop-before-work errors and failures during a run alike: one module to catch from."""
    exceptions = [
        path for path in _surface() if isinstance(v := _value(path), type) and issubclass(v, BaseException)
    ]
    elsewhere = [path for path in exceptions if not path.startswith("agenteval.errors.")]
    assert not elsewhere, f"exceptions outside agenteval.errors: {elsewhere}"
    errors = importlib.import_module("agenteval.errors")
    for name in errors.__all__:
        value = getattr(errors, name)
        assert not isinstance(value, type) or value.__module__ == "agenteval.errors", (name, value.__module__)


def test_no_module_outside_the_namespaces_is_public() -> None:
    public = set()
    for file in ENGINE.rglob("*.py"):
        parts = file.relative_to(ENGINE.parent).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        if parts[-1] != "__main__" and not any(part.startswith("_") for part in parts[1:]):
            public.add(".".join(parts))
    assert public == set(NAMESPACES), (
        f"modules without a leading underscore are public: {sorted(public - set(NAMESPACES))} "
        "are not in NAMESPACES; make them private or pin them here"
    )


def test_the_namespaces_are_reachable_from_the_top() -> None:
    for namespace in NAMESPACES[1:]:
        assert getattr(agenteval, namespace.rpartition(".")[2]) is importlib.import_module(namespace)


if __name__ == "__main__":  # rewrite the snapshot (see the docstring)
    SNAPSHOT.write_text("\n".join(_surface()) + "\n", encoding="utf-8")
    sys.stdout.write(f"wrote {SNAPSHOT} ({len(_surface())} names)\n")
