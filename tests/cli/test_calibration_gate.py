"""The calibration gate (``--calibration``, ``--min-kappa``, ``statistics.calibration`` /
``min_kappa``): a judge criterion without a current calibration card, or whose κ lower bound
is below the floor, gives INCONCLUSIVE instead of PASS or FAIL, with the reason; the finding
is recorded in the manifest and the run folder's reader gives the same verdicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agenteval.calibration import CALIBRATION_FILE
from agenteval.cli import main
from agenteval.runs import find_run, list_runs

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "travel"
JUDGED = "final_response_match_v2"
PLAIN = "response_match_score"
LABELS = (
    {"eval_id": "weather_paris", "criterion": JUDGED, "label": "pass"},
    {"eval_id": "hotel_tokyo_ja", "criterion": JUDGED, "label": "fail"},
    {"eval_id": "flight_then_currency", "criterion": JUDGED, "label": "pass"},
)


@pytest.fixture
def project(runner, judge_server, tmp_path) -> Any:
    return Project(runner, tmp_path)


class Project:
    def __init__(self, runner, folder: Path) -> None:
        self.runner = runner
        self.folder = folder
        self.config = folder / "config.json"
        self.config.write_text(json.dumps({"criteria": {JUDGED: 0.5, PLAIN: 0.1}}))
        self.runs = folder / "runs"

    def run(self, *extra: str, runs: int = 1, config: Path | None = None) -> Any:
        """``agenteval run`` of the example (``runs`` times the same recorded turns); its result."""
        actual = ["--actual", str(EXAMPLE / "travel.actual.json")] * runs
        return self.runner.invoke(
            main,
            ["run", str(EXAMPLE / "travel.evalset.json"), *actual, "--config", str(config or self.config)]
            + ["--no-cache", "--runs-dir", str(self.runs), *extra],
        )

    def calibrated(self) -> Path:
        """A run calibrated against ``LABELS``: its run folder (with ``calibration.json``)."""
        assert self.run().exit_code in (0, 1)
        labels = self.folder / "labels.jsonl"
        labels.write_text("".join(json.dumps(line) + "\n" for line in LABELS))
        done = self.runner.invoke(
            main, ["calibrate", "latest", "--labels", str(labels), "--runs-dir", str(self.runs)]
        )
        assert done.exit_code == 0, done.output
        return find_run(self.runs).folder

    def edit_card(self, folder: Path, **changes: Any) -> None:
        path = folder / CALIBRATION_FILE
        data = json.loads(path.read_text())
        data["cards"][0].update(changes)
        path.write_text(json.dumps(data))


def _verdicts(runs: Path) -> dict[tuple[str, str], dict]:
    """The latest run's verdicts by (case, criterion), as the run folder's reader gives them."""
    result = find_run(runs).result()
    return {
        (case.eval_id, c.criterion): c.verdict.model_dump(mode="json")
        for case in result.cases()
        for c in case.criteria
        if c.verdict is not None
    }


def _gate(runs: Path) -> dict:
    entry = next(e for e in find_run(runs).manifest.eval_sets[0].criteria if e.name == JUDGED)
    plain = next(e for e in find_run(runs).manifest.eval_sets[0].criteria if e.name == PLAIN)
    assert plain.calibration is None  # only judge criteria are gated
    assert entry.calibration is not None
    return entry.calibration.model_dump(mode="json")


def test_without_a_card_every_judge_verdict_is_inconclusive_and_says_why(project, tmp_path):
    cards = tmp_path / "cards.json"
    cards.write_text(json.dumps({"cards": []}))
    result = project.run("--calibration", str(cards), "--format", "json")
    assert result.exit_code in (0, 1), result.output
    gate = _gate(project.runs)
    assert gate["reason_code"] == "calibration_missing" and "no calibration card for" in gate["problem"]
    verdicts = _verdicts(project.runs)
    judged = [v for (_, name), v in verdicts.items() if name == JUDGED]
    assert judged and all(v["verdict"] == "INCONCLUSIVE" and v["basis"] == "calibration" for v in judged)
    assert all("the judge is not calibrated: no calibration card" in v["reason"] for v in judged)
    assert all("(without the gate: PASS)" in v["reason"] for v in judged)  # the fake judge passes all
    assert all(v["verdict"] != "INCONCLUSIVE" for (_, name), v in verdicts.items() if name == PLAIN)
    # What the run printed is what the folder's reader recomputes.
    printed = {
        (case["eval_id"], c["criterion"]): c["verdict"]
        for eval_set in json.loads(result.stdout)["eval_sets"]
        for case in eval_set["cases"]
        for c in case["criteria"]
        if c.get("verdict")
    }
    assert printed == verdicts


def test_a_current_card_lets_the_judge_decide_and_a_floor_above_its_kappa_does_not(project):
    card_run = project.calibrated()
    assert project.run("--calibration", str(card_run)).exit_code in (0, 1)
    gate = _gate(project.runs)
    assert gate["problem"] is None and gate["card_run_id"] == card_run.name and gate["n"] == 3
    assert all(v["verdict"] == "PASS" for (_, n), v in _verdicts(project.runs).items() if n == JUDGED)
    # The fake judge passes everything: κ is 0, far below a floor of 0.4.
    assert project.run("--calibration", str(card_run / CALIBRATION_FILE), "--min-kappa", "0.4").exit_code in (
        0,
        1,
    )
    gate = _gate(project.runs)
    assert gate["reason_code"] == "calibration_below_floor" and gate["min_kappa"] == 0.4
    assert "its lower bound is below the floor 0.4" in gate["problem"]
    judged = [v for (_, n), v in _verdicts(project.runs).items() if n == JUDGED]
    assert all(v["verdict"] == "INCONCLUSIVE" and "below the floor" in v["reason"] for v in judged)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"judge_models": ["openai:gpt-4o"]}, "judge model(s) gemini"),
        ({"criterion_version": "agenteval-llm-judges@0.0.1"}, "criterion version agenteval-llm-judges@"),
        ({"prompt_sha256": "0" * 64}, "the judge prompt changed (prompt_sha256)"),
    ],
)
def test_a_stale_card_names_what_changed(project, change, named):
    card_run = project.calibrated()
    project.edit_card(card_run, **change)
    assert project.run("--calibration", str(card_run)).exit_code in (0, 1)
    judged = [v for (_, n), v in _verdicts(project.runs).items() if n == JUDGED]
    assert judged and all(v["verdict"] == "INCONCLUSIVE" for v in judged)
    assert all("is stale" in v["reason"] and named in v["reason"] for v in judged), judged[0]["reason"]


def test_several_runs_the_set_verdict_and_the_config_block_are_gated(project, tmp_path):
    card_run = project.calibrated()
    project.edit_card(
        card_run, kappa=0.9, kappa_interval={"low": 0.7, "high": 1.0, "method": "bca", "level": 0.95, "n": 3}
    )
    config = tmp_path / "gated" / "config.json"
    config.parent.mkdir()
    statistics = {"calibration": str(card_run), "min_kappa": 0.8, "set_verdict": "mean"}
    config.write_text(json.dumps({"criteria": {JUDGED: 0.5, PLAIN: 0.1}, "statistics": statistics}))
    assert project.run(runs=2, config=config).exit_code in (0, 1)
    assert _gate(project.runs)["reason_code"] == "calibration_below_floor"  # 0.7 < 0.8
    judged = [v for (_, n), v in _verdicts(project.runs).items() if n == JUDGED]
    assert judged and all(v["verdict"] == "INCONCLUSIVE" and v["basis"] == "calibration" for v in judged)
    (eval_set,) = find_run(project.runs).result().summary.eval_sets
    set_judged = next(c for c in eval_set.criteria if c.criterion == JUDGED)
    assert set_judged.verdict == "INCONCLUSIVE" and "not calibrated" in (set_judged.verdict_reason or "")
    # The flag overrides the block's floor: 0.7 reaches 0.6.
    assert project.run("--min-kappa", "0.6", runs=2, config=config).exit_code in (0, 1)
    assert _gate(project.runs)["problem"] is None
    assert all(v["verdict"] == "PASS" for (_, n), v in _verdicts(project.runs).items() if n == JUDGED)


def test_an_unreadable_gate_stops_the_run_before_any_call(project, tmp_path):
    missing = project.run("--calibration", str(tmp_path / "nowhere.json"))
    assert missing.exit_code == 2 and "no calibration cards here" in missing.output
    assert "agenteval calibrate RUN --labels FILE" in missing.output and "Traceback" not in missing.output
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"cards": [{"criterion": JUDGED}]}))
    damaged = project.run("--calibration", str(broken))
    assert (
        damaged.exit_code == 2 and "cards[0]" in damaged.output and "not a calibration card" in damaged.output
    )
    floor = project.run("--min-kappa", "0.5")
    assert floor.exit_code == 2 and "--min-kappa" in floor.output and "--calibration FILE" in floor.output
    assert list_runs(project.runs) == []


def _show(project: Project, run: str) -> str:
    """``runs show RUN`` with its lines joined (the table wraps at the terminal's width)."""
    shown = project.runner.invoke(main, ["runs", "show", run, "--runs-dir", str(project.runs)])
    return " ".join(shown.stdout.split())


def test_runs_show_prints_the_card_and_the_gate(project):
    card_run = project.calibrated()
    shown = _show(project, card_run.name)
    assert f"calibration of {JUDGED}: Cohen's κ 0.00 [" in shown
    assert "over 3 human label(s), people passed 67%, judge 100%, accuracy 67% [" in shown
    assert project.run("--calibration", str(card_run), "--min-kappa", "0.4").exit_code in (0, 1)
    shown = _show(project, "latest")
    line = f"calibration gate of {JUDGED}: its verdicts are INCONCLUSIVE: κ 0.00 ["
    assert line in shown and "below the floor 0.4 (--min-kappa)" in shown
    assert "or a judge not calibrated (--calibration; a current card settles it)" in shown
    assert project.run("--calibration", str(card_run)).exit_code in (0, 1)
    shown = _show(project, "latest")
    assert f"calibration gate of {JUDGED}: a current card (run {card_run.name}, κ 0.00 [" in shown
    assert "over 3 label(s))" in shown


def test_judge_prices_give_the_judge_cost_in_the_summary_and_the_report(project, tmp_path):
    """Not the gate, but the same judged run: ``statistics.judge_prices`` price the judge's
    tokens per model (the fake judge reports 10 input and 5 output tokens a call)."""
    config = tmp_path / "priced.json"
    prices = {"gemini-2.5-flash": {"input_per_mtok": 100_000, "output_per_mtok": 400_000}}
    config.write_text(json.dumps({"criteria": {JUDGED: 0.5}, "statistics": {"judge_prices": prices}}))
    assert project.run(config=config).exit_code in (0, 1)
    run = find_run(project.runs)
    assert run.manifest.judge_prices == prices
    summary = run.summary().summary
    usage = summary.judge.models["gemini-2.5-flash"]
    assert (usage.calls, usage.input_tokens, usage.output_tokens) == (summary.judge.calls, 120, 60)
    expected = (120 * 100_000 + 60 * 400_000) / 1_000_000
    assert summary.judge_cost is not None and summary.judge_cost.total == pytest.approx(expected)
    assert run.result_summary().judge_cost == summary.judge_cost  # the reader prices it the same
    assert f"judge cost: {expected:,.4f} at the configured prices" in _show(project, "latest")
    cheap = {"other-model": {"input_per_mtok": 1, "output_per_mtok": 1}}
    config.write_text(json.dumps({"criteria": {JUDGED: 0.5}, "statistics": {"judge_prices": cheap}}))
    assert project.run(config=config).exit_code in (0, 1)
    shown = _show(project, "latest")
    assert (
        "judge cost: 0.0000" in shown and "no price for gemini-2.5-flash (statistics.judge_prices)" in shown
    )


def test_the_markdown_report_shows_the_gate_and_the_cost(project, tmp_path):
    from agenteval_builtin.reporters.markdown import render_markdown

    cards = tmp_path / "cards.json"
    cards.write_text(json.dumps({"cards": []}))
    config = tmp_path / "priced.json"
    prices = {"gemini-2.5-flash": {"input_per_mtok": 1000, "output_per_mtok": 1000}}
    config.write_text(json.dumps({"criteria": {JUDGED: 0.5}, "statistics": {"judge_prices": prices}}))
    assert project.run("--calibration", str(cards), config=config).exit_code in (0, 1)
    text = render_markdown(find_run(project.runs))
    assert "- Judge cost: 0.1800 at the configured prices per million tokens." in text
    assert f"- Calibration gate of `{JUDGED}`: verdicts INCONCLUSIVE: no calibration card for" in text
