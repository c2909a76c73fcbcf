"""``agenteval run --agent`` against what an attack tries: credentials that must not reach the
run folder, and agents that spin, write to or close file descriptor 1, or leave tasks behind
(those run in their own interpreter, since they are about the process's file descriptors,
threads and exit)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agenteval.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "travel"
EVALSET = EXAMPLE / "travel.evalset.json"


def _folder_text(folder: Path) -> str:
    return "\n".join(p.read_text("utf-8", "replace") for p in sorted(folder.rglob("*")) if p.is_file())


def test_a_key_in_the_agent_url_reaches_neither_the_manifest_nor_the_html_report(
    runner, fake_openai, tmp_path
):
    key = "sk-in-the-agent-url-4242"
    fake_openai.responder = lambda request: f"I was called with {key}"  # an agent echoing its key
    html = tmp_path / "html"
    result = runner.invoke(
        main,
        [
            "run", str(EVALSET), "--agent", f"{fake_openai.base_url}/v1?model=travel&api_key={key}",
            "--runs-dir", str(tmp_path / "runs"), "--report", "html", "--report-dir", str(html),
            "--format", "json",
        ],
    )  # fmt: skip
    assert result.exit_code == 1, result.output  # the echo is not the expected answer
    [folder] = (tmp_path / "runs").iterdir()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["agent"]["target"] == f"{fake_openai.base_url}/v1?model=travel&api_key=***"
    [report] = html.glob("*.html")
    assert "api_key=***" in report.read_text()
    assert key not in _folder_text(folder) + _folder_text(html) + result.output


def test_a_key_in_a_judge_model_config_is_not_copied_into_the_manifest(runner, judge_server, tmp_path):
    key = "sk-in-the-judge-config-4243"
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "criteria": {
                    "final_response_match_v2": {
                        "threshold": 0.5,
                        "judge_model_options": {
                            "num_samples": 1,
                            "judge_model_config": {"api_key": key, "temperature": 0},
                        },
                    }
                }
            }
        )
    )
    runner.invoke(
        main,
        [
            "run", str(EVALSET), "--actual", str(EXAMPLE / "travel.actual.json"), "--config", str(config),
            "--runs-dir", str(tmp_path / "runs"), "--cache-dir", str(tmp_path / "cache"), "--format", "json",
        ],
    )  # fmt: skip
    [folder] = (tmp_path / "runs").iterdir()
    manifest = json.loads((folder / "manifest.json").read_text())
    [criterion] = manifest["eval_sets"][0]["criteria"]
    config = criterion["params"]["judge_model_options"]["judge_model_config"]
    assert config == {"api_key": "***", "temperature": 0}
    assert key not in _folder_text(folder) + _folder_text(tmp_path / "cache")


# -- agents run by the real command, in their own interpreter ------------------------------
def _agenteval(
    tmp_path: Path, agent: str, *options: str, timeout: float = 180
) -> subprocess.CompletedProcess:
    """``agenteval run`` of the travel cases against ``agent`` (a module defining ``respond``)."""
    (tmp_path / "agent.py").write_text(agent)
    return subprocess.run(
        [sys.executable, "-m", "agenteval", "run", str(EVALSET), "--agent", "agent.py:respond", "--no-record",
         "-q", *options],
        capture_output=True, text=True, timeout=timeout, cwd=tmp_path,
    )  # fmt: skip


def _json_report(done: subprocess.CompletedProcess) -> dict:
    try:
        return json.loads(done.stdout)
    except ValueError:
        raise AssertionError(f"stdout is not JSON: {done.stdout[:500]!r}\n{done.stderr[-2000:]}") from None


def _agent_runs(report: dict) -> dict:
    return {case["eval_id"]: case["agent_runs"][0] for case in report["eval_sets"][0]["cases"]}


_BLOCKS_ITS_LOOP = """
import asyncio, time

async def ticks():
    while True:
        time.sleep(0.6)  # blocks the adapter's event loop past the stall limit
        yield 1
        await asyncio.sleep(0)

async def respond(message, history):
    async for _ in ticks():
        pass
"""


def test_a_timed_out_async_agent_leaves_nothing_on_stderr_after_the_report(tmp_path):
    done = _agenteval(tmp_path, _BLOCKS_ITS_LOOP, "--agent-timeout", "1", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert {run["error_code"] for run in _agent_runs(_json_report(done)).values()} == {"agent_timeout"}
    for noise in ("Task was destroyed", "Traceback", "Exception ignored", "GeneratorExit"):
        assert noise not in done.stderr, done.stderr
