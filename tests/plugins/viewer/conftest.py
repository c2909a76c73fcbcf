"""The viewer's test fixtures: generated run folders (``_fixtures.py``, importable as
``agenteval_viewer_test_fixtures``), the server tests' helpers (``_server_helpers.py``,
importable as ``agenteval_viewer_server_test_helpers``), what a person sees of a page's controls
(``_visibility.py``, importable as ``agenteval_viewer_visibility``), two recorded runs of the travel
example (``runs_dir``, ``run_ids``), and ``browser_page``, a page of Debian's chromium driven
by Playwright that fails the test on any console error, page error or network request.

Browser tests are marked ``browser``. Without chromium or Playwright they are skipped, except in
CI (``CI`` set), where they fail: a missing browser must never pass silently.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def _register(name: str, filename: str) -> None:
    """``filename`` beside this file, importable as ``name`` (the suite runs with
    ``--import-mode=importlib``, so test modules cannot import their neighbours by path)."""
    if name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(filename))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


_register("agenteval_viewer_test_fixtures", "_fixtures.py")
_register("agenteval_viewer_server_test_helpers", "_server_helpers.py")
_register("agenteval_viewer_visibility", "_visibility.py")


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two finished runs of the travel example, scored by the engine: A (one case fails),
    then B (all pass)."""
    import agenteval_viewer_server_test_helpers as helpers

    folder = tmp_path_factory.mktemp("runs")
    helpers.travel_run(folder)
    helpers.travel_run(folder, all_pass=True)
    return folder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The tiny fixture run (``_fixtures.tiny_run``: every status and reason), once per module."""
    import agenteval_viewer_test_fixtures as fx

    return fx.tiny_run(tmp_path_factory.mktemp("runs"))


@pytest.fixture(scope="module")
def run_ids(runs_dir: Path) -> list[str]:
    """The ids of ``runs_dir``'s two runs, oldest first."""
    return sorted(p.name for p in runs_dir.iterdir())


CHROMIUM = os.environ.get("AGENTEVAL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(os.environ.get("AGENTEVAL_SCREENSHOTS") or Path(__file__).with_name("_screenshots"))
_ALLOWED = re.compile(r"^(file:|data:|about:|https?://(127\.0\.0\.1|localhost|\[::1\])(:\d+)?/)")


def _unavailable(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"browser tests need {why} in CI (.ci/run installs Debian's chromium)")
    pytest.skip(f"{why} is missing")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless chromium per test module."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright for Python")
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        _unavailable(CHROMIUM)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()


class PageWatch:
    """What a page did that a test must fail on: console errors, page errors, and every
    request to anything but ``file:``, ``data:`` or loopback (aborted)."""

    def __init__(self) -> None:
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        self.blocked: list[str] = []

    def check(self) -> None:
        assert self.blocked == [], f"network requests attempted: {self.blocked}"
        assert self.page_errors == [], f"page errors: {self.page_errors}"
        assert self.console_errors == [], f"console errors: {self.console_errors}"


@pytest.fixture
def browser_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh 1280×800 page; after the test, no console error, page error or non-local
    request may have happened, and a screenshot is saved under ``SCREENSHOTS``."""
    from playwright.sync_api import expect

    # What a page shows after a round trip to the server may take more than playwright's 5 s
    # on a loaded CI machine (two test workers on two cores): assertions wait up to 20 s.
    expect.set_options(timeout=20_000)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    watch = PageWatch()
    page.watch = watch

    def route(route: Any) -> None:
        url = route.request.url
        if _ALLOWED.match(url):
            route.continue_()
        else:
            watch.blocked.append(url)
            route.abort()

    context.route("**/*", route)
    page.on("console", lambda m: watch.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
    try:
        yield page
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        try:
            page.screenshot(path=str(SCREENSHOTS / f"{request.node.name[:120]}.png"))
        except Exception:  # a closed page: nothing to keep
            pass
        watch.check()
    finally:
        context.close()
