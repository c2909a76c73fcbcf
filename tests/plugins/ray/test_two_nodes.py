"""A real two-node Ray cluster on loopback (``ray start --head`` and ``ray start --address``,
each its own process group, both ended by the test): a worker node killed mid-run costs its
units a retry on the other node, never the run, and every unit is recorded once."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.fixtures.one_turn import write_one_turn_eval_set

pytest.importorskip("ray")
pytest.importorskip("agenteval_ray")

AGENT = """
import time

def respond(message, history):
    time.sleep(1.5)
    return "ok " + message
"""
CASES = 10


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env.update(RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0")
    return env


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _node(*args: str) -> subprocess.Popen:
    ray = Path(sys.executable).with_name("ray")
    command = [str(ray), "start", "--block", "--num-cpus", "1", "--disable-usage-stats", *args]
    return subprocess.Popen(
        command, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )


def _end(node: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    """End the node's whole process group (its raylet, object store and workers)."""
    try:
        os.killpg(node.pid, sig)
        node.wait(timeout=30)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    try:
        os.killpg(node.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    node.wait(timeout=30)


def _wait_for_nodes(address: str, count: int, timeout: float = 300) -> None:
    script = (
        "import ray, sys; ray.init(address=sys.argv[1], logging_level='ERROR', log_to_driver=False); "
        "print(sum(1 for n in ray.nodes() if n['Alive']))"
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = subprocess.run(
            [sys.executable, "-c", script, address], env=_env(), capture_output=True, text=True, timeout=300
        )
        if done.returncode == 0 and done.stdout.strip().splitlines()[-1:] == [str(count)]:
            return
        time.sleep(2)
    raise AssertionError(f"the Ray cluster at {address} did not have {count} nodes within {timeout:g} s")


@pytest.mark.slow  # two Ray nodes: a minute or more on a loaded 2-core machine
def test_a_worker_node_killed_mid_run_costs_a_retry_and_every_unit_is_recorded_once(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    write_one_turn_eval_set(project / "shop.evalset.json", CASES, lambda i: f"ok q{i}")
    (project / "agent.py").write_text(AGENT)
    port = _free_port()
    address = f"127.0.0.1:{port}"
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths have a length limit
    head = _node("--head", "--port", str(port), "--include-dashboard", "false", "--temp-dir", temp)
    worker = None
    try:
        _wait_for_nodes(address, 1)  # the head first: a node cannot join a head not yet up
        worker = _node("--address", address)
        _wait_for_nodes(address, 2)
        runs = tmp_path / "runs"
        run = subprocess.Popen(
            [sys.executable, "-m", "agenteval", "run", "shop.evalset.json", "--agent", "agent.py:respond"]
            + ["--criteria", "response_match_score", "--no-cache", "-q", "--executor", "ray"]
            + ["--runs-dir", str(runs)],
            cwd=project,
            env={**_env(), "RAY_ADDRESS": address},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and run.poll() is None:
            written = list(runs.glob("*/results.jsonl"))
            if written and len(written[0].read_text().splitlines()) >= 2:
                break
            time.sleep(0.2)
        if run.poll() is not None:
            out, err = run.communicate()
            raise AssertionError(
                f"the run ended (exit {run.returncode}) before the worker node could be killed:\n{out}{err}"
            )
        _end(worker, signal.SIGKILL)  # mid-run: the node's task in flight is lost
        out, err = run.communicate(timeout=600)
        assert run.returncode == 0, out + err
        [results] = runs.glob("*/results.jsonl")
        records = [json.loads(line) for line in results.read_text().splitlines()]
        keys = [(r["eval_set_index"], r["case_id"], r["run_index"]) for r in records]
        assert len(keys) == len(set(keys)) == CASES
        assert {r["status"] for r in records} == {"PASSED"}
    finally:
        if worker is not None:
            _end(worker, signal.SIGKILL)
        _end(head)
