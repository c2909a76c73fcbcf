"""``agenteval.evaluate_agent``: run the agent under test on eval files, then score (ADK's
``AgentEvaluator.evaluate``), with the same verdicts as ``agenteval run --agent``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import agenteval
import pytest
from agenteval import Status, resolve_agent
from agenteval._registry import AGENTS_GROUP, ProviderRegistry
from agenteval.cli import main
from agenteval.errors import PluginLoadError
from agenteval.models import Content, EvalCase, Invocation
from agenteval.plugins import Agent, AgentSession
from agenteval.testing import make_invocation
from click.testing import CliRunner

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "travel"


class Parrot(Agent):
    """Answers every message with its own text; counts the sessions it opened."""

    def __init__(self, target: str = "parrot") -> None:
        super().__init__(target)
        self.sessions = 0
        self.closed = False

    async def session(self, case: EvalCase) -> AgentSession:
        self.sessions += 1
        return _ParrotSession()

    async def aclose(self) -> None:
        self.closed = True


class _ParrotSession(AgentSession):
    async def turn(self, user_content: Content) -> Invocation:
        return make_invocation(user_content.text(), user_content.text())


def test_an_agent_object_with_explicit_criteria_and_several_runs():
    parrot = Parrot()
    result = agenteval.evaluate_agent(
        parrot, EXAMPLE / "travel.evalset.json", {"response_match_score": 0.1}, num_runs=2
    )
    assert parrot.sessions == 6 and parrot.closed
    assert [c.eval_id for c in result.cases()] == ["weather_paris", "flight_then_currency", "hotel_tokyo_ja"]
    for case in result.cases():
        (criterion,) = case.criteria
        assert criterion.criterion == "response_match_score" and len(criterion.runs) == 2
        assert [r.run for r in case.agent_runs] == [1, 2]


def test_a_target_string_uses_the_config_beside_the_file_and_agrees_with_the_cli():
    result = agenteval.evaluate_agent(str(EXAMPLE), EXAMPLE)
    assert result.passed
    names = [r.criterion for r in result.cases()[0].criteria]
    assert names == list(json.loads((EXAMPLE / "test_config.json").read_text())["criteria"])
    cli = CliRunner().invoke(main, ["run", str(EXAMPLE), "--agent", str(EXAMPLE), "--format", "json"])
    document = json.loads(cli.stdout)
    assert [
        (c["eval_id"], c["status"], [(r["criterion"], r["score"]) for r in c["criteria"]])
        for c in document["eval_sets"][0]["cases"]
    ] == [(c.eval_id, c.status.value, [(r.criterion, r.score) for r in c.criteria]) for c in result.cases()]


def test_case_selection_and_bad_input_raise_before_the_agent_runs():
    parrot = Parrot()
    result = agenteval.evaluate_agent(
        parrot, f"{EXAMPLE / 'travel.evalset.json'}:weather_paris", ["tool_call_count_v1"]
    )
    assert [c.eval_id for c in result.cases()] == ["weather_paris"]
    assert result.cases()[0].criteria[0].status is Status.INFORMATIONAL
    with pytest.raises(agenteval.errors.DataError, match="no case with eval_id 'nope'"):
        agenteval.evaluate_agent(parrot, f"{EXAMPLE / 'travel.evalset.json'}:nope")
    with pytest.raises(agenteval.errors.ConfigError, match="no agent adapter recognises it"):
        agenteval.evaluate_agent("not an agent", EXAMPLE)
    assert parrot.sessions == 1


def test_the_async_variant_and_the_running_loop_guard():
    async def main_() -> agenteval.RunResult:
        with pytest.raises(RuntimeError, match="await agenteval.evaluate_agent_async"):
            agenteval.evaluate_agent(Parrot(), EXAMPLE)
        return await agenteval.evaluate_agent_async(Parrot(), EXAMPLE, ["response_match_score"])

    result = asyncio.run(main_())
    assert len(result.cases()) == 3


class _Registry(ProviderRegistry):
    """Adapters ``broken`` (fails to import) and ``parrot`` (claims 'parrot:*')."""

    def __init__(self) -> None:
        super().__init__(
            classes={"broken": Parrot, "parrot": _ClaimsParrot}, group=AGENTS_GROUP, kind="agent adapter"
        )

    def load(self, name: str) -> type:
        if name == "broken":
            raise PluginLoadError("agent adapter some-dist[broken] failed to load: ImportError: no sdk")
        return super().load(name)


class _ClaimsParrot(Parrot):
    @classmethod
    def claims(cls, target: str) -> bool:
        return target.startswith("parrot:")


def test_an_adapter_that_cannot_load_does_not_break_detection_of_the_others():
    assert isinstance(resolve_agent("parrot:x", adapters=_Registry()), _ClaimsParrot)
    with pytest.raises(agenteval.errors.ConfigError) as info:
        resolve_agent("something else", adapters=_Registry())
    message = str(info.value)
    assert "no agent adapter recognises it" in message
    assert (
        "could not be loaded: agent adapter some-dist[broken] failed to load: ImportError: no sdk" in message
    )
    with pytest.raises(PluginLoadError):  # named explicitly, its failure is the error
        resolve_agent("x", "broken", adapters=_Registry())


def test_auto_runs_with_a_budget_as_the_cli_has_them(tmp_path):
    parrot = Parrot()
    result = agenteval.evaluate_agent(
        parrot,
        EXAMPLE / "travel.evalset.json",
        {"response_match_score": 0.1},
        num_runs="auto",
        run_budget=9,
        runs_dir=tmp_path / "runs",
    )
    # A parrot always answers the same: every case is decided at its first look of 3 runs.
    assert parrot.sessions == 9
    assert all(len(c.agent_runs) == 3 for c in result.cases())
    (run,) = agenteval.runs.list_runs(tmp_path / "runs")
    assert run.manifest.num_runs_policy == "auto" and run.manifest.run_budget == 9


def test_a_run_budget_without_auto_runs_is_refused_before_the_agent_runs():
    parrot = Parrot()
    with pytest.raises(agenteval.errors.AgentEvalError, match="run-budget|run_budget"):
        agenteval.evaluate_agent(parrot, EXAMPLE / "travel.evalset.json", num_runs=2, run_budget=5)
    assert parrot.sessions == 0
