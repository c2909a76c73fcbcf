"""The Markdown report's "Rerun them" command (the one that lands in PR comments) is run as
printed, in a shell: it reruns exactly the cases that did not pass, with the run's own
``--actual`` / ``--agent``."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "travel"
AGENTEVAL = [sys.executable, "-m", "agenteval"]

WRONG_AGENT = '''
def respond(message, history):
    """No tool call at all when asked for yen; the example agent's answer otherwise."""
    import importlib.util, pathlib
    here = pathlib.Path(__file__).with_name("agent.py")
    spec = importlib.util.spec_from_file_location("travel_agent", here)
    right = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(right)
    return {"text": "no"} if "yen" in message.lower() else right.respond(message, history)
'''


def _agenteval(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*AGENTEVAL, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def _rerun_block(report: Path) -> str:
    match = re.search(r"Rerun them:\n\n```sh\n(.+?)\n```", report.read_text(encoding="utf-8"), re.S)
    assert match, report.read_text(encoding="utf-8")
    return match.group(1)


def _runs(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if (p / "manifest.json").is_file()) if folder.is_dir() else []


def _run_printed(tmp_path: Path, command: str) -> tuple[subprocess.CompletedProcess, dict]:
    before = set(_runs(tmp_path / "runs"))
    assert command.startswith("agenteval run ")
    shell = f"{' '.join(AGENTEVAL)} {command.removeprefix('agenteval ')}"
    done = subprocess.run(["bash", "-c", shell], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    [new] = set(_runs(tmp_path / "runs")) - before
    return done, json.loads((new / "manifest.json").read_text(encoding="utf-8"))


@pytest.fixture
def travel(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "travel", ignore=shutil.ignore_patterns("__pycache__", ".agenteval"))
    return tmp_path


def test_the_printed_command_reruns_the_failing_case_from_its_actuals(travel):
    first = _agenteval(
        travel, "run", "travel/travel.evalset.json", "--actual", "travel/travel.actual.json",
        "--runs-dir", "runs", "--report", "markdown", "-q",
    )  # fmt: skip
    assert first.returncode == 1, first.stderr
    [run] = _runs(travel / "runs")
    command = _rerun_block(run / "reports" / "report.md")
    assert "--actual travel/travel.actual.json" in command and "--resume" not in command
    again, manifest = _run_printed(travel, command)
    assert again.returncode == 1, again.stderr  # the same case fails again, nothing else is run
    assert [entry["case_ids"] for entry in manifest["eval_sets"]] == [["flight_then_currency"]]
    assert [item["path"] for item in manifest["actual_files"]] == ["travel/travel.actual.json"]


def test_the_printed_command_reruns_the_failing_case_with_the_agent(travel):
    (travel / "travel" / "wrong.py").write_text(WRONG_AGENT, encoding="utf-8")
    first = _agenteval(
        travel, "run", "--agent", "travel/wrong.py:respond", "--runs-dir", "runs", "travel/",
        "--report", "markdown", "--criteria", "tool_trajectory_avg_score", "-q",
    )  # fmt: skip
    assert first.returncode == 1, first.stderr
    [run] = _runs(travel / "runs")
    command = _rerun_block(run / "reports" / "report.md")
    assert "--agent travel/wrong.py:respond" in command and "--criteria tool_trajectory_avg_score" in command
    again, manifest = _run_printed(travel, command)
    assert again.returncode == 1, again.stderr
    assert [entry["case_ids"] for entry in manifest["eval_sets"]] == [["flight_then_currency"]]
    assert manifest["agent"]["target"] == "travel/wrong.py:respond"
