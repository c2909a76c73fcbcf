"""``agenteval.plugins.rerun_command``: the command that runs a recorded run (or some of its cases)
again, run here as a user would paste it."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from agenteval.plugins import rerun_command
from agenteval.runs import list_runs

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "travel"
ACTUAL = str(EXAMPLE / "travel.actual.json")


def _agenteval(args: list[str]) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "agenteval", *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode in (0, 1), done.stderr
    return done


def _recorded(runs: Path, *paths: str):
    _agenteval(["run", *paths, "--actual", ACTUAL, "--runs-dir", str(runs), "-q"])
    [run] = list_runs(runs)
    return run


def test_a_whole_run_reruns_its_own_selection_and_options(tmp_path):
    selected = f"{EXAMPLE / 'travel.evalset.json'}:weather_paris"
    run = _recorded(tmp_path / "runs", selected)
    words = shlex.split(rerun_command(run))
    assert words[:3] == ["agenteval", "run", selected]  # the selection, not the whole file
    assert words[3:] == ["--actual", ACTUAL, "--runs-dir", str(tmp_path / "runs"), "--quiet"]
    words[words.index("--runs-dir") + 1] = str(tmp_path / "again")
    _agenteval(words[1:])
    [again] = list_runs(tmp_path / "again")
    assert [e.case_ids for e in again.manifest.eval_sets] == [["weather_paris"]]


def test_named_cases_are_rerun_with_the_run_s_options(tmp_path):
    run = _recorded(tmp_path / "runs", str(EXAMPLE / "travel.evalset.json"))
    [entry] = run.manifest.eval_sets
    words = shlex.split(rerun_command(run, [(entry, "weather_paris"), (entry, "flight_then_currency")]))
    assert words[2] == f"{entry.path}:weather_paris,flight_then_currency"
    assert words[3:5] == ["--actual", ACTUAL]


def test_a_run_s_command_line_is_parsed_once_for_every_case_s_command(tmp_path, monkeypatch):
    """A report gives each case its rerun command: the run's command line is parsed once."""
    from agenteval.cli import _rerun
    from agenteval.cli._run import run as run_command

    run = _recorded(tmp_path / "runs", str(EXAMPLE / "travel.evalset.json"))
    [entry] = run.manifest.eval_sets
    parsers = []
    real = type(run_command).make_parser
    monkeypatch.setattr(
        type(run_command), "make_parser", lambda self, ctx: parsers.append(1) or real(self, ctx)
    )
    _rerun._parsed.cache_clear()
    commands = [rerun_command(run, [(entry, case_id)]) for case_id in entry.case_ids]
    assert len(parsers) == 1 and len(set(commands)) == len(entry.case_ids)
    assert all(shlex.split(c)[3:5] == ["--actual", ACTUAL] for c in commands)
