"""Judge limits shared by every Ray worker (``agenteval_ray._limits``), on a real local Ray
with two worker processes and a loopback fake judge that counts the requests it answers at
once and when they come: the shared window holds across workers, a 429 storm seen by a worker
halves it once, and each judge model has a limit of its own, paced by ``--judge-rpm``.

Each unit asks the judge for several samples at once (3 or 4 of 4: a decided majority stops
early), so two workers with limits of their own would send 6 to 8 together; with
``--judge-concurrency 4`` shared, the judge never sees more than 4."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from agenteval.runs import RecordedRun, find_run

from tests.fixtures.one_turn import one_turn_eval_set, write_one_turn_eval_set

pytest.importorskip("ray")
pytest.importorskip("agenteval_ray")

VALID = json.dumps({"reasoning": "same meaning", "verdict": "valid"})


def _agenteval(project: Path, judge_url: str, *arguments: str) -> None:
    """``agenteval run ARGUMENTS --executor ray`` in ``project`` against the fake judge; it must
    complete."""
    env = {
        k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID")
    }
    env.update(
        RAY_AUTH_MODE="disabled",
        RAY_USAGE_STATS_ENABLED="0",
        OPENAI_API_KEY="sk-fake",
        OPENAI_BASE_URL=f"{judge_url}/v1",
        AGENTEVAL_JUDGE_BACKOFF_SECONDS="0.01",
    )
    done = subprocess.run(
        [sys.executable, "-m", "agenteval", "run", *arguments, "--no-cache", "-q", "--executor", "ray"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _run(project: Path, judge_url: str, runs: str) -> RecordedRun:
    write_one_turn_eval_set(project / "shop.evalset.json", 4, lambda i: f"answer {i}")
    criterion = {"threshold": 0.5, "judge_model_options": {"judge_model": "openai:judge", "num_samples": 4}}
    (project / "config.json").write_text(json.dumps({"criteria": {"final_response_match_v2": criterion}}))
    _agenteval(
        project,
        judge_url,
        *["shop.evalset.json", "--actual", "shop.evalset.json", "--config", "config.json"],
        *["--judge-concurrency", "4", "--runs-dir", runs],
    )
    return find_run(project / runs)


@pytest.mark.slow  # starts a local Ray twice: 12 s each on an idle 2-core machine, a minute under load
def test_two_workers_share_one_judge_window_and_a_429_storm_halves_it_once(tmp_path, fake_openai):
    fake_openai.responder = lambda request: VALID
    fake_openai.latency = 0.3  # calls overlap: the workers' units run at the same time
    shared = _run(tmp_path, fake_openai.base_url, "shared")
    assert shared.manifest.executor["workers"] == 2
    assert fake_openai.max_in_flight <= 4
    [limit] = shared.manifest.executor["limits"]
    assert limit["ceiling"] == 4 and limit["most_in_flight"] == 4 and limit["halvings"] == 0
    assert limit["granted"] == len(fake_openai.requests) >= 12

    servers = sys.modules[type(fake_openai).__module__]
    fake_openai.requests.clear()
    fake_openai.script(*[servers.Reply(status=429, retry_after=0.05, delay=0.3)] * 4)
    storm = _run(tmp_path, fake_openai.base_url, "storm")
    [limit] = storm.manifest.executor["limits"]
    assert limit["halvings"] == 1  # four 429s of one window: halved once, not four times
    assert limit["granted"] == len(fake_openai.requests) and fake_openai.max_in_flight <= 4
    retries = sum(
        criterion.judge.retries
        for record in storm.records()
        for criterion in record.criteria
        if criterion.judge is not None
    )
    assert retries == 4


AGENT = """
def respond(message, history):
    return "answer " + message[1:]
"""


@pytest.mark.slow  # starts a local Ray: 12 s on an idle 2-core machine, a minute under load
def test_each_judge_model_has_a_shared_limit_of_its_own_paced_by_judge_rpm(tmp_path, fake_openai):
    """Two judge models on one endpoint: one actor each (not one per endpoint), each holding
    ``--judge-rpm 600`` (10 a second) over both workers."""
    arrivals: dict[str, list[float]] = {"judge-a": [], "judge-b": []}

    def responder(request):
        arrivals[request.body["model"]].append(time.monotonic())
        return VALID

    fake_openai.responder = responder
    fake_openai.latency = 0.05
    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        eval_set = one_turn_eval_set(6, lambda i: f"answer {i}", eval_set_id=f"set_{name}")
        (folder / "shop.evalset.json").write_text(json.dumps(eval_set))
        options = {"judge_model": f"openai:judge-{name}", "num_samples": 3}
        criteria = {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": options}}
        (folder / "test_config.json").write_text(json.dumps({"criteria": criteria}))
    (tmp_path / "agent.py").write_text(AGENT)
    _agenteval(
        tmp_path,
        fake_openai.base_url,
        *["a/shop.evalset.json", "b/shop.evalset.json", "--agent", "agent.py:respond"],
        *["--judge-concurrency", "8", "--judge-rpm", "600", "--runs-dir", "runs"],
    )
    run = find_run(tmp_path / "runs")
    assert run.manifest.executor["workers"] == 2
    limits = {limit["model"]: limit for limit in run.manifest.executor["limits"]}
    assert sorted(limits) == ["judge-a", "judge-b"]
    for model, times in arrivals.items():
        assert limits[model]["requests_per_minute"] == 600 and limits[model]["granted"] == len(times) >= 8
        most = max(sum(1 for t in times if start <= t < start + 1.0) for start in times)
        # 10 a second, the bucket's one of burst, one for a first call sent after its SDK's import
        assert most <= 12, (model, [round(t - times[0], 3) for t in times])
