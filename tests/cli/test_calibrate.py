"""``agenteval calibrate RUN --labels FILE``: a recorded run's judge verdicts against human
labels, as a calibration card per criterion (table and JSON), kept in the run folder; a
bad labels file exits 2 with file:line:column, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agenteval.calibration import CALIBRATION_FILE, CalibrationCard, read_labels
from agenteval.cli import main
from agenteval.errors import DataError
from agenteval.runs import find_run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "travel"
JUDGED = "final_response_match_v2"


@pytest.fixture
def recorded(runner, judge_server, tmp_path) -> Path:
    """A recorded run of the example scored by a judge criterion (the fake judge passes all)."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"criteria": {JUDGED: 0.5, "response_match_score": 0.1}}))
    runs = tmp_path / "runs"
    args = ["run", str(EXAMPLE / "travel.evalset.json"), "--actual", str(EXAMPLE / "travel.actual.json")]
    result = runner.invoke(main, [*args, "--config", str(config), "--no-cache", "--runs-dir", str(runs)])
    assert result.exit_code in (0, 1), result.output
    return runs


def _labels(tmp_path: Path, *lines: dict) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


LABELS = (
    {"eval_id": "weather_paris", "criterion": JUDGED, "label": "pass"},
    {"eval_id": "hotel_tokyo_ja", "criterion": JUDGED, "label": "fail", "note": "wrong hotel"},
    {
        "eval_id": "flight_then_currency",
        "criterion": JUDGED,
        "label": "pass",
        "invocation_id": "e-7d2e9c11",
    },
    {"eval_id": "nowhere", "criterion": JUDGED, "label": "pass"},
)


def test_the_card_compares_each_label_with_the_judge_and_is_kept(runner, recorded, tmp_path):
    labels = _labels(tmp_path, *LABELS)
    result = runner.invoke(
        main,
        ["calibrate", "latest", "--labels", str(labels), "--runs-dir", str(recorded), "--format", "json"],
    )
    assert result.exit_code == 0, result.output
    (card,) = json.loads(result.stdout)["cards"]
    assert card["criterion"] == JUDGED and card["n"] == 3
    # The fake judge passed all three; people failed one: 2 of 3 agree, base rate 2/3.
    assert card["accuracy"]["estimate"] == pytest.approx(2 / 3)
    assert card["base_rate"] == pytest.approx(2 / 3) and card["judge_rate"] == 1.0
    assert card["kappa"] == 0.0  # the judge passes everything: no agreement beyond chance
    assert card["sensitivity"]["estimate"] == 1.0 and card["specificity"]["estimate"] == 0.0
    assert card["unmatched"] == [{"line": 4, "eval_id": "nowhere", "reason": "no_case"}]
    run = find_run(recorded)
    entry = next(e for e in run.manifest.eval_sets[0].criteria if e.name == JUDGED)
    assert card["judge_models"] == entry.judge_models and card["judge_models"]
    judged = next(c for c in run.result().cases() if c.eval_id == "weather_paris").criteria[0]
    assert card["prompt_sha256"] == judged.details["prompt_sha256"] and card["prompt_version"]
    kept = json.loads((run.folder / CALIBRATION_FILE).read_text())["cards"]
    assert kept == [card]
    assert CalibrationCard.model_validate(card).current_for(entry, card["prompt_sha256"]) is None


def test_a_card_is_stale_for_another_prompt_model_or_version(runner, recorded, tmp_path):
    runner.invoke(
        main,
        ["calibrate", "latest", "--labels", str(_labels(tmp_path, *LABELS)), "--runs-dir", str(recorded)],
    )
    run = find_run(recorded)
    card = CalibrationCard.model_validate(json.loads((run.folder / CALIBRATION_FILE).read_text())["cards"][0])
    entry = next(e for e in run.manifest.eval_sets[0].criteria if e.name == JUDGED)
    changed = entry.model_copy(update={"judge_models": ["openai:gpt-4o"], "version": "9.9"})
    stale = card.current_for(changed, "0" * 64)
    assert stale is not None and "judge model" in stale and "version" in stale and "prompt" in stale


def test_the_table_shows_kappa_with_its_interval_and_the_base_rate(runner, recorded, tmp_path):
    labels = _labels(tmp_path, *LABELS)
    result = runner.invoke(
        main, ["calibrate", "latest", "--labels", str(labels), "--runs-dir", str(recorded)]
    )
    assert result.exit_code == 0, result.output
    assert "3 labelled verdict(s): people passed 67%, judge 100%" in result.stdout
    assert "Cohen's kappa 0.00 [" in result.stdout and "(95% interval); accuracy 0.67 [" in result.stdout
    assert "1 label(s) not compared: 1 no_case" in result.stdout
    assert "calibration card(s) kept in" in result.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json\n", "labels.jsonl:1:2: not JSON"),
        ('{"eval_id": "a", "criterion": "c", "label": "ok"}\n', '\'label\' must be "pass" or "fail"'),
        ('{"eval_id": "a", "label": "pass"}\n', "'criterion' is missing"),
        ('{"eval_id": "a", "criterion": "c", "label": "pass", "scroe": 1}\n', "unknown key 'scroe'"),
        (
            '{"eval_id": "a", "criterion": "c", "label": "pass", "score": 2}\n',
            "'score' must be a number from 0 to 1",
        ),
        ("\n\n", "no labels"),
        (
            '{"eval_id": "a"}\n{"eval_id": "\udcff"}\n',
            "labels.jsonl: 2:14: the file is not valid UTF-8 (byte 0xff)",
        ),
        (
            '{"eval_id": null, "criterion": "c", "label": "pass"}\n',
            "labels.jsonl:1:1: 'eval_id' must be a non-empty",
        ),
        ('{"eval_id": "a", "criterion": null, "label": "pass"}\n', "'criterion' must be a non-empty string"),
        (
            '{"eval_id": "a", "criterion": "c", "label": "pass"}\n'
            '{"eval_id": "a", "criterion": "c", "label": "fail"}\n',
            "labels.jsonl:2:1: a second label for case 'a', criterion 'c' (the first is on line 1)",
        ),
    ],
)
def test_a_bad_labels_file_names_the_line_and_the_fix(text, message, tmp_path, runner):
    path = tmp_path / "labels.jsonl"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))  # (a lone surrogate: a byte not UTF-8)
    with pytest.raises(DataError) as caught:
        read_labels(path)
    assert message in str(caught.value)


def test_a_bad_labels_file_or_no_labelled_criterion_exits_2(runner, recorded, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("[1]\n")
    result = runner.invoke(main, ["calibrate", "latest", "--labels", str(bad), "--runs-dir", str(recorded)])
    assert result.exit_code == 2 and "bad.jsonl:1:1: expected one JSON object a line" in result.output
    assert "Traceback" not in result.output
    other = _labels(tmp_path, {"eval_id": "weather_paris", "criterion": "rubric_x", "label": "pass"})
    result = runner.invoke(main, ["calibrate", "latest", "--labels", str(other), "--runs-dir", str(recorded)])
    assert result.exit_code == 2 and "has none of the labelled criteria ('rubric_x')" in result.output


def test_the_markdown_report_shows_the_judges_tokens_and_the_card(runner, recorded, tmp_path):
    from agenteval_builtin.reporters.markdown import render_markdown

    labels = _labels(tmp_path, *LABELS)
    runner.invoke(main, ["calibrate", "latest", "--labels", str(labels), "--runs-dir", str(recorded)])
    run = find_run(recorded)
    text = render_markdown(run)
    judge = run.summary().summary.judge
    assert f"- Judge: {judge.calls} call(s), 0 from cache; {judge.input_tokens} input + " in text
    assert (
        f"- Calibration of `{JUDGED}` against 3 human label(s): Cohen's κ 0.00 [0.00, 0.00], "
        "people passed 67%, judge 100%, accuracy 67% (gemini-2.5-flash, agenteval-llm-judges@" in text
    )
