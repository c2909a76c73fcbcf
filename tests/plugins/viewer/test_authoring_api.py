"""The authoring API of ``agenteval view --allow-write`` over a real server: the guard on
every route, eval-set files, chats with agents (a crash and a timeout shown in the chat),
runs recorded like the CLI's, and promoting actual turns to expected."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any, Optional

import agenteval_viewer_server_test_helpers as helpers
import pytest
from agenteval_viewer._authoring_api import Authoring
from agenteval_viewer._authoring_guard import TOKEN_HEADER, WriteGuard

AGENTS = """
import time

def crash(message, history):
    raise RuntimeError("the tool backend is down")

def leave(message, history):
    raise SystemExit(3)

def slow(message, history):
    time.sleep(3)
    return "late"
"""


@pytest.fixture
def env(tmp_path: Path) -> Any:
    evals = tmp_path / "evals"
    evals.mkdir()
    shutil.copy(helpers.TRAVEL / "travel.evalset.json", evals / "travel.evalset.json")
    (evals / "agents.py").write_text(AGENTS)
    (tmp_path / "outside.evalset.json").write_text("{}")
    authoring = Authoring(WriteGuard([evals], token="tok"), tmp_path / "runs", chat_timeout=1.0)
    with helpers.serving(tmp_path / "runs", authoring=authoring) as server:
        server.evals = evals
        yield server


def call(
    server: Any, method: str, path: str, body: Any = None, token: Optional[str] = "tok", **headers: str
) -> tuple[int, Any]:
    sent = {"Content-Type": "application/json", **headers}
    if token is not None:
        sent[TOKEN_HEADER] = token
    data = None if body is None else json.dumps(body).encode()
    status, _h, raw = helpers.request(server, path, method, sent, data)
    return status, (json.loads(raw) if raw.startswith(b"{") else raw.decode())


def events(raw: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in raw.splitlines() if line.startswith("data: ")]


def test_without_allow_write_there_is_no_write_route(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    with helpers.serving(tmp_path / "runs") as server:
        assert call(server, "GET", "/api/capabilities")[1] == {"write": False}
        assert call(server, "POST", "/api/author/evalset/save", {})[0] == 405
        assert call(server, "GET", "/api/author/files")[0] == 404


def test_every_authoring_route_needs_the_token_and_the_same_origin(env: Any) -> None:
    assert call(env, "GET", "/api/capabilities", token=None)[1] == {"write": True}
    for method, path in [
        ("GET", "/api/author/files"),
        ("POST", "/api/author/evalset/save"),
        ("POST", "/api/author/chats"),
    ]:
        status, body = call(env, method, path, {}, token=None)
        assert status == 403 and "token" in body["error"]
        assert call(env, method, path, {}, token="nope")[0] == 403
        assert call(env, method, path, {}, Origin="http://evil.example")[0] == 403
    assert call(env, "GET", "/api/author/files", Host="evil.example")[0] == 403
    status, body = call(env, "GET", "/api/author/files", Origin=f"http://127.0.0.1:{env.port}")
    assert status == 200 and [f["path"] for f in body["files"]] == ["travel.evalset.json"]


@pytest.mark.parametrize("path", ["../outside.evalset.json", "/etc/passwd", "sub/../../outside.evalset.json"])
def test_paths_out_of_the_eval_set_folders_are_refused(env: Any, path: str) -> None:
    status, body = call(env, "GET", f"/api/author/evalset?root=0&path={path}")
    assert status == 400 and body["error"]
    status, body = call(
        env, "POST", "/api/author/evalset/save", {"root": 0, "path": path, "sha256": "x", "edits": []}
    )
    assert status == 400


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ({"sha256": {"a": 1}}, "sha256: give the file's sha256"),
        ({"sha256": ["x"]}, "sha256: give the file's sha256"),
        (
            {"sha256": None, "new_set": {"eval_set_id": "a"}, "path": "a" * 300 + "/a.evalset.json"},
            "255 bytes",
        ),
    ],
)
def test_a_malformed_save_is_a_400_that_says_why(env: Any, body: dict[str, Any], why: str) -> None:
    """Found by fuzzing the API: each was an internal error (500) before."""
    sent = {"root": 0, "path": "travel.evalset.json", "edits": [], "preview": True, **body}
    status, answer = call(env, "POST", "/api/author/evalset/save", sent)
    assert status == 400 and why in answer["error"]


def test_a_malformed_promote_is_refused_with_a_reason(env: Any) -> None:
    """Found by fuzzing the API: a turn that is not an object, and a run id no file system
    takes, were internal errors (500)."""
    case = json.loads((env.evals / "travel.evalset.json").read_text())["eval_cases"][0]
    run = helpers.travel_run(env.evals.parent / "runs")
    bad_turns = {**case, "conversation": [["not", "a", "turn"]]}
    status, body = call(env, "POST", "/api/author/promote", {"run_id": run.run_id, "case": bad_turns})
    assert status == 400 and "each turn of the case's conversation is an object" in body["error"]
    status, body = call(env, "POST", "/api/author/promote", {"run_id": "r" * 300, "case": case})
    assert status == 404 and body["error"].startswith("no run 'rrrr")
    assert "File name too long" in body["error"]


def test_a_symlink_out_of_the_folder_is_refused(env: Any) -> None:
    (env.evals / "link.evalset.json").symlink_to(env.evals.parent / "outside.evalset.json")
    status, body = call(env, "GET", "/api/author/evalset?root=0&path=link.evalset.json")
    assert status == 400 and "symbolic link" in body["error"]


def test_load_edit_preview_save_and_the_concurrent_edit_refusal(env: Any) -> None:
    status, loaded = call(env, "GET", "/api/author/evalset?root=0&path=travel.evalset.json")
    assert status == 200 and loaded["eval_set_id"] and loaded["cases"]
    case = loaded["cases"][0]
    case["conversation"][0]["final_response"] = {"role": "model", "parts": [{"text": "Changed."}]}
    save = {
        "root": 0,
        "path": "travel.evalset.json",
        "sha256": loaded["sha256"],
        "edits": [{"op": "put_case", "case_id": case["eval_id"], "case": case}],
    }
    status, preview = call(env, "POST", "/api/author/evalset/save", {**save, "preview": True})
    assert status == 200 and preview["changed"] and not preview["written"] and "+" in preview["diff"]
    (env.evals / "travel.evalset.json").write_text(
        (env.evals / "travel.evalset.json").read_text().replace("Paris", "Lyon")
    )
    status, body = call(env, "POST", "/api/author/evalset/save", save)
    assert status == 409 and "changed on disk" in body["error"] and "Lyon" in body["diff"]
    status, loaded = call(env, "GET", "/api/author/evalset?root=0&path=travel.evalset.json")
    bad = dict(
        loaded["cases"][0], conversation=[{"user_content": {"role": "robot", "parts": [{"text": "x"}]}}]
    )
    save = {
        "root": 0,
        "path": "travel.evalset.json",
        "sha256": loaded["sha256"],
        "edits": [{"op": "put_case", "case_id": bad["eval_id"], "case": bad}],
    }
    status, body = call(env, "POST", "/api/author/evalset/save", save)
    assert status == 422 and body["errors"][0]["field"] == "conversation[0].user_content.role"


def _chat(env: Any, agent: str, state: Optional[dict] = None) -> str:
    status, chat = call(
        env, "POST", "/api/author/chats", {"agent": agent, "session_input": {"state": state or {}}}
    )
    assert status == 200, chat
    return chat["chat_id"]


def test_a_chat_with_the_travel_agent_becomes_a_case_adk_reads(env: Any) -> None:
    chat = _chat(env, str(helpers.TRAVEL), {"tier": "gold"})
    status, raw = call(
        env, "POST", f"/api/author/chats/{chat}/turns", {"text": "What is the weather in Paris?"}
    )
    assert status == 200
    got = events(raw)
    assert [e["type"] for e in got] == ["user", "tool_call", "final", "invocation", "done"]
    assert got[1]["name"] == "get_weather" and got[1]["args"] == {"city": "Paris", "day": "tomorrow"}
    assert got[1]["response"] == {"forecast": "sunny", "high_c": 24}
    status, body = call(env, "POST", f"/api/author/chats/{chat}/case", {"case_id": "paris_weather"})
    case = body["case"]
    assert case["session_input"]["state"] == {"tier": "gold"}  # the starting state is kept
    assert case["session_input"]["app_name"] == "travel"  # the agent's name, as adk web names it
    status, out = call(
        env,
        "POST",
        "/api/author/evalset/save",
        {
            "root": 0,
            "path": "chats.evalset.json",
            "sha256": None,
            "new_set": {"eval_set_id": "chats"},
            "edits": [{"op": "put_case", "case": case}],
        },
    )
    assert status == 200 and out["written"], out
    adk = pytest.importorskip("google.adk.evaluation.eval_set")
    parsed = adk.EvalSet.model_validate_json((env.evals / "chats.evalset.json").read_text())
    assert parsed.eval_cases[0].conversation[0].intermediate_data.tool_uses[0].args == {
        "city": "Paris",
        "day": "tomorrow",
    }


@pytest.mark.parametrize(
    ("agent", "code", "text"),
    [
        ("crash", "agent_error", "the tool backend is down"),
        ("leave", "agent_error", "SystemExit"),
        ("slow", "agent_timeout", "did not answer"),
    ],
)
def test_an_agent_that_crashes_or_hangs_is_shown_in_the_chat_and_the_server_goes_on(
    env: Any, agent: str, code: str, text: str
) -> None:
    chat = _chat(env, f"{env.evals / 'agents.py'}:{agent}")
    status, raw = call(env, "POST", f"/api/author/chats/{chat}/turns", {"text": "hello"})
    assert status == 200
    error = [e for e in events(raw) if e["type"] == "error"]
    assert error and error[0]["code"] == code and text in error[0]["message"]
    assert call(env, "GET", "/api/capabilities")[0] == 200


def test_an_agent_that_cannot_load_is_a_message(env: Any) -> None:
    status, body = call(
        env, "POST", "/api/author/chats", {"agent": str(env.evals / "missing.py") + ":respond"}
    )
    assert status == 400 and body["error"]


def _run(env: Any, case_id: str, criteria: dict) -> dict:
    status, job = call(
        env,
        "POST",
        "/api/author/runs",
        {
            "files": [{"root": 0, "path": "chats.evalset.json", "case_ids": [case_id]}],
            "agent": str(helpers.TRAVEL),
            "criteria": criteria,
        },
    )
    assert status == 200, job
    deadline = time.monotonic() + 60
    while job["state"] == "running" and time.monotonic() < deadline:
        time.sleep(0.1)
        job = call(env, "GET", f"/api/author/runs/{job['run_id']}")[1]
    return job


def test_run_fail_promote_and_pass(env: Any) -> None:
    chat = _chat(env, str(helpers.TRAVEL))
    call(env, "POST", f"/api/author/chats/{chat}/turns", {"text": "Find me a flight to Tokyo"})
    case = call(env, "POST", f"/api/author/chats/{chat}/case", {"case_id": "flight"})[1]["case"]
    case["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["destination"] = "KIX"
    new = {
        "root": 0,
        "path": "chats.evalset.json",
        "sha256": None,
        "new_set": {"eval_set_id": "chats"},
        "edits": [{"op": "put_case", "case": case}],
    }
    assert call(env, "POST", "/api/author/evalset/save", new)[0] == 200
    criteria = {"tool_trajectory_avg_score": {"threshold": 1.0}}
    job = _run(env, "flight", criteria)
    assert job["state"] == "complete" and job["counts"] == {"FAILED": 1}, job
    assert (env.evals.parent / "runs" / job["run_id"] / "manifest.json").is_file()
    loaded = call(env, "GET", "/api/author/evalset?root=0&path=chats.evalset.json")[1]
    status, body = call(
        env, "POST", "/api/author/promote", {"run_id": job["run_id"], "case": loaded["cases"][0], "turn": 0}
    )
    assert status == 200
    promoted = body["case"]
    assert promoted["conversation"][0]["intermediate_data"]["tool_uses"][0]["args"]["destination"] == "HND"
    save = {
        "root": 0,
        "path": "chats.evalset.json",
        "sha256": loaded["sha256"],
        "edits": [{"op": "put_case", "case_id": "flight", "case": promoted}],
    }
    assert call(env, "POST", "/api/author/evalset/save", save)[1]["written"]
    assert _run(env, "flight", criteria)["counts"] == {"PASSED": 1}


def test_a_run_the_engine_refuses_says_why(env: Any) -> None:
    status, body = call(
        env,
        "POST",
        "/api/author/runs",
        {
            "files": [{"root": 0, "path": "travel.evalset.json"}],
            "agent": str(helpers.TRAVEL),
            "criteria": {"no_such_criterion": 1.0},
        },
    )
    assert status == 400 and "no_such_criterion" in body["error"]


def test_the_criteria_catalog_has_parameter_schemas(env: Any) -> None:
    status, body = call(env, "GET", "/api/author/criteria")
    rows = {r["name"]: r for r in body["criteria"]}
    assert rows["tool_trajectory_avg_score"]["params_schema"]["properties"]
    assert rows["tool_trajectory_avg_score"]["default_threshold"] == 1.0


def test_the_token_is_checked_before_a_declared_body_is_read(env: Any) -> None:
    """A request declaring a large body (under the 8 MB limit) with a wrong token is refused at
    once, before the server reads any of it: the body is never sent here, and the answer still
    comes (the server used to wait for the whole body first)."""
    import socket

    for token in ("nope", None):
        with socket.create_connection(("127.0.0.1", env.port), timeout=5) as sock:
            head = [
                "POST /api/author/evalset/save HTTP/1.1",
                f"Host: 127.0.0.1:{env.port}",
                "Content-Type: application/json",
                f"Content-Length: {7 * 1024 * 1024}",
            ] + ([f"{TOKEN_HEADER}: {token}"] if token else [])
            sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
            answer = b""
            try:
                while b"\r\n\r\n" not in answer:
                    chunk = sock.recv(4096)
                    if not chunk:
                        break
                    answer += chunk
            except TimeoutError:
                pytest.fail("the server waited for the body before checking the token")
            assert answer.startswith(b"HTTP/1.1 403"), answer[:200]
            assert b"connection: close" in answer.lower()


@pytest.mark.parametrize(
    ("target", "name"),
    [
        (str(helpers.TRAVEL), "travel"),
        (f"{helpers.TRAVEL / 'agent.py'}:respond", "travel"),
        ("bots/weather_bot.py:respond", "weather_bot"),
        ("travel.agent:respond", "travel"),
        ("http://127.0.0.1:8080/v1?model=gpt-4o-mini", "gpt_4o_mini"),
        ("http://localhost:9000/v1", "localhost"),
    ],
)
def test_a_chat_case_carries_the_agents_app_name(target: str, name: str) -> None:
    from agenteval_viewer._chat import app_name

    assert app_name(target) == name
