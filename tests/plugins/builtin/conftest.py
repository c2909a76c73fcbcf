"""Makes ``_builtin_helpers.py`` importable as ``agenteval_builtin_test_helpers``.

The suite runs with ``--import-mode=importlib``, so test modules cannot import a sibling
file by name; the helpers are loaded here, once, under a unique module name.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_NAME = "agenteval_builtin_test_helpers"

if _NAME not in sys.modules:
    _spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).with_name("_builtin_helpers.py"))
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules[_NAME] = _module
    _spec.loader.exec_module(_module)
