"""Opt-in: the bundled ADK example on a real Gemini model, through ``agenteval run --agent``,
with a conversation scenario played by the real ``llm_backed`` user simulator.

Runs only with ``AGENTEVAL_LIVE=1`` and Gemini credentials (``GOOGLE_API_KEY`` /
``GEMINI_API_KEY``, or Vertex AI settings); the model is ``AGENTEVAL_LIVE_GEMINI_MODEL``
(default ``gemini-2.5-flash``). Real models vary, so the test checks that everything ran and
was scored, not the scores themselves.

    AGENTEVAL_LIVE=1 GOOGLE_API_KEY=... python -m pytest -m live tests/plugins/adk
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from agenteval.cli import main
from click.testing import CliRunner

pytestmark = pytest.mark.live

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "adk_weather"
LIVE = os.environ.get("AGENTEVAL_LIVE") == "1"
GEMINI_CONFIGURED = bool(
    os.environ.get("GOOGLE_API_KEY")
    or os.environ.get("GEMINI_API_KEY")
    or os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in ("true", "1")
)


@pytest.mark.skipif(not (LIVE and GEMINI_CONFIGURED), reason="set AGENTEVAL_LIVE=1 and GOOGLE_API_KEY")
def test_live_adk_agent_and_user_simulator(tmp_path, monkeypatch):
    model = os.environ.get("AGENTEVAL_LIVE_GEMINI_MODEL", "gemini-2.5-flash")
    monkeypatch.setenv("ADK_EXAMPLE_MODEL", model)
    agent = tmp_path / "adk_weather"
    shutil.copytree(EXAMPLE, agent, ignore=shutil.ignore_patterns("__pycache__", "*.evalset.json"))
    scenario = {
        "eval_id": "live_scenario",
        "conversation_scenario": {
            "starting_prompt": "What's the weather in Paris right now?",
            "conversation_plan": "Ask about the weather in Paris, then Tokyo, then say thanks and stop.",
        },
    }
    (agent / "live.evalset.json").write_text(json.dumps({"eval_set_id": "live", "eval_cases": [scenario]}))
    (agent / "test_config.json").write_text(
        json.dumps(
            {
                "criteria": {"tool_call_count_v1": {}},
                "user_simulator_config": {"model": model, "max_allowed_invocations": 4},
            }
        )
    )
    result = CliRunner().invoke(
        main,
        [
            "run",
            str(agent),
            "--agent",
            str(agent),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    (case,) = json.loads(result.stdout)["eval_sets"][0]["cases"]
    (run,) = case["agent_runs"]
    assert 1 <= len(run["invocations"]) <= 4 and run["simulation"]["status"]
    assert all(i["final_response"] for i in run["invocations"])
