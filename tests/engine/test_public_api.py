"""The public API beyond its names (those are pinned by ``test_public_surface.py``): the error
hierarchy, the testing helpers' docs, and the version."""

from __future__ import annotations

import re
from pathlib import Path

import agenteval
import agenteval.errors
import agenteval.testing

ENGINE_PYPROJECT = Path(__file__).resolve().parents[2] / "engine" / "pyproject.toml"


def test_errors_form_one_hierarchy():
    for name in ["ConfigError", "PluginLoadError", "DataError", "RecordingError"]:
        error = getattr(agenteval.errors, name)
        assert issubclass(error, agenteval.errors.AgentEvalError)
        assert error("x").exit_code == 2
    assert str(agenteval.errors.DataError("bad", source="f.json")) == "f.json: bad"
    assert str(agenteval.errors.DataError("bad")) == "bad"


def test_failures_during_a_run_are_not_stop_before_work_errors():
    for name in [
        "AgentCrashed",
        "AgentBaseException",
        "RemoteAgentError",
        "UserSimulatorError",
        "JudgeCallError",
        "JudgeUnavailable",
    ]:
        assert not issubclass(getattr(agenteval.errors, name), agenteval.errors.AgentEvalError), name
    assert agenteval.errors.JudgeUnavailable("x").code in agenteval.errors.REASON_CODES


def test_version_matches_the_engine_distribution():
    text = ENGINE_PYPROJECT.read_text(encoding="utf-8")
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]
    match = re.search(r'^version\s*=\s*"([^"]+)"', project, re.MULTILINE)
    assert match, "engine/pyproject.toml has no static [project] version"
    assert agenteval.__version__ == match.group(1)


def test_testing_helpers_are_documented():
    for name in agenteval.testing.__all__:
        assert getattr(agenteval.testing, name).__doc__
    assert agenteval.testing.__doc__ and "check_evaluator" in agenteval.testing.__doc__
