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
def reworded_recording(tmp_path) -> Path:
    """The example's recording with ``weather_paris``'s reply reworded: with the original
    it makes two runs that differ (two identical runs are one observation, whose point
    verdict stands) and leave ROUGE at 0.6 INCONCLUSIVE."""
    import json

    data = json.loads((EXAMPLE / "travel.actual.json").read_text(encoding="utf-8"))
    case = next(c for c in data["eval_cases"] if c["eval_id"] == "weather_paris")
    case["conversation"][-1]["final_response"]["parts"][0]["text"] += " Pack sunglasses and water."
    path = tmp_path / "reworded.actual.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def judge_server(gemini_env, monkeypatch, schema_answers):
    """The loopback fake Gemini answering every judge request with a schema-valid answer,
    retries backing off for 10 ms."""
    monkeypatch.setenv("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "0.01")
    gemini_env.responder = lambda request: schema_answers.answer_for(request.body)
    return gemini_env
