"""Local criteria: a function in the user's project named as ``path/metrics.py:fn`` or
``package.module:fn``, in a config or on ``--criteria``; found and imported while the run
is planned, recorded with its file's sha256."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from agenteval.cli import main
from agenteval.runs import list_runs
from agenteval.testing import check_evaluator
from click.testing import CliRunner

EVAL_SET = {
    "eval_set_id": "local",
    "eval_cases": [
        {
            "eval_id": eval_id,
            "conversation": [
                {
                    "invocation_id": f"{eval_id}-1",
                    "user_content": {"role": "user", "parts": [{"text": "hi"}]},
                    "final_response": {"role": "model", "parts": [{"text": answer}]},
                }
            ],
        }
        for eval_id, answer in (("short", "Hello there."), ("long", "Hello " * 40))
    ],
}

METRICS = '''
def brevity(actual, expected):
    """1.0 when every final response has at most 10 words."""
    words = max(len(inv.final_text().split()) for inv in actual)
    return (1.0 if words <= 10 else 0.0, f"longest response: {words} words")


def per_turn(actual, *, limit: int = 10):
    return [len(inv.final_text().split()) <= limit for inv in actual]
'''

AGENT = """
import os

def respond(message, history):
    open(os.environ["AGENT_CALLS"], "a").write(message + "\\n")
    return "Hello there."
"""


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An eval folder with its eval set (also used as the recorded actual turns)."""
    evals = tmp_path / "evals"
    _write(evals / "local.evalset.json", json.dumps(EVAL_SET))
    _write(evals / "metrics.py", METRICS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(project: Path, *args: str):
    evals = project / "evals"
    argv = ["run", str(evals / "local.evalset.json"), "--actual", str(evals / "local.evalset.json"), *args]
    return CliRunner().invoke(main, [*argv, "--no-record"] if "--runs-dir" not in args else argv)


def _config(project: Path, criteria: dict) -> None:
    _write(project / "evals" / "test_config.json", json.dumps({"criteria": criteria}))


def _results(outcome) -> dict:
    document = json.loads(outcome.stdout)
    [case_set] = document["eval_sets"]
    return {case["eval_id"]: {c["criterion"]: c for c in case["criteria"]} for case in case_set["cases"]}


def test_a_config_names_a_file_relative_to_itself(project):
    _config(project, {"metrics.py:brevity": 1.0, "metrics.py:per_turn": {"threshold": 1.0, "limit": 50}})
    outcome = _run(project, "--format", "json")
    assert outcome.exit_code == 1, outcome.output
    results = _results(outcome)
    assert results["short"]["metrics.py:brevity"]["status"] == "PASSED"
    failed = results["long"]["metrics.py:brevity"]
    assert failed["status"] == "FAILED" and failed["reason"] == "longest response: 40 words"
    assert results["long"]["metrics.py:per_turn"]["status"] == "PASSED"  # limit 50 from the config
    assert failed["plugin"]["distribution"] == "local"


def test_criteria_option_takes_a_file_relative_to_the_current_folder_with_threshold_one(project):
    outcome = _run(project, "--criteria", "evals/metrics.py:per_turn", "--format", "json")
    results = _results(outcome)
    assert results["short"]["evals/metrics.py:per_turn"]["threshold"] == 1.0
    assert results["long"]["evals/metrics.py:per_turn"]["status"] == "FAILED"


def test_a_dotted_module_is_found_in_a_folder_above_the_config(project):
    _write(project / "scoring" / "__init__.py", "")
    _write(project / "scoring" / "rules.py", "def polite(actual):\n    return 1.0\n")
    _config(project, {"scoring.rules:polite": 1.0})
    outcome = _run(project)
    assert outcome.exit_code == 0, outcome.output


def test_an_evaluator_class_in_a_file_keeps_its_own_threshold(project):
    _write(
        project / "evals" / "published.py",
        """
        import agenteval

        @agenteval.function_criterion(threshold=0.0, min_score=0, max_score=100)
        def words(actual):
            return float(sum(len(i.final_text().split()) for i in actual))
        """,
    )
    outcome = _run(project, "--criteria", "evals/published.py:words", "--format", "json")
    assert outcome.exit_code == 0, outcome.output
    assert _results(outcome)["long"]["evals/published.py:words"]["score"] == 40.0


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def brevity(actual):\n    return (\n", "metrics.py:2:12: SyntaxError: '(' was never closed"),
        ("import os\nx = 1 / 0\n", "metrics.py:2: ZeroDivisionError: division by zero"),
        ("def brevty(actual):\n    return 1\n", "has no 'brevity'; did you mean 'brevty'?"),
        ("def brevity():\n    return 1\n", "brevity cannot be a criterion: it takes no positional parameter"),
        ("brevity = 3\n", "brevity is int, not a function or an agenteval.Evaluator class"),
    ],
)
def test_a_criterion_that_cannot_be_imported_stops_the_run_before_the_agent(
    project, monkeypatch, source, expected
):
    _write(project / "evals" / "metrics.py", source)
    _write(project / "agent.py", AGENT)
    calls = project / "calls.txt"
    monkeypatch.setenv("AGENT_CALLS", str(calls))
    evals = project / "evals"
    argv = ["run", str(evals), "--agent", f"{project / 'agent.py'}:respond", "--no-record"]
    outcome = CliRunner().invoke(main, [*argv, "--criteria", "evals/metrics.py:brevity"])
    assert outcome.exit_code == 2, outcome.output
    assert "local criterion 'evals/metrics.py:brevity' cannot be loaded" in outcome.stderr
    assert expected in outcome.stderr and "Traceback" not in outcome.stderr
    assert not calls.exists()


def test_a_missing_file_names_where_it_was_looked_for(project):
    _config(project, {"nowhere.py:f": 1.0})
    outcome = _run(project)
    assert outcome.exit_code == 2
    assert f"no file 'nowhere.py' (looked for {project / 'evals' / 'nowhere.py'} or" in outcome.stderr


def test_a_malformed_reference_says_how_to_write_one(project):
    outcome = _run(project, "--criteria", "metrics.py:")
    assert outcome.exit_code == 2 and "write path/to/file.py:function" in outcome.stderr


def test_one_name_is_one_function_per_run(project):
    other = project / "other"
    _write(other / "o.evalset.json", json.dumps({**EVAL_SET, "eval_set_id": "o"}))
    _write(other / "metrics.py", "def brevity(actual, expected):\n    return 0.0\n")
    _write(other / "test_config.json", json.dumps({"criteria": {"metrics.py:brevity": 1.0}}))
    _config(project, {"metrics.py:brevity": 1.0})
    evals = project / "evals"
    outcome = CliRunner().invoke(
        main, ["run", str(evals), str(other), "--actual", str(evals / "local.evalset.json"), "--no-record"]
    )
    assert outcome.exit_code == 2
    assert "'metrics.py:brevity' is defined differently" in outcome.stderr


def test_the_manifest_records_the_file_and_its_sha256_and_resume_refuses_a_changed_file(project):
    _config(project, {"metrics.py:brevity": 1.0})
    runs = project / "runs"
    assert _run(project, "--runs-dir", str(runs)).exit_code == 1
    [run] = list_runs(runs)
    [entry] = run.manifest.eval_sets[0].criteria
    metrics = project / "evals" / "metrics.py"
    assert entry.describe["file"] == str(metrics.resolve())
    import hashlib

    assert entry.describe["sha256"] == hashlib.sha256(metrics.read_bytes()).hexdigest()
    manifest = run.folder / "manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    manifest.write_text(json.dumps({**data, "state": "interrupted"}), encoding="utf-8")

    _write(metrics, METRICS + "\n# changed\n")
    refused = _run(project, "--runs-dir", str(runs), "--resume", run.run_id)
    assert refused.exit_code == 2
    assert "cannot resume" in refused.stderr and "criterion metrics.py:brevity" in refused.stderr

    _write(metrics, METRICS)
    assert _run(project, "--runs-dir", str(runs), "--resume", run.run_id).exit_code == 1


def test_a_local_criterion_keeps_the_plugin_contract(project):
    from agenteval import Registry
    from agenteval._local_criteria import LocalCriteria

    local = LocalCriteria(Registry.installed())
    local.add_function("evals/metrics.py:brevity", None, "--criteria")
    local.add_function("evals/metrics.py:per_turn", None, "--criteria")
    for name in ("evals/metrics.py:brevity", "evals/metrics.py:per_turn"):
        loaded = local.load([name])[name]
        check_evaluator(loaded.evaluator_class)


def test_a_custom_metric_without_agenteval_adk_names_the_distribution(project, monkeypatch):
    import dataclasses

    from agenteval import _plugins

    kind = _plugins.KINDS["agenteval.custom_metric_runners"]
    nowhere = dataclasses.replace(kind, group="agenteval.tests_no_custom_metric_runners")
    monkeypatch.setitem(_plugins.KINDS, kind.group, nowhere)  # as if agenteval-adk were not installed
    _write(
        project / "evals" / "test_config.json",
        json.dumps(
            {
                "criteria": {"concise": 1.0},
                "custom_metrics": {"concise": {"code_config": {"name": "pkg.module.fn"}}},
            }
        ),
    )
    outcome = _run(project)
    assert outcome.exit_code == 2
    assert (
        "custom metric 'concise' (pkg.module.fn) needs agenteval-adk (pip install -e ./plugins/adk)"
        in outcome.stderr
    )
