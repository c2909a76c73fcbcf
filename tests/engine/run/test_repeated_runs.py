"""Several runs of the agent on one case (``--num-runs``, or several ``--actual`` files):
every run is scored and kept; the verdict uses the mean, and broken runs are never averaged away."""

from __future__ import annotations

import math
from typing import Optional

import agenteval
import pytest
from agenteval import EvalRun, Evaluator, EvaluatorInfo, InvocationScore, Plan, RunResult, Score, Status
from agenteval._agents import AgentFailure
from agenteval._resolve import resolve_criteria
from agenteval._run import PlannedSet, as_config, run_sync
from agenteval._run._planners import criterion_entry
from agenteval._verdicts import combine_runs
from agenteval.models import EvalSet
from agenteval.plugins import Agent, AgentSession
from agenteval.testing import make_case, make_invocation, registry_for


def _value(text: str) -> Optional[float]:
    if text == "raise":
        raise RuntimeError("kaput")
    return None if text == "none" else float(text)


class TextScore(Evaluator):
    """Each invocation scores the number its final text spells; the case score is their mean
    (or, with ``case_only``, the case score alone, without per-invocation scores)."""

    info = EvaluatorInfo(description="The number in the reply.")

    class Params(agenteval.Params):
        case_only: bool = False

    def evaluate(self, ctx):
        values = [_value(a.final_text()) for a in ctx.actual]
        present = [v for v in values if v is not None]
        mean = math.fsum(present) / len(present) if present else None
        per = [] if self.params.case_only else [InvocationScore(score=v) for v in values]
        return Score(value=mean, per_invocation=per, reason_code=None if present else "nothing")


class Count(Evaluator):
    info = EvaluatorInfo(description="Turns.", informational=True, max_score=None)

    def evaluate(self, ctx):
        return Score(value=float(len(ctx.actual)))


REGISTRY = registry_for(text=TextScore, count=Count)


def conversation(*texts: str):
    return [make_invocation(f"q{i}", text, invocation_id=f"i{i}") for i, text in enumerate(texts)]


class ScriptedAgent(Agent):
    """Answers each run of a case from a script: a list of invocations (one per turn), or
    an ``AgentFailure`` (the agent raises in turn 1)."""

    def __init__(self, script: list) -> None:
        super().__init__("scripted")
        self.script = script
        self.sessions = 0

    async def session(self, case):
        item = self.script[self.sessions]
        self.sessions += 1
        return ScriptedSession(item)


class ScriptedSession(AgentSession):
    def __init__(self, item) -> None:
        self.item = item
        self.turns = 0

    async def turn(self, user_content):
        if isinstance(self.item, AgentFailure):
            raise RuntimeError("boom")
        invocation = self.item[self.turns]
        self.turns += 1
        return invocation.model_copy(update={"user_content": user_content})


def run(runs: list, criteria=None, threshold: float = 0.5, *, via_agent: bool = False) -> RunResult:
    """One case, one conversation per run. Recorded runs (as from several ``--actual``
    files) may end early with ``None`` (later runs lack the case); ``via_agent`` plays
    them through an agent, where an ``AgentFailure`` is an agent that crashed."""
    case = make_case(conversation(*["x"] * len(next(r for r in runs if isinstance(r, list)))), eval_id="c")
    config = as_config(criteria or {"text": {"threshold": threshold}})
    resolved = resolve_criteria([(c, "criteria") for c in config.criteria], REGISTRY, [])
    planned = PlannedSet.of(
        0,
        EvalSet(eval_set_id="s", eval_cases=[case]),
        (case,),
        resolved,
        [criterion_entry(r) for r in resolved],
    )
    if via_agent:
        plan = Plan(sets=(planned,), agent=ScriptedAgent(runs), agent_target="scripted", num_runs=len(runs))
        return run_sync(EvalRun(plan, agent_concurrency=1).execute())
    present = [r for r in runs if r is not None]
    assert runs[: len(present)] == present, "a missing run can only come after the present ones"
    plan = Plan(sets=(planned,), recorded={(0, "c"): present}, num_runs=len(runs))
    return run_sync(EvalRun(plan).execute())


def only(result: RunResult):
    [case] = result.cases()
    return case, case.criteria[0]


def test_the_verdict_is_the_mean_of_every_per_invocation_score_of_every_run():
    # ADK's rule: pooled per-invocation scores, not the mean of the run means.
    case, result = only(
        run([conversation("1", "1"), conversation("0", "none")], threshold=0.6, via_agent=True)
    )
    assert result.score == pytest.approx(2 / 3) and result.status is Status.PASSED
    assert result.details["run_scores"] == [1.0, 0.0]
    assert result.details["spread"] == {"min": 0.0, "max": 1.0, "stdev": 0.5}
    assert [r.status for r in result.runs] == [Status.PASSED, Status.FAILED]
    assert [len(r.per_invocation) for r in result.runs] == [2, 2]
    assert result.per_invocation == []
    assert [r.run for r in case.agent_runs] == [1, 2]
    assert [i.final_text() for i in case.agent_runs[1].invocations] == ["0", "none"]


def test_without_per_invocation_scores_the_run_scores_are_averaged():
    _, result = only(
        run(
            [conversation("1", "1"), conversation("0", "none")],
            {"text": {"threshold": 0.6, "case_only": True}},
        )
    )
    assert result.score == 0.5 and result.status is Status.FAILED
    assert "mean 0.5 over 2 runs (per run: 1, 0)" in result.reason


def test_a_run_whose_agent_crashed_makes_the_case_errored_not_a_lower_mean():
    crash = AgentFailure("turn 1: the agent raised RuntimeError: boom", "agent_error", "Traceback...")
    case, result = only(run([conversation("1"), crash, conversation("1")], via_agent=True))
    assert result.status is Status.ERRORED and case.status is Status.ERRORED
    assert result.reason.startswith("run(s) 2 of 3 errored: the agent failed: turn 1")
    assert result.reason_code == "agent_error"
    assert result.score == 1.0  # the runs that did produce scores are still shown
    assert case.agent_runs[1].error_code == "agent_error" and case.agent_runs[1].invocations == []


def test_an_evaluator_error_in_one_run_is_errored():
    _, result = only(run([conversation("1"), conversation("raise")]))
    assert result.status is Status.ERRORED
    assert "run(s) 2 of 2 errored" in result.reason and result.error.type == "RuntimeError"


def test_a_run_that_could_not_be_scored_makes_the_case_not_evaluated():
    _, result = only(run([conversation("1"), conversation("none")]))
    assert result.status is Status.NOT_EVALUATED and result.reason_code == "nothing"
    assert result.reason.startswith("run(s) 2 of 2 not evaluated")


def test_a_run_missing_the_case_is_not_evaluated():
    _, result = only(run([conversation("1"), None]))
    assert result.status is Status.NOT_EVALUATED and result.reason_code == "missing_run"


def test_informational_criteria_report_the_mean_and_never_fail():
    _, result = only(run([conversation("1"), conversation("1", "1")], {"count": {}}))
    assert result.status is Status.INFORMATIONAL and result.score == 1.5
    assert result.details["run_scores"] == [1.0, 2.0]


def test_a_single_run_is_reported_as_before():
    _, result = only(run([conversation("1")]))
    assert result.runs == [] and "run_scores" not in result.details


def test_combine_runs_sums_judge_activity():
    from agenteval import JudgeActivity

    _, result = only(run([conversation("1"), conversation("1")]))
    with_judges = [
        r.model_copy(update={"judge": JudgeActivity(calls=2, cache_hits=1, failures={"judge_timeout": 1})})
        for r in result.runs
    ]
    resolved = resolve_criteria([(c, "criteria") for c in as_config({"text": 0.5}).criteria], REGISTRY, [])
    combined = combine_runs(criterion_entry(resolved[0]), with_judges)
    assert combined.judge == JudgeActivity(calls=4, cache_hits=2, failures={"judge_timeout": 2})


def test_a_single_run_keeps_its_point_verdict_as_its_tri_state_verdict():
    _, result = only(run([conversation("1")]))
    assert result.verdict.verdict == "PASS" and result.verdict.basis == "single-run"
    assert result.verdict.interval is None


def test_repeated_runs_get_an_interval_verdict_that_can_be_inconclusive():
    runs = [conversation("1"), conversation("0"), conversation("1")]
    _, result = only(run(runs, threshold=0.5))
    verdict = result.verdict
    assert result.status is Status.PASSED  # ADK's point rule: mean 2/3 >= 0.5
    assert verdict.verdict == "INCONCLUSIVE" and verdict.basis == "runs"
    assert verdict.interval.low < 0.5 < verdict.interval.high and verdict.interval.n == 3
    assert "contains the threshold" in verdict.reason and verdict.hint


def test_unanimous_runs_far_from_the_threshold_decide():
    _, result = only(run([conversation("1")] * 6, threshold=0.2))
    assert result.verdict.verdict == "PASS" and result.verdict.interval.low > 0.2


def test_a_re_read_run_folder_gives_the_same_verdicts(tmp_path):
    from agenteval._run._session import open_run
    from agenteval.runs import RecordedRun

    case = make_case(conversation("x"), eval_id="c")
    config = as_config({"text": {"threshold": 0.5}})
    resolved = resolve_criteria([(c, "criteria") for c in config.criteria], REGISTRY, [])
    planned = PlannedSet.of(
        0,
        EvalSet(eval_set_id="s", eval_cases=[case]),
        (case,),
        resolved,
        [criterion_entry(r) for r in resolved],
    )
    runs = [conversation("1"), conversation("0"), conversation("1"), conversation("0.7")]
    plan = Plan(sets=(planned,), recorded={(0, "c"): runs}, num_runs=4)
    evaluation = open_run(plan, runs_dir=tmp_path, argv=["test"])
    live = run_sync(evaluation.execute())
    again = RecordedRun.open(evaluation.writer.folder).result()
    assert again.cases()[0].criteria[0].verdict == live.cases()[0].criteria[0].verdict


def test_the_table_shows_what_the_runs_leave_undecided():
    import io

    from agenteval._reporting import render_table
    from rich.console import Console

    result = run([conversation("1"), conversation("0"), conversation("1")], threshold=0.5)
    stream = io.StringIO()
    render_table(result, Console(file=stream, width=80, no_color=True))
    text = stream.getvalue()
    assert "? PASSED INCONCLUSIVE  s · c" in text
    assert "text 0.6667 (runs 0–1) PASSED INCONCLUSIVE: 95% interval" in " ".join(text.split())
    assert "inconclusive: 1 criterion result(s)" in text
