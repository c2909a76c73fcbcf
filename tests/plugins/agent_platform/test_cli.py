"""``agenteval run`` on an agents-cli layout and ``agenteval export`` both ways."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from agenteval._loading import read_eval_file
from agenteval.cli import main
from agenteval_agent_platform._writer import dataset_json
from click.testing import CliRunner

HERE = Path(__file__).parent
DATASET = HERE / "fixtures" / "shop_agent" / "tests" / "eval" / "datasets" / "orders-dataset.json"
WEATHER = HERE.parents[2] / "examples" / "adk_weather" / "weather.evalset.json"

_AGENT = """
ANSWERS = {
    "When does the Lyon shop open on Sunday?": "The Lyon shop opens at 10:00 on Sunday.",
    "Where is order 7781?": "No idea.",
}

def respond(message, history):
    return ANSWERS.get(message, "Return label for order 5521 sent by email.")
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An agents-cli project: ``tests/eval/datasets/orders-dataset.json`` and ``agent.py``."""
    datasets = tmp_path / "tests" / "eval" / "datasets"
    datasets.mkdir(parents=True)
    shutil.copy(DATASET, datasets)
    (tmp_path / "agent.py").write_text(_AGENT)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _scores(*args: str) -> dict[str, tuple[float, str]]:
    result = CliRunner().invoke(main, ["run", *args, "--format", "json", "--no-record", "-q"])
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    return {
        case["eval_id"]: (r["score"], r["status"])
        for eval_set in doc["eval_sets"]
        for case in eval_set["cases"]
        for r in case["criteria"]
    }


def test_a_folder_of_agents_cli_datasets_runs_with_the_agent(project):
    scores = _scores(".", "--agent", "agent.py:respond", "--criteria", "response_match_score")
    assert scores["opening_hours"] == (1.0, "PASSED")
    assert scores["order_status"][1] == "FAILED"


def test_recorded_responses_are_scored_without_running_the_agent(project):
    dataset = "tests/eval/datasets/orders-dataset.json"
    scores = _scores(".", "--actual", dataset, "--criteria", "response_match_score")
    assert scores["opening_hours"] == (1.0, "PASSED")
    assert set(scores) == {"opening_hours", "order_status", "return_follow_up"}


def test_a_dataset_whose_cases_all_carry_responses_is_scored_without_actual_or_agent(project):
    dataset = "tests/eval/datasets/orders-dataset.json"
    result = CliRunner().invoke(
        main, ["run", dataset, "--criteria", "response_match_score", "--no-record", "-q", "--format", "json"]
    )
    assert result.exit_code in (0, 1), result.output
    assert f"no --actual or --agent: scoring the responses recorded in {dataset}" in result.stderr
    assert _scores(dataset, "--criteria", "response_match_score") == _scores(
        dataset, "--actual", dataset, "--criteria", "response_match_score"
    )
    assert _scores(f"{dataset}:opening_hours", "--criteria", "response_match_score") == {
        "opening_hours": (1.0, "PASSED")
    }
    assert set(_scores("tests/eval/datasets", "--criteria", "response_match_score")) == {
        "opening_hours",
        "order_status",
        "return_follow_up",
    }


@pytest.mark.parametrize("extra", ["unanswered", "adk"])
def test_without_a_recording_for_every_case_the_run_asks_for_actual_or_agent(project, extra):
    datasets = project / "tests" / "eval" / "datasets"
    if extra == "unanswered":
        data = json.loads((datasets / "orders-dataset.json").read_text())
        del data["eval_cases"][0]["responses"]
        (datasets / "orders-dataset.json").write_text(json.dumps(data))
        target = "tests/eval/datasets/orders-dataset.json"
    else:
        shutil.copy(WEATHER, project)
        target = WEATHER.name
    result = CliRunner().invoke(main, ["run", target, "--no-record"])
    assert result.exit_code == 2
    assert "say where the agent's turns come from: --agent TARGET" in result.output
    assert "scoring the responses recorded" not in result.output


def test_the_history_is_context_and_only_the_judged_turn_is_scored(project):
    dataset = "tests/eval/datasets/orders-dataset.json"
    result = CliRunner().invoke(
        main,
        ["run", dataset, "--actual", dataset, "--criteria", "response_match_score", "--format", "json"]
        + ["--no-record", "-q"],
    )
    doc = json.loads(result.stdout)
    [case] = [c for s in doc["eval_sets"] for c in s["cases"] if c["eval_id"] == "return_follow_up"]
    [criterion] = case["criteria"]
    [judged] = criterion["per_invocation"]
    assert judged["index"] == 1  # the history's turn (identical in both) is not scored
    assert criterion["score"] == judged["score"] < 0.9


def test_a_bad_dataset_stops_the_run_before_any_work_naming_the_field(project):
    bad = project / "tests" / "eval" / "datasets" / "bad-dataset.json"
    bad.write_text(
        json.dumps({"eval_cases": [{"eval_case_id": "b", "prompt": {"role": "bot", "parts": []}}]})
    )
    result = CliRunner().invoke(main, ["run", ".", "--agent", "agent.py:respond", "--no-record"])
    assert result.exit_code == 2
    assert "bad-dataset.json" in result.output
    assert "eval_cases[0].prompt.role: unknown role 'bot'" in result.output


def test_export_to_agent_platform_and_back(tmp_path):
    runner = CliRunner()
    out = tmp_path / "datasets"
    done = runner.invoke(main, ["export", str(WEATHER), "--to", "agent-platform", "-o", str(out)])
    assert done.exit_code == 0, done.output
    written = out / "weather-dataset.json"
    assert written.read_text(encoding="utf-8") == dataset_json(read_eval_file(WEATHER).eval_set, [])
    assert "warning: eval set 'weather': not in an Agent Platform dataset: name, description" in done.stderr
    assert f"wrote {written} (3 case(s))" in done.stdout
    back = tmp_path / "adk"
    done = runner.invoke(main, ["export", str(written), "--to", "adk", "-o", str(back)])
    assert done.exit_code == 0, done.output
    again = read_eval_file(back / "weather.evalset.json").eval_set
    assert [c.eval_id for c in again.eval_cases] == [
        c.eval_id for c in read_eval_file(WEATHER).eval_set.eval_cases
    ]


def test_export_to_an_unknown_format_exits_2_naming_the_writers(tmp_path):
    done = CliRunner().invoke(main, ["export", str(WEATHER), "--to", "nope", "-o", str(tmp_path)])
    assert done.exit_code == 2
    assert "'nope'" in done.output and "agent-platform" in done.output


def test_export_of_a_turn_time_no_dataset_can_hold_exits_2_naming_it(tmp_path):
    source = tmp_path / "far.evalset.json"
    turn = {"user_content": {"parts": [{"text": "hi"}]}, "creation_timestamp": 1e300}
    last = {"user_content": {"parts": [{"text": "bye"}]}}
    source.write_text(
        json.dumps({"eval_set_id": "far", "eval_cases": [{"eval_id": "c", "conversation": [turn, last]}]})
    )
    done = CliRunner().invoke(
        main, ["export", str(source), "--to", "agent-platform", "-o", str(tmp_path / "o")]
    )
    assert done.exit_code == 2
    assert f"{source}: eval_cases[0].conversation[0].creation_timestamp: 1e+300 is not a time" in done.output


_REMEMBERING_AGENT = """
import json, pathlib

def respond(message, history):
    said = [(t.user_content.text(), t.final_text()) for t in history]
    with pathlib.Path("calls.jsonl").open("a") as log:
        log.write(json.dumps({"message": message, "history": said}) + "\\n")
    asked = [("I want to return a jacket.", "Sure. What is the order number?")]
    if said == asked and message == "It is 5521.":
        return "Return label for order 5521 sent by email."
    return "Which order do you mean?"
"""


def test_with_the_agent_a_case_s_history_reaches_the_agent_and_only_its_prompt_is_played(project):
    (project / "agent.py").write_text(_REMEMBERING_AGENT)
    dataset = "tests/eval/datasets/orders-dataset.json"
    result = CliRunner().invoke(
        main,
        ["run", dataset, "--agent", "agent.py:respond", "--criteria", "response_match_score"]
        + ["--format", "json", "--no-record", "-q"],
    )
    assert result.exit_code in (0, 1), result.output
    doc = json.loads(result.stdout)
    [case] = [c for s in doc["eval_sets"] for c in s["cases"] if c["eval_id"] == "return_follow_up"]
    [criterion] = case["criteria"]
    assert (criterion["score"], criterion["status"]) == (1.0, "PASSED")
    assert [judged["index"] for judged in criterion["per_invocation"]] == [1]
    calls = [json.loads(line) for line in (project / "calls.jsonl").read_text().splitlines()]
    # one call for this case (the history is not played again), with the dataset's history
    history = [["I want to return a jacket.", "Sure. What is the order number?"]]
    assert [c for c in calls if c["history"]] == [{"message": "It is 5521.", "history": history}]
    assert len(calls) == 3  # one per case


def test_export_to_adk_says_that_a_history_becomes_scored_turns(tmp_path):
    result = CliRunner().invoke(main, ["export", str(DATASET), "--to", "adk", "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert (
        "warning: eval_cases[2] (return_follow_up): its first 1 turn(s) are history, context that is not "
        "scored; an ADK eval set has no history" in result.stderr
    )
    assert "eval_cases[0]" not in result.stderr  # a case without history exports silently


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("cut-dataset.json", '{"eval_cases": [{"prompt": "hi", "respo', "invalid JSON"),
        ("nan-dataset.jsonl", '{"prompt": "hi", "response": NaN}\n', "NaN is not JSON"),
        (
            "ragged-dataset.csv",
            "prompt,response\nhi,hello,extra\n",
            "row 2: 3 cells where the header names 2",
        ),
    ],
)
def test_a_damaged_dataset_run_without_actual_says_what_is_wrong_with_it(project, name, content, message):
    """Without ``--actual`` a dataset's own responses are scored: a damaged one is refused
    for its damage (file and place), not for the missing ``--actual``."""
    (project / name).write_text(content)
    result = CliRunner().invoke(main, ["run", name, "--no-record"])
    assert result.exit_code == 2, result.output
    assert f"error: {name}" in result.output and message in result.output, result.output
    assert "say where the agent's turns come from" not in result.output
