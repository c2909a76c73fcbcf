"""A trace as the start of a case (``_trace_cases``, routes ``/api/author/trace*``) over a real
server: the trace files listed, a trace's sessions, a session's case exactly as
``import-trace --as-expected`` writes it (and saved through the eval-set save path), a session
that lacks content refused with its findings, a damaged file a clear error, and no trace format
installed said, not hidden."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import agenteval_viewer_server_test_helpers as helpers
import pytest
from agenteval.cli import main
from agenteval_viewer._authoring_api import Authoring
from agenteval_viewer._authoring_guard import WriteGuard
from agenteval_viewer._trace_cases import INSTALL_HINT
from click.testing import CliRunner

from tests.plugins.viewer.test_authoring_api import call

OTEL = Path(__file__).parents[1] / "otel" / "fixtures"
ADK_TRACE = OTEL / "adk_v2.otlp.json"
JAEGER = OTEL / "langgraph.jaeger.json"


def elided(folder: Path, tool: str = "get_weather") -> Path:
    """The ADK trace with the results of ``tool`` elided (as recorded without content capture)."""
    doc = json.loads(ADK_TRACE.read_text())
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for attribute in span["attributes"]:
            if attribute["key"] == "gen_ai.tool.call.result" and span["name"].endswith(tool):
                attribute["value"] = {"stringValue": "<elided>"}
    path = folder / "elided.otlp.json"
    path.write_text(json.dumps(doc))
    return path


def imported(trace: Path, folder: Path) -> list[dict[str, Any]]:
    """The cases ``agenteval import-trace TRACE --as-expected`` writes."""
    out = folder / "imported.evalset.json"
    result = CliRunner().invoke(main, ["import-trace", str(trace), "-o", str(out), "--as-expected"])
    assert result.exit_code == 0, result.output
    cases: list[dict[str, Any]] = json.loads(out.read_text())["eval_cases"]
    out.unlink()
    return cases


def _serve(tmp_path: Path, readers: Any = None) -> Any:
    evals = tmp_path / "evals"
    (evals / "traces").mkdir(parents=True)
    shutil.copy(helpers.TRAVEL / "travel.evalset.json", evals / "travel.evalset.json")
    shutil.copy(ADK_TRACE, evals / "traces" / "adk_v2.otlp.json")
    shutil.copy(JAEGER, evals / "langgraph.jaeger.json")
    (evals / "notes.json").write_text('{"hello": "world"}')
    authoring = Authoring(WriteGuard([evals], token="tok"), tmp_path / "runs", trace_readers=readers)
    return evals, helpers.serving(tmp_path / "runs", authoring=authoring)


@pytest.fixture
def env(tmp_path: Path) -> Any:
    evals, serving = _serve(tmp_path)
    with serving as server:
        server.evals = evals
        yield server


def test_the_trace_files_are_listed_and_a_traces_sessions_shown(env: Any) -> None:
    status, body = call(env, "GET", "/api/author/traces")
    assert status == 200 and body["available"] and body["install"] is None
    # traces only: not the eval set, not a JSON file no trace format claims
    assert [f["path"] for f in body["files"]] == ["langgraph.jaeger.json", "traces/adk_v2.otlp.json"]
    status, body = call(env, "GET", "/api/author/trace?root=0&path=traces/adk_v2.otlp.json")
    assert status == 200, body
    assert "OpenTelemetry" in body["format"] and body["notes"] == []
    assert [(s["session_id"], s["first_user_text"], s["turns"], s["findings"]) for s in body["sessions"]] == [
        ("s-weather", "What's the weather in Paris tomorrow?", 1, []),
        ("s-flight", "Find me a flight from Berlin to Tokyo on 12 March.", 2, []),
        ("s-other-app", "Book a table for two.", 1, []),
    ]
    [jaeger] = call(env, "GET", "/api/author/trace?root=0&path=langgraph.jaeger.json")[1]["sessions"]
    assert (jaeger["session_id"], jaeger["case_id"]) == ("thread-7", "weather_paris")


def test_a_sessions_case_is_what_import_trace_as_expected_writes_and_saves_as_it(
    env: Any, tmp_path: Path
) -> None:
    for trace, shown in ((ADK_TRACE, "traces/adk_v2.otlp.json"), (JAEGER, "langgraph.jaeger.json")):
        sessions = call(env, "GET", f"/api/author/trace?root=0&path={shown}")[1]["sessions"]
        cases = []
        for session in sessions:
            status, body = call(
                env,
                "POST",
                "/api/author/trace/case",
                {"root": 0, "path": shown, "session_id": session["session_id"]},
            )
            assert status == 200, body
            cases.append(body["case"])
        assert cases == imported(trace, tmp_path)
    # the case saved into a new eval set through the save path (preview, then write)
    case = call(env, "POST", "/api/author/trace/case", {"root": 0, "path": shown, "session_id": "thread-7"})[
        1
    ]["case"]
    save = {
        "root": 0,
        "path": "golden.evalset.json",
        "sha256": None,
        "new_set": {"eval_set_id": "golden"},
        "edits": [{"op": "put_case", "case": case}],
    }
    status, preview = call(env, "POST", "/api/author/evalset/save", {**save, "preview": True})
    assert status == 200 and preview["changed"] and "get_weather" in preview["diff"]
    assert not (env.evals / "golden.evalset.json").exists()
    status, saved = call(env, "POST", "/api/author/evalset/save", save)
    assert status == 200 and saved["written"], saved
    written = json.loads((env.evals / "golden.evalset.json").read_text())
    assert written["eval_cases"] == imported(JAEGER, tmp_path)


def test_a_session_that_lacks_content_is_shown_with_its_findings_and_refused(env: Any) -> None:
    elided(env.evals)
    body = call(env, "GET", "/api/author/trace?root=0&path=elided.otlp.json")[1]
    weather, flight, _other = body["sessions"]
    assert "tool_result_elided" in weather["findings"][0] and flight["findings"] == []
    status, body = call(
        env,
        "POST",
        "/api/author/trace/case",
        {"root": 0, "path": "elided.otlp.json", "session_id": "s-weather"},
    )
    assert status == 422 and body["file"] == "elided.otlp.json"
    assert body["findings"] == weather["findings"]
    assert (
        "tool_result_elided" in body["error"]
        and "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in body["error"]
    )
    assert str(env.evals) not in body["error"]  # the file named as the screen shows it
    # the other sessions of the same file still start a case
    status, body = call(
        env,
        "POST",
        "/api/author/trace/case",
        {"root": 0, "path": "elided.otlp.json", "session_id": "s-flight"},
    )
    assert status == 200 and body["case"]["eval_id"] == "s-flight"


def test_a_damaged_or_wrong_file_is_a_clear_error(env: Any) -> None:
    text = ADK_TRACE.read_text()
    (env.evals / "cut.otlp.json").write_text(text[: len(text) // 2])
    status, body = call(env, "GET", "/api/author/trace?root=0&path=cut.otlp.json")
    assert status == 400 and body["file"] == "cut.otlp.json"
    assert body["error"].startswith("cut.otlp.json: ") and "Traceback" not in body["error"]
    assert str(env.evals) not in body["error"]
    status, body = call(env, "GET", "/api/author/trace?root=0&path=travel.evalset.json")
    assert status == 400 and "not a trace file an installed format reads" in body["error"]
    status, body = call(env, "GET", "/api/author/trace?root=0&path=nothing.json")
    assert status == 400 and "there is no file 'nothing.json'" in body["error"]
    assert call(env, "GET", "/api/author/trace?root=0&path=../outside.json")[0] == 400
    status, body = call(env, "POST", "/api/author/trace/case", {"root": 0, "path": "langgraph.jaeger.json"})
    assert status == 400 and "session" in body["error"]
    status, body = call(
        env,
        "POST",
        "/api/author/trace/case",
        {"root": 0, "path": "langgraph.jaeger.json", "session_id": "nope"},
    )
    assert status == 400 and "no session 'nope'" in body["error"] and "thread-7" in body["error"]


def test_a_readers_bug_is_said_not_a_traceback(tmp_path: Path) -> None:
    from agenteval_otel import OtelReader

    class Broken(OtelReader):
        def recorded_sessions(self, path: Path) -> dict[str, Any]:
            raise KeyError("spans")

    evals, serving = _serve(tmp_path, [Broken])
    with serving as server:
        status, body = call(server, "GET", "/api/author/trace?root=0&path=langgraph.jaeger.json")
    assert status == 400 and "the trace reader Broken failed on this file: KeyError" in body["error"]


def test_without_a_trace_format_the_option_says_what_to_install(tmp_path: Path) -> None:
    evals, serving = _serve(tmp_path, [])
    with serving as server:
        status, body = call(server, "GET", "/api/author/traces")
        assert status == 200 and body == {"available": False, "install": INSTALL_HINT, "files": []}
        assert "pip install agenteval-otel" in INSTALL_HINT and "pip install -e plugins/otel" in INSTALL_HINT
        assert (helpers.REPO / "plugins" / "otel" / "pyproject.toml").is_file()  # the path it names
        status, body = call(server, "GET", "/api/author/trace?root=0&path=langgraph.jaeger.json")
        assert status == 400 and body["error"] == INSTALL_HINT


def test_the_installed_trace_format_is_found_by_its_entry_point() -> None:
    from agenteval_otel import OtelReader
    from agenteval_viewer._trace_cases import trace_readers

    assert OtelReader in trace_readers()


def test_a_trace_path_too_long_for_the_file_system_is_a_400(env: Any) -> None:
    """Each name fits, the whole does not: a 400 naming the limit, not an internal error."""
    relative = "/".join(["d" * 200] * 30) + "/x.otlp.json"
    status, body = call(env, "GET", f"/api/author/trace?root=0&path={relative}")
    assert status == 400 and "longer than the system takes" in body["error"]
    status, body = call(
        env, "POST", "/api/author/trace/case", {"root": 0, "path": relative, "session_id": "s"}
    )
    assert status == 400 and "longer than the system takes" in body["error"]
