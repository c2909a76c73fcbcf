"""``agenteval run`` with a ``statistics`` block in the config: it sets what no flag gives,
flags override it, and a bad block is exit 2 naming the file and the JSON path."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval.cli import main
from agenteval.runs import find_run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "travel"
AGENT = f"{EXAMPLE / 'agent.py'}:respond"
CASE = f"{EXAMPLE / 'travel.evalset.json'}:weather_paris"


def _config(tmp_path: Path, statistics) -> Path:
    path = tmp_path / "test_config.json"
    criteria = {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.6}
    path.write_text(json.dumps({"criteria": criteria, "statistics": statistics}))
    return path


def _run(runner, config: Path, runs_dir: Path, *extra):
    return runner.invoke(
        main,
        ["run", CASE, "--agent", AGENT, "--config", str(config), "--runs-dir", str(runs_dir), *extra],
    )


def test_the_block_sets_auto_runs_the_level_and_the_judge_settings(runner, tmp_path):
    config = _config(tmp_path, {"num_runs": "auto", "run_budget": 7, "confidence": 0.9, "judge_budget": 3})
    result = _run(runner, config, tmp_path / "runs", "--format", "json")
    assert result.exit_code == 0, result.output
    assert "unknown top-level key" not in result.stderr
    manifest = find_run(tmp_path / "runs").manifest
    assert manifest.num_runs_policy == "auto" and manifest.run_budget == 7
    assert manifest.looks == [3, 6]  # the budget leaves room for two looks: each at 1 - 0.1/2
    assert manifest.set_confidence == 0.9 and abs(manifest.confidence - 0.95) < 1e-12
    assert json.loads(result.stdout)["summary"]["budget"]["judge_calls_limit"] == 3


def test_the_block_s_set_verdict_rule_decides_the_eval_sets_verdicts(runner, tmp_path):
    config = _config(tmp_path, {"set_verdict": "mean"})
    result = _run(runner, config, tmp_path / "runs", "--num-runs", "2", "--format", "json")
    assert result.exit_code == 0, result.output
    assert find_run(tmp_path / "runs").manifest.set_verdict == "mean"
    stats = json.loads(result.stdout)["summary"]["eval_sets"][0]["criteria"]
    assert {c["verdict_rule"] for c in stats if c["threshold"] is not None} == {"mean"}


def test_flags_override_the_block(runner, tmp_path):
    config = _config(tmp_path, {"num_runs": "auto", "confidence": 0.9})
    result = _run(runner, config, tmp_path / "runs", "--num-runs", "2", "--confidence", "0.8")
    assert result.exit_code == 0, result.output
    manifest = find_run(tmp_path / "runs").manifest
    assert manifest.num_runs_policy == "fixed" and manifest.num_runs == 2 and manifest.confidence == 0.8


def test_a_run_budget_flag_completes_an_auto_block(runner, tmp_path):
    config = _config(tmp_path, {"num_runs": "auto"})
    result = _run(runner, config, tmp_path / "runs", "--run-budget", "4", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "3 to 3 conversation(s)" in result.output


def test_the_block_s_num_runs_is_left_to_recorded_runs(runner, tmp_path):
    config = _config(tmp_path, {"num_runs": "auto", "fail_on_inconclusive": True})
    result = runner.invoke(
        main,
        [
            "run",
            CASE,
            "--actual",
            str(EXAMPLE / "travel.actual.json"),
            "--config",
            str(config),
            "--no-record",
        ],
    )
    assert result.exit_code == 0, result.output  # one recorded run: nothing is INCONCLUSIVE


def test_fail_on_inconclusive_from_the_block(runner, tmp_path, reworded_recording):
    config = _config(tmp_path, {"fail_on_inconclusive": True})
    recording = str(EXAMPLE / "travel.actual.json")
    args = ["run", CASE, "--actual", recording, "--actual", str(reworded_recording), "--config", str(config)]
    assert runner.invoke(main, [*args, "--no-record"]).exit_code == 3  # two runs cannot settle ROUGE at 0.6


def test_a_bad_block_is_exit_2_with_the_file_and_the_path(runner, tmp_path):
    config = _config(tmp_path, {"judge_sampling": "sometimes"})
    result = _run(runner, config, tmp_path / "runs")
    assert result.exit_code == 2
    assert str(config) in result.output and "statistics.judge_sampling" in result.output
    assert '"majority", "curtailed", "sequential", "pivotal"' in result.output
    assert "Traceback" not in result.output


def test_set_verdict_flag_offers_every_rule_and_wins_over_the_block(tmp_path):
    """``--set-verdict`` lists exactly the rules the statistics know, and goes through the one
    settings merge: the flag, else the config's ``statistics.set_verdict``, else holm."""
    import json

    from agenteval._stats import SET_VERDICT_RULES
    from agenteval.cli import main
    from agenteval.cli._run import run as run_command
    from click.testing import CliRunner

    [option] = [p for p in run_command.params if p.name == "set_verdict"]
    assert sorted(option.type.choices) == sorted(SET_VERDICT_RULES)
    example = Path(__file__).resolve().parents[2] / "examples" / "travel"
    base = ["run", str(example / "travel.evalset.json"), "--actual", str(example / "travel.actual.json")]
    for extra, expected in (([], "holm"), (["--set-verdict", "any-case"], "any-case")):
        runs = tmp_path / expected
        result = CliRunner().invoke(main, [*base, *extra, "--runs-dir", str(runs), "--quiet"])
        assert result.exit_code in (0, 1), result.output
        [folder] = list(runs.iterdir())
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        assert manifest["set_verdict"] == expected
