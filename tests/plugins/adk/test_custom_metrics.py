"""ADK ``custom_metrics`` run as criteria with ADK's calling convention (agenteval-adk's
custom metric runner), on a real-looking project: ``tests/fixtures/custom_metrics_project``
(``metrics.py`` at its root, ``evals/`` with the eval set and ``test_config.json`` naming
``metrics.<function>``, a Python agent, a conftest for the pytest plugin)."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from agenteval._loading import read_eval_file
from agenteval.cli import main
from agenteval.runs import list_runs
from click.testing import CliRunner

pytest.importorskip("google.adk.evaluation.custom_metric_evaluator")

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "custom_metrics_project"


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    """A copy of the fixture project; ``metrics`` is imported afresh from it."""
    copy = tmp_path / "project"
    shutil.copytree(FIXTURE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "metrics", raising=False)
    yield copy
    sys.modules.pop("metrics", None)


def _run(project: Path, *args: str):
    evals = project / "evals"
    argv = ["run", str(evals), "--agent", f"{project / 'agent.py'}:respond", *args]
    if "--runs-dir" not in args:
        argv.append("--no-record")
    return CliRunner().invoke(main, argv)


def _criteria(outcome) -> dict:
    document = json.loads(outcome.stdout)
    return {
        (case["eval_id"], c["criterion"]): c
        for eval_set in document["eval_sets"]
        for case in eval_set["cases"]
        for c in case["criteria"]
    }


def test_custom_metrics_run_with_their_thresholds_params_and_interval(project):
    outcome = _run(project, "--format", "json")
    assert outcome.exit_code == 1, outcome.output
    results = _criteria(outcome)
    concise = results[("tokyo", "response_is_concise")]  # max_chars 60 from the criteria entry
    assert (concise["score"], concise["status"], concise["threshold"]) == (0.0, "FAILED", 1.0)
    assert concise["details"] == {"adk_status": "FAILED"}
    assert concise["per_invocation"][0]["details"] == {"adk_status": "FAILED"}
    assert concise["plugin"]["distribution"] == "agenteval-adk"
    assert concise["plugin"]["entry_point"] == "custom_metrics:metrics.response_is_concise"
    city = results[("paris_then_rome", "mentions_the_city")]  # async, interval [-1, 1]
    assert city["score"] == 0.0 and city["status"] == "PASSED"  # 0 >= 0: inclusive, as ADK
    assert [i["score"] for i in city["per_invocation"]] == [1.0, -1.0]
    assert [i["status"] for i in city["per_invocation"]] == ["PASSED", "FAILED"]
    assert results[("paris", "response_is_concise")]["status"] == "PASSED"


def test_the_scores_equal_adks_own_custom_metric_evaluator(project, monkeypatch):
    from google.adk.evaluation.custom_metric_evaluator import _CustomMetricEvaluator
    from google.adk.evaluation.eval_case import Invocation
    from google.adk.evaluation.eval_metrics import BaseCriterion, EvalMetric

    outcome = _run(project, "--format", "json", "--save-actual", str(project / "actual.json"))
    ours = _criteria(outcome)
    monkeypatch.syspath_prepend(str(project))  # ADK imports the function from sys.path
    actual = {c.eval_id: c.conversation for c in read_eval_file(project / "actual.json").eval_set.eval_cases}
    cases = read_eval_file(project / "evals" / "weather.evalset.json").eval_set.eval_cases
    config = json.loads((project / "evals" / "test_config.json").read_text(encoding="utf-8"))
    for name, entry in config["criteria"].items():
        raw = entry if isinstance(entry, dict) else {"threshold": entry}
        criterion = BaseCriterion.model_validate(raw)
        metric = EvalMetric(metric_name=name, threshold=criterion.threshold, criterion=criterion)
        adk = _CustomMetricEvaluator(metric, config["custom_metrics"][name]["code_config"]["name"])
        for case in cases:
            turns = [Invocation.model_validate_json(i.model_dump_json()) for i in actual[case.eval_id]]
            expected = [Invocation.model_validate_json(i.model_dump_json()) for i in case.conversation]
            theirs = asyncio.run(adk.evaluate_invocations(turns, expected, None))
            mine = ours[(case.eval_id, name)]
            assert mine["score"] == theirs.overall_score, (case.eval_id, name)
            assert mine["status"] == theirs.overall_eval_status.name, (case.eval_id, name)
            assert [i["score"] for i in mine["per_invocation"]] == [
                r.score for r in theirs.per_invocation_results
            ]
            assert [i["status"] for i in mine["per_invocation"]] == [
                r.eval_status.name for r in theirs.per_invocation_results
            ]


def test_an_exception_is_errored_with_its_message(project):
    outcome = _run(project, "--format", "json", "--config", str(project / "evals" / "errors_config.json"))
    assert outcome.exit_code == 1
    result = _criteria(outcome)[("paris", "needs_a_reference")]
    assert result["status"] == "ERRORED" and result["reason_code"] == "evaluator_error"
    assert "ValueError: no reference text for this metric" in result["reason"]
    assert result["error"]["message"] == "no reference text for this metric"


def test_the_manifest_records_the_function_file_and_sha256(project):
    runs = project / "runs"
    assert _run(project, "--runs-dir", str(runs)).exit_code == 1
    [run] = list_runs(runs)
    entries = {e.name: e for e in run.manifest.eval_sets[0].criteria}
    described = entries["response_is_concise"].describe
    assert described["function"] == "metrics.response_is_concise"
    assert described["file"] == str((project / "metrics.py").resolve())
    assert len(described["sha256"]) == 64


@pytest.mark.parametrize(
    ("name", "edit", "expected"),
    [
        ("nowhere.response_is_concise", None, "no module 'nowhere': not in"),
        (
            "metrics.response_is_concis",
            None,
            "has no 'response_is_concis'; did you mean 'response_is_concise'?",
        ),
        ("metrics.response_is_concise", "x = 1 / 0\n", "metrics.py:2: ZeroDivisionError: division by zero"),
    ],
)
def test_a_function_that_cannot_be_imported_stops_the_run_before_the_agent(project, name, edit, expected):
    config_path = project / "evals" / "test_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["custom_metrics"]["response_is_concise"]["code_config"]["name"] = name
    config_path.write_text(json.dumps(config), encoding="utf-8")
    if edit:
        metrics = project / "metrics.py"
        metrics.write_text("import os\n" + edit, encoding="utf-8")
    agent = project / "agent.py"
    agent.write_text(
        "def respond(message, history):\n    raise SystemExit('the agent ran')\n", encoding="utf-8"
    )
    outcome = _run(project)
    assert outcome.exit_code == 2, outcome.output
    message = outcome.stderr
    assert message.startswith(f"error: {config_path}: custom_metrics.response_is_concise.code_config.name:")
    assert f"cannot import {name!r}" in message and expected in message
    assert "the agent ran" not in outcome.output and "Traceback" not in message


def test_the_pytest_plugin_runs_the_custom_metrics(project):
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "evals"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "2 passed" in result.stdout and "1 failed" in result.stdout
    assert "response_is_concise" in result.stdout  # the failing case names the criterion


def test_the_runner_class_keeps_the_plugin_contract(project, monkeypatch):
    from agenteval.testing import check_evaluator
    from agenteval_adk._custom_metrics import evaluator_class

    monkeypatch.syspath_prepend(str(project))
    import metrics

    klass = evaluator_class(
        metrics.response_is_concise,
        name="response_is_concise",
        path="metrics.response_is_concise",
        spec={"code_config": {"name": "metrics.response_is_concise"}},
        param_keys=["max_chars"],
    )
    scores = check_evaluator(klass, params={"max_chars": 40}, threshold=1.0)
    assert scores


def test_results_that_are_not_one_per_invocation_are_refused_as_adk_does():
    from agenteval_adk._custom_metrics import as_score
    from google.adk.evaluation.evaluator import EvaluationResult, PerInvocationResult

    one = PerInvocationResult(actual_invocation={"user_content": {"parts": [{"text": "hi"}]}}, score=1.0)
    with pytest.raises(ValueError, match="1 per-invocation results for 2 invocations"):
        as_score(EvaluationResult(overall_score=1.0, per_invocation_results=[one]), 2)
    assert as_score(EvaluationResult(), 2).reason_code == "no_score"
    with pytest.raises(TypeError, match="not an EvaluationResult"):
        as_score(0.5, 1)
