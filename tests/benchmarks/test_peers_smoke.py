"""Smoke tests of ``benchmarks/peers.py`` and its ``_peer_runner.py``: small inputs, figures
printed, verdicts compared. No timing assertions (figures depend on the machine)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import _peer_runner  # noqa: E402  (a benchmark script beside scale.py)


def test_peers_prints_agenteval_and_says_which_peers_were_skipped() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "peers.py"), "--sizes", "40", "--repeats", "1", "--settle", "0"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert {line.split(":")[0] for line in lines if "skipped" in line} == {"agentevals", "deepeval", "adk"}
    row = next(line.split() for line in lines if line.split()[:2] == ["40", "agenteval"])
    assert float(row[2]) > 0 and row[4] == "1.00"
    assert "of 40 passed" in " ".join(row)


@pytest.mark.skipif(importlib.util.find_spec("google.adk") is None, reason="google-adk is not installed")
def test_adk_script_reaches_agenteval_verdicts() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "peers.py"), "--sizes", "60", "--repeats", "1", "--settle", "0"]
        + ["--adk-python", sys.executable],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    adk = next(line for line in done.stdout.splitlines() if line.split()[:2] == ["60", "adk"])
    assert "same verdicts as agenteval" in adk


def test_calls_are_read_from_either_adk_form() -> None:
    uses = {"intermediate_data": {"tool_uses": [{"name": "a", "args": {"x": 1}}, {"name": "b"}]}}
    events = {
        "intermediate_data": {
            "invocation_events": [
                {"author": "x", "content": {"parts": [{"function_call": {"name": "a", "args": {"x": 1}}}]}},
                {"author": "x", "content": {"parts": [{"function_response": {"name": "a", "response": {}}}]}},
                {"author": "x", "content": {"parts": [{"function_call": {"name": "b"}}]}},
                {"author": "x"},
            ]
        }
    }
    assert _peer_runner.calls_of(uses) == _peer_runner.calls_of(events) == [("a", {"x": 1}), ("b", {})]


def test_messages_carry_each_call_with_its_arguments_and_the_final_text() -> None:
    invocation = {
        "user_content": {"parts": [{"text": "book"}]},
        "final_response": {"parts": [{"text": "done"}]},
        "intermediate_data": {"tool_uses": [{"name": "a", "args": {"x": 1}}]},
    }
    built = _peer_runner.messages(invocation)
    assert [m["role"] for m in built] == ["user", "assistant", "tool", "assistant"]
    call = built[1]["tool_calls"][0]["function"]
    assert call["name"] == "a" and json.loads(call["arguments"]) == {"x": 1}
    assert built[0]["content"] == "book" and built[-1]["content"] == "done"
