"""Fixtures for the ``safety_v1`` plugin: a loopback fake of the Vertex AI evaluation
service (``tests/fixtures/fake_vertex_eval.py``, importable here as
``agenteval_tests_fixtures_fake_vertex_eval``) and the environment that points the real
SDK at it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
_NAME = "agenteval_tests_fixtures_fake_vertex_eval"
_MODULES = {
    _NAME: _FIXTURES / "fake_vertex_eval.py",
    # For the end-to-end example's Gemini judge (the same name llm_judges' conftest uses).
    "agenteval_tests_fixtures_schema_answers": _FIXTURES / "schema_answers.py",
}

for _name, _path in _MODULES.items():
    if _name not in sys.modules:
        _spec = importlib.util.spec_from_file_location(_name, _path)
        assert _spec is not None and _spec.loader is not None
        _module = importlib.util.module_from_spec(_spec)
        sys.modules[_name] = _module
        _spec.loader.exec_module(_module)

#: Variables the plugin reads; the caller's values must not leak in.
VERTEX_ENV = (
    "AGENTEVAL_VERTEX_EVAL_ENDPOINT",
    "GCE_METADATA_HOST",
    "K_SERVICE",
    "CLOUD_RUN_JOB",
    "FUNCTION_TARGET",
    "GAE_ENV",
)


@pytest.fixture
def fake_vertex_eval():
    """A running ``FakeVertexEvalServer``."""
    with sys.modules[_NAME].FakeVertexEvalServer() as server:
        yield server


@pytest.fixture
def vertex_safety_env(clean_judge_env: None, monkeypatch: pytest.MonkeyPatch, fake_vertex_eval):
    """``safety_v1`` reaches ``fake_vertex_eval`` (project ``fake-project``, location
    ``us-central1``, anonymous credentials through ``AGENTEVAL_VERTEX_EVAL_ENDPOINT``), with
    short judge backoffs."""
    for name in VERTEX_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "fake-project")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
    monkeypatch.setenv("AGENTEVAL_VERTEX_EVAL_ENDPOINT", fake_vertex_eval.base_url)
    monkeypatch.setenv("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "0.01")
    return fake_vertex_eval
