"""Makes ``_judge_helpers.py`` importable as ``agenteval_llm_judges_test_helpers``,
``tests/fixtures/schema_answers.py`` as ``agenteval_tests_fixtures_schema_answers`` and
``tests/fixtures/fake_llm_servers.py`` as ``agenteval_tests_fixtures_fake_llm_servers`` (the
name ``tests/conftest.py`` uses for it too).

The suite runs with ``--import-mode=importlib``, so test modules cannot import a sibling
file by name; the helpers are loaded here, once, under unique module names.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_MODULES = {
    "agenteval_llm_judges_test_helpers": _HERE / "_judge_helpers.py",
    "agenteval_tests_fixtures_schema_answers": _HERE.parents[1] / "fixtures" / "schema_answers.py",
    "agenteval_tests_fixtures_fake_llm_servers": _HERE.parents[1] / "fixtures" / "fake_llm_servers.py",
}

for _name, _path in _MODULES.items():
    if _name not in sys.modules:
        _spec = importlib.util.spec_from_file_location(_name, _path)
        assert _spec is not None and _spec.loader is not None
        _module = importlib.util.module_from_spec(_spec)
        sys.modules[_name] = _module
        _spec.loader.exec_module(_module)
