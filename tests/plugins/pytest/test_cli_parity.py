"""pytest and ``agenteval run`` give the same verdicts for the same inputs (ADK's CLI and
its ``AgentEvaluator`` do not: there NOT_EVALUATED passes in one and fails in the other)."""

from __future__ import annotations

import json

import pytest
from agenteval.cli import main
from click.testing import CliRunner

OK = {"PASSED", "INFORMATIONAL"}

#: (``agenteval run`` arguments after FILE, pytest arguments, the case selection).
VARIANTS = {
    "defaults": ([], [], None),
    "config": (["--num-runs", "1"], [], None),
    "two runs": (["--num-runs", "2"], ["--agenteval-num-runs", "2"], None),
    "criteria": (
        ["--criteria", "response_match_score,trajectory_recall"],
        ["--agenteval-criteria", "response_match_score,trajectory_recall"],
        None,
    ),
    "selection": ([], ["-k", "flight or crash"], "flight,crash"),
}


def _cli(project, file_arg: str, extra: list[str]) -> tuple[int, dict]:
    result = CliRunner().invoke(main, ["run", file_arg, "--agent", project.agent, "--format", "json", *extra])
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    verdicts = {
        case["eval_id"]: (case["status"], {r["criterion"]: r["score"] for r in case["criteria"]})
        for case in doc["eval_sets"][0]["cases"]
    }
    return result.exit_code, verdicts


def _pytest(project, extra: list[str]) -> tuple[int, dict, dict]:
    recorder = project.pytester.inline_run("-p", "no:hypothesispytest", "-p", "no:cacheprovider", *extra)
    reports = [r for r in recorder.getreports("pytest_runtest_logreport") if r.when == "call"]
    verdicts, outcomes = {}, {}
    for report in reports:
        properties = dict(report.user_properties)
        scores = {k.split(".", 1)[1]: v for k, v in properties.items() if k.startswith("agenteval.")}
        case = report.nodeid.split("::")[-1]
        verdicts[case] = (properties["agenteval_status"], scores)
        outcomes[case] = report.outcome
    return recorder.ret, verdicts, outcomes


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_pytest_verdicts_equal_the_cli_s(named, variant):
    cli_args, pytest_args, selection = VARIANTS[variant]
    if variant in ("config", "criteria"):
        named.write(
            "test_config.json",
            {
                "criteria": {
                    "response_match_score": 0.85,
                    "tool_trajectory_avg_score": 1,
                    "trajectory_recall": 0.4,
                }
            },
        )
    file_arg = str(named.path / "shop.evalset.json") + (f":{selection}" if selection else "")
    cli_code, cli = _cli(named, file_arg, cli_args)
    code, verdicts, outcomes = _pytest(named, pytest_args)
    assert verdicts == cli
    assert {case: outcome == "passed" for case, outcome in outcomes.items()} == {
        case: status in OK for case, (status, _) in cli.items()
    }
    assert (code == pytest.ExitCode.OK) == (cli_code == 0)
    # The mix covers every status a case can take here.
    if variant == "defaults":
        assert {status for status, _ in cli.values()} == {"PASSED", "FAILED", "ERRORED", "NOT_EVALUATED"}
