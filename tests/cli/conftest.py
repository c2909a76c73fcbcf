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


@pytest.fixture
def judge_server(gemini_env, monkeypatch, schema_answers):
    """The loopback fake Gemini answering every judge request with a schema-valid answer,
    retries backing off for 10 ms."""
    monkeypatch.setenv("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "0.01")
    gemini_env.responder = lambda request: schema_answers.answer_for(request.body)
    return gemini_env
