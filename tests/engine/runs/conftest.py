"""The run makers of ``test_index.py`` and ``test_reader.py``, shared with their sibling test
modules: the suite runs with ``--import-mode=importlib``, so a test module cannot import another
by path. Each is loaded once, under ``runs_tests_index`` and ``runs_tests_reader``, before the
modules of this folder are collected (``from runs_tests_reader import _plan``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def _sibling(name: str, filename: str) -> ModuleType:
    """``filename`` of this folder, imported once as ``name``."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(filename))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


_sibling("runs_tests_index", "test_index.py")
_sibling("runs_tests_reader", "test_reader.py")
