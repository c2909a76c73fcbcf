"""Every installed criterion keeps the plugin contract (``agenteval.testing.check_evaluator``).

Parametrised over what ``agenteval.Registry()`` discovers, so a newly installed plugin is
checked without editing this file; criteria that need parameters get them from ``PARAMS``.
"""

from __future__ import annotations

import importlib.util

import pytest
from agenteval import Registry
from agenteval.testing import check_evaluator

#: Parameters for criteria that cannot be built without some.
PARAMS: dict[str, dict] = {
    "trajectory_single_tool_use": {"tool_name": "get_weather"},
}

BUILTIN = {
    "response_match_score",
    "tool_call_count_v1",
    "tool_trajectory_avg_score",
    "trajectory_precision",
    "trajectory_recall",
    "trajectory_single_tool_use",
}

INSTALLED = Registry().names()


def test_discovery_is_not_vacuous():
    if importlib.util.find_spec("agenteval_builtin") is None:
        pytest.skip("agenteval-builtin is not installed")
    assert BUILTIN <= set(INSTALLED)


@pytest.mark.parametrize("name", INSTALLED)
def test_installed_criterion_keeps_the_contract(name):
    loaded = Registry().load([name])[name]
    scores = check_evaluator(loaded.evaluator_class, params=PARAMS.get(name))
    assert scores, "check_evaluator ran no context"
