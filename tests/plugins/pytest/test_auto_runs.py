"""``--agenteval-num-runs auto`` and ``--agenteval-run-budget``: the CLI's runs look by look
(``agenteval run --num-runs auto --run-budget N``) from pytest."""

from __future__ import annotations

import json

import pytest


def _manifest(project) -> dict:
    (path,) = (project.path / "runs").glob("*/manifest.json")
    return json.loads(path.read_text(encoding="utf-8"))


def test_auto_runs_give_a_case_runs_until_its_verdict_is_decided(named):
    result = named.run(
        "-k", "weather", "--agenteval-num-runs", "auto", "--agenteval-runs-dir", str(named.path / "runs")
    )
    result.assert_outcomes(passed=1, deselected=3)
    manifest = _manifest(named)
    assert manifest["num_runs_policy"] == "auto" and manifest["looks"] == [3, 6, 12, 24]
    asked = [call for call in named.calls() if "weather" in call.lower()]
    assert len(asked) in (3, 6, 12, 24)  # whole looks only


def test_the_run_budget_caps_the_agent_runs(named):
    result = named.run(
        "-k",
        "weather",
        "--agenteval-num-runs",
        "auto",
        "--agenteval-run-budget",
        "3",
        "--agenteval-runs-dir",
        str(named.path / "runs"),
    )
    result.assert_outcomes(passed=1, deselected=3)
    assert _manifest(named)["run_budget"] == 3
    assert len([call for call in named.calls() if "weather" in call.lower()]) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--agenteval-run-budget", "5"), "--agenteval-run-budget caps --agenteval-num-runs auto"),
        (("--agenteval-num-runs", "auto", "--agenteval-run-budget", "zero"), "a whole number of agent runs"),
        (("--agenteval-num-runs", "often"), "a whole number of runs, at least 1, or auto"),
    ],
)
def test_bad_run_options_are_usage_errors(named, args, message):
    result = named.run(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()
