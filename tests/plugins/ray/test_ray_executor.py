"""``agenteval run --executor ray`` on a real local Ray (no mock): every record and verdict
equal to a local run of the same plan, the agent imported on Ray's workers, the run folder
written by the driver and the manifest naming the executor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agenteval.runs import RecordedRun, find_run

from tests.fixtures.one_turn import write_one_turn_eval_set

pytest.importorskip("ray")
pytest.importorskip("agenteval_ray")

AGENT = """
import os

def respond(message, history):
    return ("ok " + message + " from " + str(os.getpid() > 0)) if "3" not in message else "no"
"""


def _project(folder: Path) -> Path:
    write_one_turn_eval_set(folder / "shop.evalset.json", 6, lambda i: f"ok q{i} from True")
    (folder / "agent.py").write_text(AGENT)
    return folder


def _run(project: Path, executor: str) -> RecordedRun:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env.update(RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0")
    done = subprocess.run(
        [sys.executable, "-m", "agenteval", "run", "shop.evalset.json", "--agent", "agent.py:respond"]
        + ["--criteria", "response_match_score", "--num-runs", "2", "--no-cache", "-q"]
        + ["--executor", executor, "--runs-dir", executor],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stdout + done.stderr  # case_3 fails on purpose
    run = find_run(project / executor)
    assert run.manifest.state.value == "complete", done.stdout + done.stderr  # not FAILED (exit 1 too)
    return run


def _timeless(data):
    """``data`` without what differs between two runs of one plan: times and run ids."""
    if isinstance(data, dict):
        volatile = {"run_id", "duration_s", "duration_seconds", "duration", "creation_timestamp"}
        return {k: _timeless(v) for k, v in data.items() if k not in volatile}
    if isinstance(data, list):
        return [_timeless(v) for v in data]
    return data


def _records(run: RecordedRun) -> list:
    return sorted((_timeless(r.model_dump(mode="json")) for r in run.records()), key=lambda r: json.dumps(r))


@pytest.mark.slow  # starts a local Ray: 12 s on an idle 2-core machine, a minute under load
def test_a_ray_run_records_what_a_local_run_records(tmp_path):
    project = _project(tmp_path)
    local = _run(project, "local")
    ray = _run(project, "ray")
    assert _records(ray) == _records(local)
    assert len(ray.keys()) == 12
    lines = (ray.folder / "results.jsonl").read_text().splitlines()
    assert len(lines) == 12 and {json.loads(line)["run_id"] for line in lines} == {ray.run_id}
    assert _timeless(ray.result().model_dump(mode="json")) == _timeless(
        local.result().model_dump(mode="json")
    )
    assert ray.manifest.executor["name"] == "ray" and ray.manifest.executor["distribution"] == "agenteval-ray"
    assert ray.manifest.executor["workers"] >= 1
    assert ray.manifest.inputs_fingerprint == local.manifest.inputs_fingerprint


def test_the_old_rate_variable_stops_the_run_naming_the_setting(monkeypatch):
    """``AGENTEVAL_RAY_JUDGE_RPM`` (agenteval-ray 0.1) is replaced by ``--judge-rpm``: a run that
    still sets it stops before Ray starts, rather than running without the limit it asked for."""
    import asyncio

    from agenteval import RunRequest
    from agenteval.errors import ConfigError
    from agenteval.plugins import ExecutorContext
    from agenteval_ray import RayExecutor

    monkeypatch.setenv("AGENTEVAL_RAY_JUDGE_RPM", "600")
    context = ExecutorContext(
        plan=None, request=RunRequest(paths=("shop.evalset.json",), agent="agent.py:respond")
    )
    with pytest.raises(ConfigError, match=r"--judge-rpm N .*statistics block"):
        asyncio.run(RayExecutor().start(context))
