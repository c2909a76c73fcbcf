"""The commands ``docs/scale-out.md`` prints run as printed: the Kubernetes Indexed Job's
shard and merge containers (with ``JOB_COMPLETION_INDEX`` 0 to N-1 and the shared volume in a
temporary folder), the GitHub Actions matrix's agenteval steps (``matrix.shard`` 1 to N, the
artifacts brought together as ``download-artifact`` does), and the command that reads the
merged run. Each merge equals one process's run of the same plan."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from agenteval.runs import find_run

from tests.fixtures.one_turn import write_one_turn_eval_set

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "scale-out.md"

AGENT = "def respond(message, history):\n    return 'ok ' + message if '3' not in message else 'no'\n"


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """What the examples' working folder holds: ``evals/`` and ``agent.py``."""
    (tmp_path / "evals").mkdir()
    write_one_turn_eval_set(tmp_path / "evals" / "shop.evalset.json", 6, lambda i: f"ok q{i}")
    (tmp_path / "evals" / "test_config.json").write_text(
        json.dumps({"criteria": {"response_match_score": 0.8}})
    )
    (tmp_path / "agent.py").write_text(AGENT)
    return tmp_path


def _sh(script: str, cwd: Path, shell: tuple[str, ...] = ("bash", "-e", "-c"), **env: str):
    """``script`` in ``shell`` (GitHub Actions' ``run:`` is ``bash -e``), with this
    environment's ``agenteval`` first on the ``PATH``."""
    bin_dir = str(Path(sys.executable).parent)
    return subprocess.run(
        [*shell, script],
        cwd=cwd,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


def _one_process(project: Path, shard_command: str) -> dict:
    """The run of the whole plan in one process: the shard command without ``--shard``."""
    command = shard_command.split(";")[0].split("||")[0]
    command = re.sub(r"--runs-dir \S+", "--runs-dir whole", re.sub(r"--shard .*?/\d+", "", command))
    done = _sh(command + " || true", project)
    assert done.returncode == 0, done.stderr
    return _verdicts(find_run(project / "whole"))


def _verdicts(run) -> dict:
    return {case.eval_id: case.status.value for case in run.result().cases()}


def _agenteval_line(script: str) -> str:
    return next(line for line in script.splitlines() if "agenteval run" in line)


@pytest.mark.slow  # nine agenteval processes
def test_the_kubernetes_indexed_job_runs_as_printed(project, tmp_path):
    jobs = list(yaml.safe_load_all(_blocks("yaml")[0]))
    shard_job, merge_job = jobs
    assert shard_job["spec"]["completionMode"] == "Indexed"
    count = shard_job["spec"]["completions"]
    volume = tmp_path / "volume"
    (container,) = shard_job["spec"]["template"]["spec"]["containers"]
    script = container["command"][2].replace("/results", str(volume))
    shell = tuple(container["command"][:2])
    assert shell == ("sh", "-c")
    for index in range(count):
        done = _sh(script, project, shell, JOB_COMPLETION_INDEX=str(index))
        assert done.returncode == 0, done.stdout + done.stderr
    assert len(list((volume / "shards").iterdir())) == count
    (merge,) = merge_job["spec"]["template"]["spec"]["containers"]
    merged = _sh(merge["command"][2].replace("/results", str(volume)), project, shell)
    assert merged.returncode == 1, merged.stdout + merged.stderr  # case_3 fails: the merge gates
    assert f"merged {count} shard(s)" in merged.stdout
    run = find_run(volume / "runs", "nightly")
    assert _verdicts(run) == _one_process(project, _agenteval_line(script))
    assert run.manifest.num_runs == 3


@pytest.mark.slow  # six agenteval processes
def test_the_github_actions_matrix_runs_as_printed(project, tmp_path):
    workflow = yaml.safe_load(_blocks("yaml")[1])
    shards = workflow["jobs"]["shard"]["strategy"]["matrix"]["shard"]
    step = next(s for s in workflow["jobs"]["shard"]["steps"] if "agenteval run" in s.get("run", ""))
    upload = next(s for s in workflow["jobs"]["shard"]["steps"] if "upload-artifact" in s.get("uses", ""))
    download = next(s for s in workflow["jobs"]["merge"]["steps"] if "download-artifact" in s.get("uses", ""))
    assert download["with"]["merge-multiple"] is True
    merge = next(s for s in workflow["jobs"]["merge"]["steps"] if "agenteval merge" in s.get("run", ""))
    merge_folder = tmp_path / "merge-job"
    shutil.copytree(project, merge_folder)
    for shard in shards:
        runner = tmp_path / f"runner-{shard}"  # each job has its own checkout
        shutil.copytree(project, runner)
        done = _sh(step["run"].replace("${{ matrix.shard }}", str(shard)), runner)
        assert done.returncode == 0, done.stdout + done.stderr
        # upload-artifact of runs/, download-artifact with merge-multiple into shards/
        shutil.copytree(
            runner / upload["with"]["path"], merge_folder / download["with"]["path"], dirs_exist_ok=True
        )
    merged = _sh(merge["run"] + " || echo exit=$?", merge_folder)
    assert "exit=1" in merged.stdout and f"merged {len(shards)} shard(s)" in merged.stdout, merged.stderr
    assert _verdicts(find_run(merge_folder / "runs", "nightly")) == _one_process(
        project, _agenteval_line(step["run"])
    )
    (shown,) = _blocks("sh")
    read = _sh(shown.strip() + " || echo exit=$?", merge_folder)
    assert "case_3" in read.stdout and "exit=1" in read.stdout, read.stderr
