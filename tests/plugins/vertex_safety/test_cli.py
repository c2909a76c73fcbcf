"""``safety_v1`` through the ``agenteval`` CLI: the documented example against both fakes,
preflight exit codes, ``.env`` loading, and what gets imported."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from agenteval.cli import main
from agenteval_tests_fixtures_fake_vertex_eval import keyword_responder
from agenteval_tests_fixtures_schema_answers import answer_for
from click.testing import CliRunner

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "travel"


def _run(*args: str, folder: Path = EXAMPLE):
    argv = ["run", str(folder / "travel.evalset.json"), "--actual", str(folder / "travel.actual.json"), *args]
    return CliRunner().invoke(main, argv)


@pytest.fixture(autouse=True)
def no_judge_cache(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # the default judge cache (.agenteval/) lands here


def test_documented_example_end_to_end(gemini_env, vertex_safety_env, tmp_path):
    gemini_env.responder = lambda request: answer_for(request.body)
    vertex_safety_env.responder = keyword_responder()
    out = tmp_path / "result.json"
    result = _run("--criteria", "hallucinations_v1,safety_v1", "--format", "json", "--output", str(out))
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.output
    document = json.loads(out.read_text(encoding="utf-8"))
    cases = document["eval_sets"][0]["cases"]
    safety = [c for case in cases for c in case["criteria"] if c["criterion"] == "safety_v1"]
    hallucinations = [c for case in cases for c in case["criteria"] if c["criterion"] == "hallucinations_v1"]
    assert safety and all(c["status"] == "PASSED" and c["score"] == 1.0 for c in safety), safety
    assert hallucinations and all(c["status"] != "ERRORED" for c in hallucinations)
    assert gemini_env.requests and vertex_safety_env.requests
    sent = [r.body["instance"]["response"]["text"] for r in vertex_safety_env.requests]
    actual = json.loads((EXAMPLE / "travel.actual.json").read_text(encoding="utf-8"))
    finals = [
        "".join(p.get("text", "") for p in inv["final_response"]["parts"])
        for case in actual["eval_cases"]
        for inv in case["conversation"]
        if inv.get("final_response")
    ]
    assert sorted(sent) == sorted(f for f in finals if f.strip())


@pytest.mark.parametrize(
    ("unset", "fragment"),
    [("GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_PROJECT is not set"), ("GOOGLE_CLOUD_LOCATION", "not set")],
)
def test_preflight_exit_2_without_traceback(vertex_safety_env, monkeypatch, unset, fragment):
    monkeypatch.delenv(unset)
    result = _run("--criteria", "safety_v1")
    assert result.exit_code == 2, result.output
    assert fragment in result.output
    assert "gcloud auth application-default login" in result.output
    assert "Traceback" not in result.output
    assert vertex_safety_env.requests == []


def test_preflight_missing_adc_exit_2(vertex_safety_env, monkeypatch):
    monkeypatch.delenv("AGENTEVAL_VERTEX_EVAL_ENDPOINT")
    result = _run("--criteria", "safety_v1")
    assert result.exit_code == 2, result.output
    assert "no Application Default Credentials were found" in result.output
    assert "Traceback" not in result.output


def test_project_and_location_from_a_dotenv_beside_the_eval_files(vertex_safety_env, tmp_path):
    """Run in a subprocess: ``.env`` values land in ``os.environ``."""
    folder = tmp_path / "agent"
    folder.mkdir()
    for name in ("travel.evalset.json", "travel.actual.json"):
        shutil.copy(EXAMPLE / name, folder / name)
    (folder / ".env").write_text("GOOGLE_CLOUD_PROJECT=dotenv-project\nGOOGLE_CLOUD_LOCATION=asia-east1\n")
    env = {k: v for k, v in os.environ.items() if k not in ("GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION")}
    argv = [
        sys.executable, "-m", "agenteval", "run", str(folder / "travel.evalset.json"),
        "--actual", str(folder / "travel.actual.json"), "--criteria", "safety_v1",
    ]  # fmt: skip
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert vertex_safety_env.requests
    assert all(
        r.path.startswith("/v1beta1/projects/dotenv-project/locations/asia-east1:")
        for r in vertex_safety_env.requests
    )


_PROBE = """
import sys
from agenteval.cli import main
try:
    main({args!r}, standalone_mode=True)
except SystemExit:
    pass
def stub(name):
    # google-cloud-aiplatform's *-nspkg.pth makes empty ``google`` / ``google.cloud`` namespace
    # modules at interpreter start-up (no __file__): nothing of the SDK is imported by that.
    module = sys.modules[name]
    return getattr(module, '__file__', None) is None and hasattr(module, '__path__')
bad = sorted(m for m in sys.modules if m.startswith(('google.cloud', 'google.genai', 'vertexai'))
             and not stub(m) or m == 'agenteval_vertex_safety.provider')
sys.stderr.write('\\nIMPORTED=' + ','.join(bad) + '\\n')
"""


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["criteria", "list"],
        [
            "run",
            str(EXAMPLE / "travel.evalset.json"),
            "--actual",
            str(EXAMPLE / "travel.actual.json"),
            "--criteria",
            "response_match_score",
        ],
    ],  # fmt: skip
    ids=["help", "criteria-list", "deterministic-run"],
)
def test_no_google_sdk_imported(args, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE.format(args=args)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("IMPORTED=")]
    assert lines, proc.stderr
    assert lines[-1] == "IMPORTED=", lines[-1]
