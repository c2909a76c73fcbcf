"""The distribution as a whole: entry points, the plugin contract, descriptions, version."""

from __future__ import annotations

import ast
import inspect
import re
from importlib import metadata
from pathlib import Path

import agenteval_builtin
import pytest
from agenteval.testing import check_evaluator

CRITERIA = {
    "tool_trajectory_avg_score": ("agenteval_builtin.trajectory", "ToolTrajectoryAvgScore"),
    "tool_trajectory_match_v2": ("agenteval_builtin.trajectory_v2", "ToolTrajectoryMatchV2"),
    "tool_parameter_match": ("agenteval_builtin.tool_parameter_match", "ToolParameterMatch"),
    "trajectory_precision": ("agenteval_builtin.partial_trajectory", "TrajectoryPrecision"),
    "trajectory_recall": ("agenteval_builtin.partial_trajectory", "TrajectoryRecall"),
    "trajectory_single_tool_use": ("agenteval_builtin.partial_trajectory", "TrajectorySingleToolUse"),
    "response_match_score": ("agenteval_builtin.response_match", "ResponseMatchScore"),
    "tool_call_count_v1": ("agenteval_builtin.tool_call_count", "ToolCallCount"),
    "inference_call_count_v1": ("agenteval_builtin.inference_call_count", "InferenceCallCount"),
    "token_usage_v1": ("agenteval_builtin.token_usage", "TokenUsage"),
    "invocation_duration_v1": ("agenteval_builtin.invocation_duration", "InvocationDuration"),
}
PARAMS = {"trajectory_single_tool_use": {"tool_name": "get_weather"}}
PLUGIN_DIR = Path(__file__).resolve().parents[3] / "plugins" / "builtin"
DOCS_DIR = Path(__file__).resolve().parents[3] / "docs" / "criteria"


def entry_points() -> dict[str, metadata.EntryPoint]:
    return {
        ep.name: ep
        for ep in metadata.entry_points(group="agenteval.criteria")
        if ep.dist.name == "agenteval-builtin"
    }


def test_entry_points():
    found = entry_points()
    assert set(found) == set(CRITERIA)
    for name, (module, attr) in CRITERIA.items():
        assert found[name].value == f"{module}:{attr}"


@pytest.mark.parametrize("name", sorted(CRITERIA))
def test_keeps_the_plugin_contract(name):
    cls = entry_points()[name].load()
    scores = check_evaluator(cls, params=PARAMS.get(name))
    assert scores  # every standard context produced a score


@pytest.mark.parametrize("name", sorted(CRITERIA))
def test_description_is_a_plain_string_literal(name):
    # The CLI reads descriptions by parsing the module, without importing it.
    module, attr = CRITERIA[name]
    source = inspect.getsource(__import__(module, fromlist=[attr]))
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == attr)
    info = next(
        n.value
        for n in cls.body
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "info" for t in n.targets)
    )
    description = next(k.value for k in info.keywords if k.arg == "description")
    assert isinstance(description, ast.Constant) and isinstance(description.value, str)
    assert description.value == getattr(__import__(module, fromlist=[attr]), attr).info.description


@pytest.mark.parametrize("name", sorted(CRITERIA))
def test_every_criterion_has_a_docs_page(name):
    page = DOCS_DIR / f"{name}.md"
    assert page.is_file()
    text = page.read_text(encoding="utf-8")
    assert f'"{name}"' in text  # a JSON config example
    assert "Differences from ADK" in text or "ADK" in text


def test_version_and_changelog_agree():
    version = metadata.version("agenteval-builtin")
    assert version == agenteval_builtin.__version__
    changelog = (PLUGIN_DIR / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## {re.escape(version)} \(\d{{4}}-\d{{2}}-\d{{2}}\)$", changelog, re.MULTILINE)
