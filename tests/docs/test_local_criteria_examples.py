"""The local-function and decorator examples of docs/writing-a-criterion.md run as shown."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from agenteval.cli import main
from agenteval.testing import check_evaluator
from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "writing-a-criterion.md").read_text(encoding="utf-8")
SECTION = DOC[DOC.index("## A criterion in a few lines") : DOC.index("### ADK's `custom_metrics`")]
TRAVEL = REPO / "examples" / "travel"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", SECTION, flags=re.S)


@pytest.fixture
def project(tmp_path, monkeypatch):
    evals = tmp_path / "evals"
    evals.mkdir()
    for name in ("travel.evalset.json", "travel.actual.json"):
        shutil.copy(TRAVEL / name, evals / name)
    (evals / "metrics.py").write_text(_blocks("python")[0], encoding="utf-8")
    (evals / "test_config.json").write_text(_blocks("json")[0], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_shown_commands_run(project):
    for line in _blocks("bash")[0].splitlines():
        argv = line.split("#")[0].split()[1:]
        outcome = CliRunner().invoke(main, [*argv, "--no-record", "--format", "json"])
        assert outcome.exit_code in (0, 1), outcome.output
        names = {
            c["criterion"]
            for case in json.loads(outcome.stdout)["eval_sets"][0]["cases"]
            for c in case["criteria"]
        }
        assert names & {"metrics.py:brevity", "evals/metrics.py:brevity"}


def test_the_decorator_example_is_a_criterion_class():
    namespace: dict = {}
    exec(_blocks("python")[1], namespace)
    polite = namespace["polite_answers"]
    assert polite.info.default_threshold == 0.8
    check_evaluator(polite)
    check_evaluator(polite, params={"words": ["hello"]})
