"""Fixtures for CLI tests: the bundled example and a click runner."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "travel"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def example() -> Path:
    return EXAMPLE
