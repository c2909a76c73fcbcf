"""``_modules``: the front end's module graph, and the page that names its modules for the
browser to fetch at once."""

from __future__ import annotations

import pytest
from agenteval_viewer._modules import module_graph, preloaded

SOURCES = {
    "app.js": 'import { a } from "./a.js";\nimport { b } from "./b.js";\nexport const app = 1;\n',
    "a.js": 'import { b } from "./b.js";\nexport const a = 1;\nimport("./late.js");\n',
    "b.js": "export const b = 2;\n",
}
PAGE = (
    '<head></head><body><script src="vendor/x.js"></script>\n'
    '<script type="module" src="app.js"></script></body>'
)


def test_the_graph_lists_each_static_import_once_dependencies_first_not_what_loads_on_demand():
    assert module_graph(SOURCES.__getitem__, "app.js") == ["b.js", "a.js", "app.js"]


def test_the_page_names_every_module_of_its_entry_before_the_entry_s_tag():
    page = preloaded(PAGE, SOURCES.__getitem__)
    links = [f'<link rel="modulepreload" href="{n}">\n' for n in ("b.js", "a.js", "app.js")]
    assert page == PAGE.replace('<script type="module"', "".join(links) + '<script type="module"')


@pytest.mark.parametrize(
    "sources",
    [
        {"app.js": 'import { a } from "./a.js";\n', "a.js": 'import { app } from "./app.js";\n'},  # a cycle
        {"app.js": 'import { gone } from "./gone.js";\n'},  # a module that cannot be read
    ],
)
def test_a_page_whose_modules_cannot_be_followed_is_served_as_it_is(sources):
    def read(name: str) -> str:
        if name not in sources:
            raise FileNotFoundError(name)
        return sources[name]

    assert preloaded(PAGE, read) == PAGE
    assert preloaded("<p>no module</p>", read) == "<p>no module</p>"
