"""``agenteval run`` with judge criteria, end to end: the CLI, the judge service, the real
google-genai SDK and our fake Gemini server (which answers with an instance of each request's
own JSON schema, or with scripted faults)."""

from __future__ import annotations

import json
from pathlib import Path

from agenteval.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "travel"
CRITERIA = "final_response_match_v2,hallucinations_v1"


def _run(runner, tmp_path: Path, *extra: str):
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "criteria": {
                    "final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"num_samples": 3}},
                    "hallucinations_v1": {"threshold": 0.5},
                    "tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER"},
                }
            }
        )
    )
    args = ["run", str(EXAMPLE / "travel.evalset.json"), "--actual", str(EXAMPLE / "travel.actual.json")]
    args += ["--config", str(config), "--cache-dir", str(tmp_path / "cache"), "--format", "json", *extra]
    result = runner.invoke(main, args)
    return result, (json.loads(result.stdout) if result.stdout.strip().startswith("{") else None)


def test_judge_criteria_end_to_end_and_the_second_run_is_free(runner, judge_server, tmp_path):
    result, doc = _run(runner, tmp_path, "--criteria", CRITERIA)
    assert result.exit_code == 0, result.output
    judged = [r for c in doc["eval_sets"][0]["cases"] for r in c["criteria"]]
    assert {r["criterion"] for r in judged} == {"final_response_match_v2", "hallucinations_v1"}
    assert all(
        r["status"] == "PASSED" and r["plugin"]["distribution"] == "agenteval-llm-judges" for r in judged
    )
    first = doc["summary"]["judge"]
    assert first["calls"] == len(judge_server.requests) > 0 and first["cache_hits"] == 0
    assert first["input_tokens"] > 0
    # What was sent: a system instruction, the JSON mime type and a schema.
    body = judge_server.requests[0].body
    assert body["systemInstruction"] and body["generationConfig"]["responseMimeType"] == "application/json"
    sent = len(judge_server.requests)
    result, doc = _run(runner, tmp_path, "--criteria", CRITERIA)
    assert result.exit_code == 0
    assert doc["summary"]["judge"]["calls"] == 0
    assert doc["summary"]["judge"]["cache_hits"] == first["calls"]
    assert len(judge_server.requests) == sent


def test_faults_never_crash_the_run_and_are_reported_by_reason(
    runner, judge_server, tmp_path, schema_answers
):
    faults = schema_answers
    from agenteval_tests_fixtures_fake_llm_servers import Reply

    def responder(request):
        prompt = json.dumps(request.body)
        if "Paris" in prompt:  # every judge call about the weather case fails for good
            return Reply(status=500)
        if "Tokyo" in prompt and "hotel" not in prompt.lower():
            return Reply(raw_body="this is not json at all")
        return faults.answer_for(request.body)

    judge_server.responder = responder
    result, doc = _run(runner, tmp_path, "--criteria", CRITERIA + ",tool_trajectory_avg_score", "--no-cache")
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    cases = {c["eval_id"]: {r["criterion"]: r for r in c["criteria"]} for c in doc["eval_sets"][0]["cases"]}
    weather = cases["weather_paris"]
    assert weather["final_response_match_v2"]["status"] == "NOT_EVALUATED"
    assert weather["tool_trajectory_avg_score"]["status"] == "PASSED"  # the deterministic one still scored
    assert cases["hotel_tokyo_ja"]["final_response_match_v2"]["status"] == "PASSED"
    summary = doc["summary"]
    assert summary["judge"]["failures"].get("judge_error", 0) > 0
    assert summary["judge"]["retries"] > 0
    reasons = {**summary["not_evaluated_reasons"], **summary["invocations_not_evaluated"]}
    assert any("judge" in code for code in reasons), reasons


def test_dry_run_counts_judge_calls_without_calling(runner, judge_server, tmp_path):
    config_result = _run(runner, tmp_path, "--criteria", "final_response_match_v2", "--dry-run")
    result = config_result[0]
    assert result.exit_code == 0, result.output
    assert "final_response_match_v2: 12 judge call(s)" in result.output  # 4 invocations x 3 samples
    assert judge_server.requests == []


def test_missing_credentials_stop_before_any_work(runner, clean_judge_env, tmp_path):
    result, _ = _run(runner, tmp_path, "--criteria", "final_response_match_v2")
    assert result.exit_code == 2
    assert "GOOGLE_API_KEY" in result.output
    assert "Traceback" not in result.output


def test_env_file_beside_the_eval_file_provides_judge_credentials(
    runner, clean_judge_env, fake_gemini, tmp_path, monkeypatch, schema_answers
):
    import shutil

    answers = schema_answers
    fake_gemini.responder = lambda request: answers.answer_for(request.body)
    folder = tmp_path / "evals"
    folder.mkdir()
    for name in ("travel.evalset.json", "travel.actual.json"):
        shutil.copy(EXAMPLE / name, folder / name)
    (folder / ".env").write_text(
        f"GOOGLE_API_KEY=from-dotenv\nGOOGLE_GEMINI_BASE_URL={fake_gemini.base_url}\n"
    )
    # Registered with monkeypatch first, so that what the .env sets is undone afterwards.
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_GEMINI_BASE_URL", raising=False)
    result = runner.invoke(
        main,
        [
            "run",
            f"{folder / 'travel.evalset.json'}:weather_paris",
            "--actual",
            str(folder / "travel.actual.json"),
            "--criteria",
            "final_response_match_v2",
            "--no-cache",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert fake_gemini.requests and fake_gemini.requests[0].headers.get("x-goog-api-key") == "from-dotenv"


def test_one_judge_service_can_serve_two_embedded_runs(judge_server, tmp_path):
    import agenteval
    from agenteval import JudgeCache, JudgeService

    judge = JudgeService(concurrency=4, cache=JudgeCache(tmp_path / "cache"))
    criteria = {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"num_samples": 2}}}
    evalset, actual = EXAMPLE / "travel.evalset.json", EXAMPLE / "travel.actual.json"
    first = agenteval.evaluate(evalset, actual, criteria, judge=judge)
    second = agenteval.evaluate(evalset, actual, criteria, judge=judge)
    assert first.summary.judge.calls == 8 and first.summary.judge.cache_hits == 0
    assert second.summary.judge.calls == 0 and second.summary.judge.cache_hits == 8
