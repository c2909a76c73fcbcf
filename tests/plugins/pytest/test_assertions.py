"""``assert_agent_passes``: the hand-written test's form of the same verdicts and report."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from agenteval import RunResult
from agenteval.errors import ConfigError
from pytest_agenteval import EvalCasesFailed, assert_agent_passes, assert_agent_passes_async

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "travel"


def test_returns_the_run_result_when_every_case_passes(project):
    result = assert_agent_passes(project.agent, f"{project.path / 'shop.evalset.json'}:weather")
    assert isinstance(result, RunResult)
    assert [(c.eval_id, c.status.value) for c in result.cases()] == [("weather", "PASSED")]


def test_raises_an_assertion_error_with_the_item_report(project, named):
    with pytest.raises(EvalCasesFailed) as caught:
        assert_agent_passes(project.agent, project.path / "shop.evalset.json", num_runs=2)
    assert isinstance(caught.value, AssertionError)
    message = str(caught.value)
    assert message.startswith(
        "3 of 4 eval case(s) did not pass: flight (FAILED), crash (ERRORED), empty (NOT_EVALUATED)\n"
    )
    assert caught.value.result.summary.cases  # the whole result travels with the error
    # Each case's section is the report a collected item shows for that case.
    items = named.run("-k", "flight", "--agenteval-num-runs", "2").stdout.str()
    section = message.split("shop.evalset.json::flight\n", 1)[1].split("\n\n", 1)[0]
    assert section.startswith("FAILED: 1 of 2 criteria fell short")
    assert section in items
    assert "invocation 1 of 2, user: Find a flight from Berlin to Tokyo." in section


def test_the_async_variant(project):
    async def main() -> RunResult:
        return await assert_agent_passes_async(project.agent, f"{project.path / 'shop.evalset.json'}:weather")

    assert asyncio.run(main()).passed
    with pytest.raises(EvalCasesFailed, match="flight"):
        asyncio.run(assert_agent_passes_async(project.agent, f"{project.path / 'shop.evalset.json'}:flight"))


def test_the_sync_variant_refuses_a_running_event_loop(project):
    async def main() -> None:
        assert_agent_passes(project.agent, project.path / "shop.evalset.json")

    with pytest.raises(RuntimeError, match="_async"):
        asyncio.run(main())


def test_criteria_and_options_are_passed_on(project):
    result = assert_agent_passes(
        project.agent,
        f"{project.path / 'shop.evalset.json'}:flight",
        criteria={"response_match_score": 0.5},
        agent_timeout=30,
    )
    assert [r.criterion for r in result.cases()[0].criteria] == ["response_match_score"]


def test_a_bad_agent_raises_agenteval_s_own_error(project):
    with pytest.raises(ConfigError, match="no such file"):
        assert_agent_passes(str(project.path / "nowhere.py") + ":respond", project.path / "shop.evalset.json")


def test_the_travel_example_passes_from_a_folder_target():
    result = assert_agent_passes(str(EXAMPLE), EXAMPLE)
    assert len(result.cases()) == 3


def test_an_eval_set_without_cases_is_no_pass(project):
    project.write("none.evalset.json", {"eval_set_id": "none", "eval_cases": []})
    with pytest.raises(EvalCasesFailed, match="^no eval case ran$"):
        assert_agent_passes(project.agent, project.path / "none.evalset.json")
