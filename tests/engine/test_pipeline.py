"""The public run pipeline (``agenteval.plan_paths`` → ``open_run`` → ``EvalRun.execute``) for tools that
embed the engine and need the run's id and folder before it ends."""

from __future__ import annotations

import asyncio
from pathlib import Path

import agenteval
from agenteval import EvalRun, JudgeService, open_run, plan_paths, resolve_agent
from agenteval.runs import RecordedRun, RunState

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "travel"


def test_plan_open_and_execute_an_agent_run_recorded_in_a_folder(tmp_path):
    agent = resolve_agent(str(EXAMPLE))
    judge = JudgeService()
    plan = plan_paths(
        [str(EXAMPLE / "travel.evalset.json")],
        [],
        registry=agenteval.Registry.installed(),
        judge=judge,
        criteria_names=["tool_trajectory_avg_score"],
        config_path=None,
        agent=agent,
        agent_target=str(EXAMPLE),
    )
    run = open_run(plan, runs_dir=tmp_path, judge=judge)
    assert isinstance(run, EvalRun) and run.writer is not None
    folder = run.writer.folder  # known before anything ran
    assert folder.parent == tmp_path.resolve() and run.run_id == folder.name
    result = asyncio.run(run.execute())
    assert result.passed and result.run_id == run.run_id
    recorded = RecordedRun.open(folder)
    assert recorded.manifest.state is RunState.COMPLETE and len(recorded.keys()) == 3


def test_the_pipeline_is_reachable_as_an_attribute_and_imports_no_plugin():
    import subprocess
    import sys

    code = (
        "import sys, agenteval\n"
        "agenteval.plan_paths\n"
        "assert not any(m.startswith('agenteval_') for m in sys.modules), sorted(sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
