"""The front end's static ES modules: which ones a page's module imports, directly or not
(``module_graph``), read from their ``import { … } from "./m.js";`` lines (the one import
form they use; ``import(...)`` loads a module on demand and is not followed). The single-file
report inlines them in this order; the server names them in the page (``preloaded``) so that
the browser fetches them all at once, not one level of imports after another."""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["IMPORT", "MODULE_TAG", "module_graph", "preloaded"]

#: ``import { a, b } from "./m.js";`` (the one import form the static modules use)
IMPORT = re.compile(r'^import \{([^}]*)\} from "\./([\w.-]+\.js)";$', re.MULTILINE)
#: a page's entry module
MODULE_TAG = re.compile(r'<script type="module" src="([^"]+)"></script>')


def module_graph(read: Callable[[str], str], entry: str) -> list[str]:
    """The static modules ``entry`` imports, directly or not, dependencies first (itself
    last); ``read(name)`` is a module's source. ``RuntimeError`` for modules that import
    each other in a cycle."""
    ordered: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in ordered:
            return
        if name in path:
            cycle = " -> ".join((*path, name))
            raise RuntimeError(f"the viewer's modules import each other in a cycle: {cycle}")
        for _, dependency in IMPORT.findall(read(name)):
            visit(dependency, path + (name,))
        ordered.append(name)

    visit(entry, ())
    return ordered


def preloaded(page: str, read: Callable[[str], str]) -> str:
    """``page`` with a ``<link rel="modulepreload">`` for each module its entry module
    imports (``module_graph``), before the entry's tag; ``page`` as it is when it has no
    entry module or its modules cannot be read or form a cycle."""
    found = MODULE_TAG.search(page)
    if found is None:
        return page
    try:
        graph = module_graph(read, found.group(1))
    except (OSError, RuntimeError, UnicodeDecodeError):
        return page
    links = "".join(f'<link rel="modulepreload" href="{name}">\n' for name in graph)
    return page[: found.start()] + links + page[found.start() :]
