"""Makes ``tests/fixtures/fake_llm_servers.py`` importable as
``agenteval_tests_fixtures_fake_llm_servers`` for these test modules (the suite runs with
``--import-mode=importlib``; ``tests/conftest.py`` loads the same module lazily, under the
same name, for its ``fake_*`` and ``*_env`` fixtures)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_NAME = "agenteval_tests_fixtures_fake_llm_servers"

if _NAME not in sys.modules:
    _path = Path(__file__).resolve().parents[3] / "fixtures" / "fake_llm_servers.py"
    _spec = importlib.util.spec_from_file_location(_NAME, _path)
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules[_NAME] = _module
    _spec.loader.exec_module(_module)
