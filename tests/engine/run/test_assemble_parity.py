"""One run assembler: the same inputs through the four callers (``agenteval run``,
``agenteval.evaluate_agent`` / ``evaluate``, the pytest plugin, the viewer's runs) record the
same manifest and the same verdicts, for every settings key: each ``statistics`` field,
criteria and thresholds, judge options, runs, budgets and timeouts.

(Before the assembler only the CLI applied a config's ``statistics`` block: the API, pytest
and the viewer ran 0.95-level intervals, one run and no judge budget.)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Optional

import pytest
from agenteval import evaluate, evaluate_agent, load_config
from agenteval.cli import main
from agenteval.runs import find_run
from click.testing import CliRunner

pytest.importorskip("pytest_agenteval")
pytest.importorskip("agenteval_viewer")

#: The agent: ``weather`` passes; ``flip`` answers fully in its odd calls and half in its
#: even ones (so two runs disagree: an INCONCLUSIVE verdict that still passes on the mean);
#: ``slow`` takes a second. Calls are numbered per message in the ``calls`` folder beside it.
AGENT = """
import os
import time
from pathlib import Path

CALLS = Path(__file__).with_name("calls")
ANSWER = "It is sunny and warm in Paris today with a light breeze."


def _nth(message):
    CALLS.mkdir(exist_ok=True)
    n = 0
    while True:
        try:
            os.close(os.open(CALLS / f"{message.split()[0]}-{n}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return n
        except FileExistsError:
            n += 1


def respond(message, history):
    if "weather" in message:
        return {"text": ANSWER,
                "tool_calls": [{"name": "get_weather", "args": {"city": "Paris"}}]}
    if "flip" in message:
        full = _nth(message) % 2 == 0
        return ANSWER if full else "It is sunny and warm in Paris today."
    if "slow" in message:
        time.sleep(1.0)
        return ANSWER
    return "I do not know."
"""

ANSWER = "It is sunny and warm in Paris today with a light breeze."


def _case(eval_id: str, user: str, *tools: dict) -> dict:
    return {
        "eval_id": eval_id,
        "conversation": [
            {
                "invocation_id": f"{eval_id}-1",
                "user_content": {"role": "user", "parts": [{"text": user}]},
                "final_response": {"role": "model", "parts": [{"text": ANSWER}]},
                "intermediate_data": {"tool_uses": list(tools)},
            }
        ],
    }


CASES = {
    "weather": _case(
        "weather", "What's the weather in Paris?", {"name": "get_weather", "args": {"city": "Paris"}}
    ),
    "flip": _case("flip", "flip a coin about Paris"),
    "slow": _case("slow", "a slow question about Paris"),
}

JUDGED = {"threshold": 0.5, "judge_model_options": {"judge_model": "gemini-2.5-flash", "num_samples": 3}}
STATISTICS = {
    "confidence": 0.8,
    "num_runs": 2,
    "judge_sampling": "majority",
    "judge_budget": 1000,
    "max_judge_tokens": 1_000_000,
    "fail_on_inconclusive": True,
    "set_verdict": "mean",
    "calibration": "calibration.json",
    "min_kappa": 0.2,
    "judge_prices": {"gemini-2.5-flash": {"input_per_mtok": 0.3, "output_per_mtok": 2.5}},
}

#: name -> (cases, the config beside the eval file, options per caller). A caller left out
#: of ``options`` has no way to give that option (the pytest plugin has no --agent-timeout).
VARIANTS: dict[str, tuple[tuple[str, ...], dict, dict[str, Any]]] = {
    "every statistics key, criteria, thresholds and judge options from the config": (
        ("weather", "flip"),
        {
            "criteria": {
                "response_match_score": 0.8,
                "tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER"},
                "final_response_match_v2": JUDGED,
            },
            "statistics": STATISTICS,
        },
        {"cli": [], "api": {}, "pytest": [], "viewer": {}},
    ),
    "num_runs auto and run_budget from the config": (
        ("weather", "flip"),
        {
            "criteria": {"response_match_score": 0.8},
            "statistics": {"num_runs": "auto", "run_budget": 9, "confidence": 0.9},
        },
        {"cli": [], "api": {}, "pytest": [], "viewer": {}},
    ),
    "criteria picked by the caller, thresholds and judge options": (
        ("weather", "flip"),
        {
            "criteria": {
                "response_match_score": 0.7,
                "final_response_match_v2": JUDGED,
                "trajectory_recall": 1.0,
            }
        },
        {
            "cli": ["--criteria", "response_match_score,final_response_match_v2"],
            "api": {"criteria": {"response_match_score": 0.7, "final_response_match_v2": JUDGED}},
            "pytest": ["--agenteval-criteria", "response_match_score,final_response_match_v2"],
            "viewer": {
                "criteria": {
                    "response_match_score": {"threshold": 0.7},
                    "final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"num_samples": 3}},
                },
                "judge_model": "gemini-2.5-flash",
            },
        },
    ),
    "runs and the agent timeout given by the caller": (
        ("weather", "slow"),
        {"criteria": {"response_match_score": 0.8}},
        {
            "cli": ["--num-runs", "2", "--agent-timeout", "0.4"],
            "api": {"num_runs": 2, "agent_timeout": 0.4},
            "viewer": {"num_runs": 2, "agent_timeout": 0.4},
        },
    ),
    "num_runs auto and its run budget given by the caller": (
        ("weather", "flip"),
        {"criteria": {"response_match_score": 0.8}},
        {
            "cli": ["--num-runs", "auto", "--run-budget", "9"],
            "api": {"num_runs": "auto", "run_budget": 9},
            "pytest": ["--agenteval-num-runs", "auto", "--agenteval-run-budget", "9"],
        },
    ),
    "the executor given by the caller (recorded in the manifest)": (
        ("weather", "flip"),
        {"criteria": {"response_match_score": 0.8}},
        {
            "cli": ["--executor", "local"],
            "api": {"executor": "local"},
            "pytest": ["--agenteval-executor", "local"],
            "viewer": {"executor": "local"},
        },
    ),
}

#: The variants whose callers give the criteria themselves (not one config file for all).
_OWN_CONFIG = {"criteria picked by the caller, thresholds and judge options"}

#: What differs between two recordings of the same run: who started it, where and when.
_VOLATILE = {"run_id", "started_at", "finished_at", "argv", "cwd", "git_commit"}


@pytest.fixture
def judged(gemini_env, monkeypatch, schema_answers):
    monkeypatch.setenv("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "0.01")
    gemini_env.responder = lambda request: schema_answers.answer_for(request.body)
    return gemini_env


class Project:
    def __init__(self, folder: Path, cases: tuple[str, ...], config: dict) -> None:
        self.folder = folder.resolve()
        self.evals = self.folder / "evals"
        self.evals.mkdir(parents=True)
        self.file = self.evals / "shop.evalset.json"
        self.file.write_text(json.dumps({"eval_set_id": "shop", "eval_cases": [CASES[c] for c in cases]}))
        (self.evals / "test_config.json").write_text(json.dumps(config))
        # the cards the statistics block gates on (none: its judge criterion is INCONCLUSIVE)
        (self.evals / "calibration.json").write_text(json.dumps({"cards": []}))
        (self.folder / "agent.py").write_text(AGENT)
        self.agent = f"{self.folder / 'agent.py'}:respond"

    def place(self, caller: str, monkeypatch: pytest.MonkeyPatch) -> Path:
        """A fresh working folder (so a fresh judge cache) and call log for ``caller``;
        returns its runs folder."""
        for log in (self.folder / "calls").glob("*"):
            log.unlink()
        work = self.folder / caller
        work.mkdir()
        monkeypatch.chdir(work)
        return work / "runs"


def _recorded(runs: Path) -> tuple[dict, dict, list]:
    """The run's manifest (without what says who, where, when), its summary and its verdicts."""
    run = find_run(runs)
    manifest = {k: v for k, v in run.manifest.model_dump(mode="json").items() if k not in _VOLATILE}
    result = run.result()
    verdicts = sorted(
        (
            case.eval_id,
            case.status.value,
            [
                (c.criterion, c.status.value, c.score, c.reason_code, _verdict(c.verdict))
                for c in case.criteria
            ],
        )
        for case in result.cases()
    )
    return manifest, result.summary.model_dump(mode="json"), verdicts


def _verdict(verdict: Any) -> Optional[dict]:
    """The verdict, with the names of the agent's worker threads (numbered per process) left out."""
    if verdict is None:
        return None
    found = verdict.model_dump(mode="json")
    found["reason"] = re.sub(r"agenteval-agent-\d+", "agenteval-agent-N", found["reason"] or "")
    return found


def _cli(project: Project, runs: Path, args: list[str]) -> None:
    result = CliRunner().invoke(
        main, ["run", str(project.file), "--agent", project.agent, "--runs-dir", str(runs), *args]
    )
    assert result.exit_code in (0, 1, 3), result.output


def _api(project: Project, runs: Path, kwargs: dict) -> None:
    evaluate_agent(project.agent, project.file, runs_dir=runs, **kwargs)


def _pytest(project: Project, runs: Path, args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--agenteval-agent", project.agent]
        + ["--agenteval-runs-dir", str(runs), *args, str(project.file)],
        cwd=Path.cwd(),
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTEST_ADDOPTS": ""},
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr


def _viewer(project: Project, runs: Path, fields: dict) -> Optional[list[str]]:
    from agenteval_viewer._authoring_guard import WriteGuard
    from agenteval_viewer._run_jobs import RunJobs

    fields = dict(fields)
    jobs = RunJobs(
        runs, WriteGuard([project.evals], token="t"), agent_timeout=fields.pop("agent_timeout", 300.0)
    )
    job = jobs.start({"files": [{"root": 0, "path": project.file.name}], "agent": project.agent, **fields})
    deadline = time.monotonic() + 120
    while job.state == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert job.state == "complete", job.describe()
    return find_run(runs).manifest.argv


CALLERS = {"cli": _cli, "api": _api, "pytest": _pytest, "viewer": _viewer}


@pytest.mark.slow  # about a minute a variant (pytest runs in a subprocess); CI runs it
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_caller_records_the_same_run(variant, judged, tmp_path, monkeypatch):
    cases, config, options = VARIANTS[variant]
    project = Project(tmp_path, cases, config)
    recorded = {}
    for caller, given in options.items():
        runs = project.place(caller, monkeypatch)
        CALLERS[caller](project, runs, given)
        recorded[caller] = _recorded(runs)
    if variant in _OWN_CONFIG:  # the API's criteria have no file; the viewer's is in its run folder
        for manifest, _, _ in recorded.values():
            for entry in manifest["eval_sets"]:
                entry.pop("config")
    first, *others = recorded
    assert recorded[first][0]["executor"]["name"] == "local"
    for caller in others:
        assert recorded[caller][0] == recorded[first][0], f"the manifests of {first} and {caller} differ"
        assert recorded[caller][1] == recorded[first][1], f"the summaries of {first} and {caller} differ"
        assert recorded[caller][2] == recorded[first][2], f"the verdicts of {first} and {caller} differ"


def test_the_statistics_block_applies_from_every_caller(judged, tmp_path, monkeypatch):
    """What the shared recording shows is the block's, not the defaults (the bug: the API
    recorded 0.95, one run, no budget, exit 0)."""
    cases, config, _ = VARIANTS[
        "every statistics key, criteria, thresholds and judge options from the config"
    ]
    project = Project(tmp_path, cases, config)
    runs = project.place("api", monkeypatch)
    _api(project, runs, {})
    manifest, summary, verdicts = _recorded(runs)
    assert manifest["confidence"] == 0.8 and manifest["num_runs"] == 2
    assert manifest["set_verdict"] == "mean"
    gate = manifest["eval_sets"][0]["criteria"][2]["calibration"]
    assert gate["reason_code"] == "calibration_missing" and gate["min_kappa"] == 0.2
    assert manifest["judge_prices"] == STATISTICS["judge_prices"]
    assert summary["judge_cost"]["total"] > 0 and summary["judge_cost"]["unpriced"] == []
    assert manifest["exit_code"] == 3  # everything passed, flip is INCONCLUSIVE: fail_on_inconclusive
    assert summary["budget"]["judge_calls_limit"] == 1000
    assert summary["budget"]["judge_tokens_limit"] == 1_000_000 and summary["budget"]["judge_tokens_used"] > 0
    flip = next(v for v in verdicts if v[0] == "flip")
    assert any(verdict and verdict["verdict"] == "INCONCLUSIVE" for *_, verdict in flip[2])


def test_evaluate_scores_recorded_turns_with_the_block_as_the_cli_does(judged, tmp_path, monkeypatch):
    cases, config, _ = VARIANTS[
        "every statistics key, criteria, thresholds and judge options from the config"
    ]
    project = Project(tmp_path, cases, config)
    actual = project.folder / "actual.json"
    actual.write_text(project.file.read_text())
    runs = project.place("cli", monkeypatch)
    result = CliRunner().invoke(
        main, ["run", str(project.file), "--actual", str(actual), "--runs-dir", str(runs)]
    )
    # 3: the block fails on INCONCLUSIVE, and its cards have none for the judge criterion
    assert result.exit_code == 3, result.output
    assert "final_response_match_v2 is not calibrated (--calibration)" in result.output
    cli = _recorded(runs)
    runs = project.place("evaluate", monkeypatch)
    evaluate(project.file, actual, load_config(project.evals / "test_config.json"), runs_dir=runs)
    api = _recorded(runs)
    for key in ("confidence", "set_confidence", "exit_code", "num_runs"):
        assert api[0][key] == cli[0][key], key
    # evaluate's criteria come as a config object: its eval sets name no config file.
    assert [{**s, "config": None} for s in cli[0]["eval_sets"]] == api[0]["eval_sets"]
    assert api[1] == cli[1] and api[2] == cli[2]
    assert api[0]["confidence"] == 0.8 and api[1]["budget"]["judge_calls_limit"] == 1000
