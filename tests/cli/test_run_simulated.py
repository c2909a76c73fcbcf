"""``agenteval run --agent`` on conversation scenarios: the ``llm_backed`` user simulator plays
the user through the real google-genai SDK against the fake Gemini server, the judge scores
the simulated turns, and ``--num-runs`` plays each scenario once per run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agenteval.cli import main

AGENT = "def respond(message, history):\n    return f'Noted ({len(history) + 1}): {message}'\n"
PLAN = "Ask for a table for two at 8pm, then ask about vegan options, then stop."


@pytest.fixture
def server(gemini_env, monkeypatch, schema_answers):
    """Judge requests (with a response schema) get schema answers; simulator requests (free
    text) get a user message, and the stop signal once the agent has answered twice."""
    monkeypatch.setenv("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "0.01")
    answers = schema_answers

    def respond(request):
        config = request.body.get("generationConfig", {})
        if "responseSchema" in config or "responseJsonSchema" in config:
            return answers.answer_for(request.body)
        prompt = request.body["contents"][0]["parts"][0]["text"]
        return "Thanks, that is all. </finished>" if "Noted (2)" in prompt else "Do you have vegan options?"

    gemini_env.responder = respond
    return gemini_env


def _project(tmp_path: Path, simulator: dict) -> Path:
    folder = tmp_path / "restaurant"
    folder.mkdir()
    (folder / "agent.py").write_text(AGENT)
    case = {
        "eval_id": "booking",
        "conversation_scenario": {
            "starting_prompt": "Hi, a table for two at 8pm?",
            "conversation_plan": PLAN,
        },
    }
    fixed = {
        "eval_id": "greeting",
        "conversation": [
            {
                "invocation_id": "g1",
                "user_content": {"role": "user", "parts": [{"text": "hello"}]},
                "final_response": {"role": "model", "parts": [{"text": "Noted (1): hello"}]},
            }
        ],
    }
    (folder / "restaurant.evalset.json").write_text(
        json.dumps({"eval_set_id": "r", "eval_cases": [case, fixed]})
    )
    config = {
        "criteria": {
            "per_turn_user_simulator_quality_v1": {
                "threshold": 0.5,
                "judge_model_options": {"num_samples": 1},
            },
            "tool_call_count_v1": {},
        },
        "user_simulator_config": simulator,
    }
    (folder / "test_config.json").write_text(json.dumps(config))
    return folder


def _run(runner, folder: Path, tmp_path: Path, *extra: str):
    args = [
        "run",
        str(folder),
        "--agent",
        str(folder),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--format",
        "json",
    ]
    result = runner.invoke(main, [*args, *extra])
    return result, json.loads(result.stdout) if result.stdout.startswith("{") else None


def test_a_scenario_is_played_by_the_simulator_and_judged(runner, server, tmp_path):
    folder = _project(tmp_path, {"model": "gemini-2.5-flash", "max_allowed_invocations": 5})
    result, doc = _run(runner, folder, tmp_path)
    cases = {c["eval_id"]: c for c in doc["eval_sets"][0]["cases"]}
    # The simulator-quality criterion has no scenario to judge in the fixed case: exit 1.
    assert result.exit_code == 1, result.output
    greeting = cases["greeting"]["criteria"][0]
    assert greeting["status"] == "NOT_EVALUATED" and greeting["reason_code"], greeting
    assert cases["booking"]["status"] == "PASSED"
    booking = cases["booking"]
    (run,) = booking["agent_runs"]
    assert [i["user_content"]["parts"][0]["text"] for i in run["invocations"]] == [
        "Hi, a table for two at 8pm?",
        "Do you have vegan options?",
    ]
    assert run["simulation"]["status"] == "stop_signal_detected"
    assert run["simulation"]["prompt_version"].startswith("llm_backed_user_simulator/")
    quality = booking["criteria"][0]
    assert quality["criterion"] == "per_turn_user_simulator_quality_v1" and quality["status"] == "PASSED"
    # The fixed case next to it is replayed as usual; the simulator is not asked.
    assert cases["greeting"]["agent_runs"][0]["simulation"] is None
    # The simulator's model calls are part of the run's judge activity, and shown apart.
    summary = doc["summary"]
    assert summary["user_simulator"]["calls"] == 2
    judged = sum(c["judge"]["calls"] for c in summary["criteria"] if c["judge"])
    assert summary["judge"]["calls"] == judged + 2
    table = runner.invoke(
        main, ["run", str(folder), "--agent", str(folder), "--cache-dir", str(tmp_path / "c2")]
    )
    assert "(of which the user simulator: 2 call(s), 0 from cache)" in " ".join(table.output.split())


def test_each_run_plays_the_scenario_again(runner, server, tmp_path):
    folder = _project(tmp_path, {"model": "gemini-2.5-flash"})
    result, doc = _run(runner, folder, tmp_path, "--num-runs", "2", "--criteria", "tool_call_count_v1")
    assert result.exit_code == 0, result.output
    booking = doc["eval_sets"][0]["cases"][0]
    assert [r["simulation"]["run_index"] for r in booking["agent_runs"]] == [0, 1]
    assert all(len(r["invocations"]) == 2 for r in booking["agent_runs"])


def test_a_bad_simulator_config_stops_the_run_before_the_agent_runs(runner, server, tmp_path):
    folder = _project(tmp_path, {"type": "llm_audio"})
    result, _ = _run(runner, folder, tmp_path)
    assert result.exit_code == 2
    assert "test_config.json" in result.output and "llm_audio" in result.output
    assert server.requests == []


def test_a_simulator_that_cannot_answer_makes_only_that_case_errored(
    runner, gemini_env, tmp_path, monkeypatch
):
    monkeypatch.setenv("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "0.01")
    gemini_env.responder = lambda request: ""  # an empty reply: no user message to send
    folder = _project(tmp_path, {"model": "gemini-2.5-flash"})
    result, doc = _run(runner, folder, tmp_path, "--criteria", "tool_call_count_v1")
    assert result.exit_code == 1
    cases = {c["eval_id"]: c for c in doc["eval_sets"][0]["cases"]}
    (criterion,) = cases["booking"]["criteria"]
    assert criterion["status"] == "ERRORED" and criterion["reason_code"] == "user_simulator_error"
    assert not criterion["reason"].startswith("the agent failed")
    assert cases["greeting"]["status"] == "INFORMATIONAL"


def test_dry_run_counts_conversations_and_simulator_calls(runner, server, tmp_path):
    folder = _project(tmp_path, {"model": "gemini-2.5-flash", "max_allowed_invocations": 4})
    result = runner.invoke(main, ["run", str(folder), "--agent", str(folder), "--num-runs", "3", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "the agent: 2 case(s) x 3 run(s) = 6 conversation(s)" in result.output
    assert "the user simulator: 9 judge call(s)" in result.output  # 1 scenario x 3 messages x 3 runs
    assert server.requests == []
    (tmp_path / "u").mkdir()
    unlimited = _project(tmp_path / "u", {"model": "gemini-2.5-flash", "max_allowed_invocations": -1})
    result = runner.invoke(main, ["run", str(unlimited), "--agent", str(unlimited), "--dry-run"])
    assert "calls not bounded" in result.output
