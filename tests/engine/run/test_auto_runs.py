"""``--num-runs auto``: every case starts with 3 runs; at each planned look (3, 6, 12, 24)
a decided case stops and an undecided one gets runs up to the next look, within the
``--run-budget``; the folder's readers see only the runs a case needed."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from agenteval import Evaluator, EvaluatorInfo, Plan, Score, Status
from agenteval._auto_runs import AUTO_LOOKS, auto_looks, case_decided, look_confidence
from agenteval._resolve import resolve_criteria
from agenteval._run import PlannedSet, as_config, run_sync
from agenteval._run._planners import criterion_entry
from agenteval._run._session import open_run
from agenteval.errors import ConfigError
from agenteval.models import EvalSet
from agenteval.plugins import Agent, AgentSession
from agenteval.runs import RecordedRun, RunState, auto_runs_needed
from agenteval.testing import make_case, make_invocation, registry_for
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


class Reply(Evaluator):
    """1.0 when the agent's reply is "1" (spaces aside), else 0.0."""

    info = EvaluatorInfo(description="The reply is 1.")

    def evaluate(self, ctx):
        return Score(value=1.0 if ctx.actual and ctx.actual[-1].final_text().strip() == "1" else 0.0)


REGISTRY = registry_for(reply=Reply)


class PatternAgent(Agent):
    """Answers the k-th run of case ``c<i>`` with ``patterns[i][k]`` ("1" or "0"), followed
    by k spaces so that no two runs give identical outputs (a stochastic agent); with
    ``deterministic`` every run of a case answers alike."""

    def __init__(self, patterns: list[list[bool]], deterministic: bool = False) -> None:
        super().__init__("pattern")
        self.patterns = patterns
        self.deterministic = deterministic
        self.sessions: dict[str, int] = {}

    async def session(self, case):
        k = self.sessions.get(case.eval_id, 0)
        self.sessions[case.eval_id] = k + 1
        ok = self.patterns[int(case.eval_id[1:])][k % len(self.patterns[0])]
        return _Session(ok, "" if self.deterministic else " " * k)


class _Session(AgentSession):
    def __init__(self, ok: bool, suffix: str = "") -> None:
        self.ok, self.suffix = ok, suffix

    async def turn(self, user_content):
        reply = ("1" if self.ok else "0") + self.suffix
        return make_invocation("q", reply).model_copy(update={"user_content": user_content})


def _plan(patterns, threshold=0.5, budget=None, agent=None) -> Plan:
    cases = [make_case([make_invocation("q", "1")], eval_id=f"c{i}") for i in range(len(patterns))]
    config = as_config({"reply": {"threshold": threshold}})
    resolved = resolve_criteria([(c, "criteria") for c in config.criteria], REGISTRY, [])
    planned = PlannedSet.of(
        0, EvalSet(eval_set_id="s", eval_cases=cases), cases, resolved, [criterion_entry(r) for r in resolved]
    )
    looks = auto_looks(len(cases), budget)
    return Plan(
        sets=(planned,),
        agent=agent or PatternAgent(patterns),
        agent_target="pattern",
        num_runs=looks[-1],
        looks=looks,
        run_budget=budget,
    )


def _execute(plan: Plan, runs_dir: Path, **options):
    run = open_run(plan, runs_dir=runs_dir, argv=["test"], agent_concurrency=4, **options)
    return run, run_sync(run.execute())


def _runs_per_case(folder: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, case_id, _ in RecordedRun.open(folder).keys():
        counts[case_id] = counts.get(case_id, 0) + 1
    return counts


ALWAYS, NEVER = [True] * 24, [False] * 24


def test_unanimous_cases_stop_at_the_look_that_settles_them(tmp_path):
    # 0/1 runs at threshold 0.5, each look at 98.75%: n passes in a row settle PASS once
    # 0.00625^(1/n) >= 0.5, i.e. at 12 runs; failures alike.
    run, result = _execute(_plan([ALWAYS, NEVER]), tmp_path)
    assert _runs_per_case(run.writer.folder) == {"c0": 12, "c1": 12}
    verdicts = [c.criteria[0].verdict for c in result.cases()]
    assert [v.verdict for v in verdicts] == ["PASS", "FAIL"]
    assert verdicts[0].interval.level == pytest.approx(look_confidence(0.95, 4))
    assert [c.status for c in result.cases()] == [Status.PASSED, Status.FAILED]


def test_a_deterministic_agent_is_decided_at_the_first_look_on_its_identical_runs(tmp_path):
    # identical outputs and scores: one observation repeated, the point verdict stands
    agent = PatternAgent([ALWAYS, NEVER], deterministic=True)
    run, result = _execute(_plan([ALWAYS, NEVER], agent=agent), tmp_path)
    assert _runs_per_case(run.writer.folder) == {"c0": 3, "c1": 3}
    verdicts = [c.criteria[0].verdict for c in result.cases()]
    assert [(v.verdict, v.basis) for v in verdicts] == [
        ("PASS", "identical-runs"),
        ("FAIL", "identical-runs"),
    ]
    assert "all 3 runs gave the same output" in verdicts[0].reason


def test_a_case_decided_at_the_first_look_gets_no_more_runs(tmp_path):
    # threshold 0.95 and a first run that fails: no interval over 3 runs reaches it.
    run, result = _execute(_plan([NEVER], threshold=1.0), tmp_path)
    assert _runs_per_case(run.writer.folder) == {"c0": 3}
    (case,) = result.cases()
    assert case.criteria[0].verdict.verdict == "FAIL" and case.criteria[0].verdict.basis == "zero-failure"
    assert len(case.criteria[0].runs) == 3  # no NOT_EVALUATED runs for the 21 never needed


def test_the_manifest_says_auto_and_readers_see_only_the_runs_needed(tmp_path):
    run, result = _execute(_plan([ALWAYS, NEVER, [True, False] * 12]), tmp_path)
    recorded = RecordedRun.open(run.writer.folder)
    manifest = recorded.manifest
    assert manifest.num_runs_policy == "auto" and manifest.looks == list(AUTO_LOOKS)
    assert manifest.num_runs == 24 and manifest.state is RunState.COMPLETE
    assert manifest.confidence == pytest.approx(0.9875) and manifest.set_confidence == 0.95
    reread = recorded.result()
    assert [c.model_dump() for c in reread.cases()] == [c.model_dump() for c in result.cases()]
    assert reread.summary.eval_sets == result.summary.eval_sets
    assert all(r.reason_code != "interrupted" for c in reread.cases() for r in c.criteria)
    assert reread.summary.eval_sets[0].criteria[0].mean.level == 0.95  # the set's level as asked


def test_the_run_budget_caps_the_agent_runs_and_keeps_every_first_look(tmp_path):
    agent = PatternAgent([ALWAYS] * 4)
    run, result = _execute(_plan([ALWAYS] * 4, budget=20, agent=agent), tmp_path)
    assert sum(agent.sessions.values()) <= 20
    counts = _runs_per_case(run.writer.folder)
    assert all(count >= 3 for count in counts.values())
    assert sorted(counts.values()) == [3, 3, 6, 6]  # 12 first-look runs, then two cases to 6 (18)
    assert all(c.status is Status.PASSED for c in result.cases())


def _interrupt_after(run, sessions: dict, count: int):
    async def go():
        task = asyncio.ensure_future(run.execute())
        while sum(sessions.values()) < count and not task.done():
            await asyncio.sleep(0.001)
        run.interrupt("SIGINT")
        return await task

    return run_sync(go())


class SlowPatternAgent(PatternAgent):
    async def session(self, case):
        await asyncio.sleep(0.002)
        return await super().session(case)


def test_an_interrupted_auto_run_resumes_its_looks_and_ends_with_the_same_verdicts(tmp_path):
    patterns = [ALWAYS, NEVER, ALWAYS, NEVER]  # answers that do not depend on the run order
    _, whole = _execute(_plan(patterns), tmp_path / "whole")
    agent = SlowPatternAgent(patterns)
    run = open_run(
        _plan(patterns, agent=agent), runs_dir=tmp_path / "cut", argv=["test"], agent_concurrency=1
    )
    cut = _interrupt_after(run, agent.sessions, 10)
    assert cut.interrupted
    reread = RecordedRun.open(run.writer.folder).result()
    missing = [r for c in reread.cases() for r in c.criteria if r.reason_code == "interrupted"]
    assert missing, "an interrupted look shows its missing runs as interrupted"
    resumed = open_run(_plan(patterns), runs_dir=tmp_path / "cut", resume="latest", argv=["test"])
    done = run_sync(resumed.execute())
    assert not done.interrupted
    assert [c.criteria[0].verdict.verdict for c in done.cases()] == [
        c.criteria[0].verdict.verdict for c in whole.cases()
    ]
    assert _runs_per_case(run.writer.folder) == _runs_per_case(next((tmp_path / "whole").iterdir()))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    patterns=st.lists(st.lists(st.booleans(), min_size=24, max_size=24), min_size=1, max_size=3),
    threshold=st.sampled_from([0.3, 0.5, 0.8, 1.0]),
    spare=st.one_of(st.none(), st.integers(0, 40)),
)
def test_auto_runs_stay_within_the_budget_and_stop_exactly_the_decided_cases(patterns, threshold, spare):
    budget = None if spare is None else 3 * len(patterns) + spare
    agent = PatternAgent(patterns)
    with tempfile.TemporaryDirectory() as folder:
        run, result = _execute(_plan(patterns, threshold, budget, agent), Path(folder))
        recorded = RecordedRun.open(run.writer.folder)
        assert sum(agent.sessions.values()) == len(recorded.keys())
        if budget is not None:
            assert len(recorded.keys()) <= budget
        looks = recorded.manifest.looks
        by_case = dict(zip((c.eval_id for c in result.cases()), result.cases(), strict=True))
        for entry, case_id, records in recorded.case_records():
            have = len(records)
            assert have in looks and all(r is not None for r in records)
            case = by_case[case_id]
            earlier = [look for look in looks if look < have]
            for look in earlier:  # it went on only while undecided
                assert (
                    auto_runs_needed(entry, case_id, records[:look], looks, recorded.manifest.confidence)
                    > look
                )
            if case_decided(case.criteria) is False:
                # undecided and stopped: at the last look, or the budget had no room
                assert have == looks[-1] or budget is not None
            assert all(r.reason_code != "interrupted" for r in case.criteria)


def test_resuming_with_another_budget_is_refused_and_says_so(tmp_path):
    agent = SlowPatternAgent([ALWAYS])
    run = open_run(_plan([ALWAYS], agent=agent), runs_dir=tmp_path, argv=["test"], agent_concurrency=1)
    assert _interrupt_after(run, agent.sessions, 1).interrupted
    with pytest.raises(ConfigError, match="--run-budget: None -> 30"):
        open_run(_plan([ALWAYS], budget=30), runs_dir=tmp_path, resume="latest", argv=["test"])


@pytest.mark.parametrize("rule", ["holm", "any-case", "mean"])
def test_the_eval_sets_verdict_rule_is_recorded_and_a_re_read_keeps_it(tmp_path, rule):
    run, result = _execute(_plan([ALWAYS, [True, False] * 12]), tmp_path, set_verdict=rule)
    recorded = RecordedRun.open(run.writer.folder)
    assert recorded.manifest.set_verdict == rule
    (stats,) = result.summary.eval_sets[0].criteria
    assert stats.verdict_rule == rule and stats.guarantee and stats.verdict_reason
    assert recorded.result().summary.eval_sets == result.summary.eval_sets
