"""The public API: what ``agenteval`` and ``agenteval.testing`` export, and the version."""

from __future__ import annotations

import re
from pathlib import Path

import agenteval
import agenteval.testing

ENGINE_PYPROJECT = Path(__file__).resolve().parents[2] / "engine" / "pyproject.toml"

PUBLIC = [
    "AgentEvalError",
    "AgentRunRecord",
    "CaseResult",
    "ConfigError",
    "Criterion",
    "CriterionLoadError",
    "CriterionResult",
    "DataError",
    "ErrorInfo",
    "EvalConfig",
    "EvalSetResult",
    "EvaluationContext",
    "Evaluator",
    "EvaluatorInfo",
    "InvocationResult",
    "InvocationScore",
    "Params",
    "PluginInfo",
    "Registry",
    "RunResult",
    "RunSummary",
    "Score",
    "Status",
    "__version__",
    "evaluate",
    "evaluate_agent",
    "evaluate_agent_async",
    "evaluate_async",
    "explain_scores",
    "function_criterion",
    "import_local_function",
    "load_config",
    "load_eval_set",
]

TESTING = [
    "check_evaluator",
    "make_case",
    "make_context",
    "make_invocation",
    "registry_for",
    "standard_contexts",
]


def test_all_is_pinned():
    """Adding a name is a deliberate API change: update this list with it."""
    assert sorted(agenteval.__all__) == PUBLIC


def test_every_public_name_resolves():
    for name in agenteval.__all__:
        assert getattr(agenteval, name) is not None, name
    assert set(PUBLIC) <= set(dir(agenteval))


def test_errors_form_one_hierarchy():
    for name in ["ConfigError", "CriterionLoadError", "DataError"]:
        error = getattr(agenteval, name)
        assert issubclass(error, agenteval.AgentEvalError)
        assert error("x").exit_code == 2
    assert str(agenteval.DataError("bad", source="f.json")) == "f.json: bad"
    assert str(agenteval.DataError("bad")) == "bad"


def test_version_matches_the_engine_distribution():
    text = ENGINE_PYPROJECT.read_text(encoding="utf-8")
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]
    match = re.search(r'^version\s*=\s*"([^"]+)"', project, re.MULTILINE)
    assert match, "engine/pyproject.toml has no static [project] version"
    assert agenteval.__version__ == match.group(1)


def test_testing_module_is_public():
    assert sorted(agenteval.testing.__all__) == TESTING
    for name in TESTING:
        assert getattr(agenteval.testing, name).__doc__
    assert agenteval.testing.__doc__ and "check_evaluator" in agenteval.testing.__doc__
