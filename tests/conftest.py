"""Shared fixtures for the whole test suite (keep this file small: fixtures only)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

TESTS_DIR = Path(__file__).resolve().parent
REPO_DIR = TESTS_DIR.parent
#: Material shared between the project's sessions, next to the repository (not in it).
SHARED_DIR = REPO_DIR.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``<repo>/../shared``; the test is skipped when it is absent (e.g. in CI)."""
    if not SHARED_DIR.is_dir():
        pytest.skip(f"{SHARED_DIR} is absent")
    return SHARED_DIR


@pytest.fixture(scope="session")
def real_evalsets_dir(shared_dir: Path) -> Path:
    """The real ADK eval files and configs, read in place (never copied into the repo)."""
    path = shared_dir / "real-evalsets"
    if not path.is_dir():
        pytest.skip(f"{path} is absent")
    return path


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """``tests/fixtures``."""
    return TESTS_DIR / "fixtures"


@pytest.fixture(scope="session")
def evalset_fixtures(fixtures_dir: Path) -> Path:
    """``tests/fixtures/evalsets``: small hand-written eval files."""
    return fixtures_dir / "evalsets"


@pytest.fixture(scope="session")
def dists() -> ModuleType:
    """``tests/fixtures/dists.py``: fake installed distributions for entry-point tests."""
    name = "agenteval_tests_fixtures_dists"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, TESTS_DIR / "fixtures" / "dists.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture
def no_max_file_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make sure ``AGENTEVAL_MAX_FILE_MB`` from the caller's environment does not leak in."""
    monkeypatch.delenv("AGENTEVAL_MAX_FILE_MB", raising=False)
