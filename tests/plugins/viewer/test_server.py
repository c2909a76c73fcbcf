"""The ``agenteval view`` server over real HTTP: routes, caching, security, live events."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import agenteval_viewer_server_test_helpers as helpers
import agenteval_viewer_test_fixtures as fx
import pytest
from agenteval_viewer._server import CONTENT_SECURITY_POLICY, static_file
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.fixture
def static_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "static"
    (folder / "vendor").mkdir(parents=True)
    (folder / "index.html").write_text("<!doctype html><title>viewer</title>", encoding="utf-8")
    (folder / "app.js").write_text("// app\n" + "console.log('x');\n" * 400, encoding="utf-8")
    (folder / "vendor" / "lib.js").write_text("// lib\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("not for the browser", encoding="utf-8")
    return folder


@pytest.fixture
def bundle():
    return helpers.StandInBundle()


@pytest.fixture
def server(runs_dir: Path, static_dir: Path, bundle):
    with helpers.serving(runs_dir, static_dir=static_dir, bundle=bundle, poll_s=0.05) as running:
        yield running


def _security_headers(headers: dict[str, str]) -> None:
    assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"


# -- history -------------------------------------------------------------------------------


def test_runs_lists_the_history_newest_first_with_verdicts_counts_and_criteria(server, run_ids):
    status, document = helpers.get_json(server, "/api/runs")
    assert status == 200
    runs = document["runs"]
    assert [r["run_id"] for r in runs] == run_ids[::-1]
    newest, oldest = runs
    assert oldest["verdict"] == "FAILED" and newest["verdict"] == "PASSED"
    assert oldest["counts"] == {
        "PASSED": 2,
        "FAILED": 1,
        "NOT_EVALUATED": 0,
        "ERRORED": 0,
        "INFORMATIONAL": 0,
    }
    assert newest["counts"]["PASSED"] == 3
    assert set(oldest["criteria"]) == {"tool_trajectory_avg_score", "response_match_score"}
    assert newest["criteria"]["tool_trajectory_avg_score"] == {"pass_rate": 1.0, "mean": 1.0}
    assert oldest["state"] == "complete" and oldest["started_at"] and oldest["finished_at"]
    assert oldest["cases_planned"] == 3


def test_history_reads_a_run_again_only_when_its_files_change(server, runs_dir, run_ids):
    history = server.history
    helpers.get_json(server, "/api/runs")
    reads = history.reads
    helpers.get_json(server, "/api/runs")
    assert history.reads == reads
    manifest = runs_dir / run_ids[0] / "manifest.json"
    info = manifest.stat()
    os.utime(manifest, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000))
    helpers.get_json(server, "/api/runs")
    assert history.reads == reads + 1


def test_history_leaves_out_a_folder_that_is_not_a_run(tmp_path, runs_dir, static_dir):
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "not-a-run").mkdir()
    (folder / "damaged").mkdir()
    (folder / "damaged" / "manifest.json").write_text("{", encoding="utf-8")
    with helpers.serving(folder, static_dir=static_dir) as server:
        assert helpers.get_json(server, "/api/runs") == (200, {"runs": []})


# -- one run -------------------------------------------------------------------------------


def test_summary_index_and_cases_come_from_the_bundle(server, run_ids):
    run_id = run_ids[0]
    assert helpers.get_json(server, f"/api/runs/{run_id}/summary") == (
        200,
        {"run_id": run_id, "state": "complete"},
    )
    status, index = helpers.get_json(server, f"/api/runs/{run_id}/index")
    assert status == 200
    assert index["status"].count("FAILED") == 1 and len(index["case_id"]) == 3
    for row, case_id in enumerate(index["case_id"]):
        status, detail = helpers.get_json(server, f"/api/runs/{run_id}/cases/{row}")
        assert status == 200
        assert detail["case_id"] == case_id and detail["status"] == index["status"][row]


def test_the_index_is_built_once_per_state_of_the_run(server, bundle, run_ids):
    for _ in range(3):
        status, headers, _body = helpers.request(server, f"/api/runs/{run_ids[0]}/index")
        assert status == 200
    assert bundle.calls["case_index"] == 1
    status, again, body = helpers.request(
        server, f"/api/runs/{run_ids[0]}/index", headers={"If-None-Match": headers["etag"]}
    )
    assert (status, body) == (304, b"")
    assert again["etag"] == headers["etag"]


def test_cases_seek_with_the_runs_byte_offset_index_built_once(server, run_ids, monkeypatch):
    from agenteval.runs import RecordedRun

    scans = []
    original = RecordedRun._index

    def counted(self):
        if self._offsets is None and self._score_offsets is None:  # the index's or scores.jsonl's
            scans.append(1)
        return original(self)

    monkeypatch.setattr(RecordedRun, "_index", counted)
    for row in (0, 1, 2, 1, 0):
        assert helpers.get_json(server, f"/api/runs/{run_ids[1]}/cases/{row}")[0] == 200
    assert len(scans) == 1


@pytest.mark.parametrize(
    "path",
    [
        "/api/runs/no-such-run/summary",
        "/api/runs/no-such-run/index",
        "/api/runs/no-such-run/cases/0",
        "/api/runs/no-such-run/events",
        "/api/runs/..%2F..%2Fetc/summary",
        "/api/runs/%2E%2E/index",
        "/api/nothing",
    ],
)
def test_unknown_runs_and_routes_are_404_json(server, path):
    status, headers, body = helpers.request(server, path)
    assert status == 404
    assert headers["content-type"] == "application/json"
    assert "error" in json.loads(body)
    _security_headers(headers)


@pytest.mark.parametrize("row", ["3", "99999", "-1", "x", "1.5", "%D9%A3"])
def test_a_row_the_run_does_not_have_is_404(server, run_ids, row):
    status, _headers, body = helpers.request(server, f"/api/runs/{run_ids[0]}/cases/{row}")
    assert status == 404
    assert json.loads(body)["error"]


def test_an_unexpected_error_is_500_json_and_one_line_on_stderr(runs_dir, static_dir, run_ids, capfd):
    class Broken(helpers.StandInBundle):
        def run_summary(self, run):
            raise RuntimeError("the bundle broke")

    with helpers.serving(runs_dir, static_dir=static_dir, bundle=Broken()) as server:
        status, headers, body = helpers.request(server, f"/api/runs/{run_ids[0]}/summary")
    assert status == 500
    assert json.loads(body) == {"error": "internal error; see the server's log"}
    assert b"Traceback" not in body
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "RuntimeError: the bundle broke" in err and "Traceback" not in err


# -- compare -------------------------------------------------------------------------------


def _cli_compare(runs_dir: Path, a: str, b: str) -> dict:
    from agenteval.cli import main

    result = CliRunner().invoke(main, ["compare", a, b, "--runs-dir", str(runs_dir), "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def test_compare_is_the_document_agenteval_compare_prints(server, runs_dir, run_ids):
    a, b = run_ids
    status, document = helpers.get_json(server, f"/api/compare?a={a}&b={b}")
    assert status == 200
    assert document == _cli_compare(runs_dir, a, b)
    assert [f["baseline"] + ">" + f["candidate"] for f in document["flips"]] == ["FAILED>PASSED"] * len(
        document["flips"]
    )
    assert document["flips"]


def test_compare_of_a_run_with_itself_has_no_flips(server, run_ids):
    status, document = helpers.get_json(server, f"/api/compare?a={run_ids[0]}&b={run_ids[0]}")
    assert status == 200
    assert document["flips"] == [] and document["paired_cases"] == 3


def test_compare_refused_by_the_engine_is_409_with_its_message(tmp_path, runs_dir, static_dir, run_ids):
    folder = tmp_path / "runs"
    helpers.travel_run(folder)
    helpers.CRITERIA, saved = (
        {"tool_trajectory_avg_score": 0.5, "response_match_score": 0.6},
        helpers.CRITERIA,
    )
    try:
        helpers.travel_run(folder)
    finally:
        helpers.CRITERIA = saved
    a, b = sorted(p.name for p in folder.iterdir())
    with helpers.serving(folder, static_dir=static_dir) as server:
        status, document = helpers.get_json(server, f"/api/compare?a={a}&b={b}")
    assert status == 409
    assert "threshold 1.0 -> 0.5" in document["error"] and "--allow-config-change" in document["error"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [("", 400), ("?a=x", 400), ("?a=no-such&b=no-such", 404), ("?a=..&b=..", 404), ("?a=/etc&b=/etc", 404)],
)
def test_compare_needs_two_runs_of_this_folder(server, query, expected):
    status, _headers, body = helpers.request(server, "/api/compare" + query)
    assert status == expected
    assert json.loads(body)["error"]


# -- static files --------------------------------------------------------------------------


def test_static_files_are_served_with_types_and_security_headers(server):
    status, headers, body = helpers.request(server, "/")
    assert status == 200 and body.startswith(b"<!doctype html>")
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["cache-control"] == "no-cache"
    _security_headers(headers)
    status, headers, body = helpers.request(server, "/vendor/lib.js")
    assert (status, headers["content-type"], body) == (200, "text/javascript; charset=utf-8", b"// lib\n")


def test_the_page_names_its_modules_for_the_browser_to_fetch_at_once(server, static_dir):
    """``/`` names every module its entry module imports (``modulepreload``), before the
    entry's tag; its ETag follows what it holds, and a browser's copy is answered 304."""
    (static_dir / "index.html").write_text(
        '<!doctype html><title>viewer</title>\n<script type="module" src="app.js"></script>\n',
        encoding="utf-8",
    )
    (static_dir / "app.js").write_text('import { b } from "./b.js";\nb();\n', encoding="utf-8")
    (static_dir / "b.js").write_text("export function b() {}\n", encoding="utf-8")
    status, headers, body = helpers.request(server, "/")
    assert status == 200 and body == (
        b'<!doctype html><title>viewer</title>\n<link rel="modulepreload" href="b.js">\n'
        b'<link rel="modulepreload" href="app.js">\n<script type="module" src="app.js"></script>\n'
    )
    again = helpers.request(server, "/", headers={"If-None-Match": headers["etag"]})
    assert again[0] == 304
    (static_dir / "app.js").write_text("// imports nothing now\n", encoding="utf-8")
    status, changed, body = helpers.request(server, "/", headers={"If-None-Match": headers["etag"]})
    assert status == 200 and changed["etag"] != headers["etag"] and b'href="b.js"' not in body


def test_static_files_are_gzipped_when_the_browser_accepts_it(server, static_dir):
    status, headers, body = helpers.request(server, "/app.js", headers={"Accept-Encoding": "gzip, br"})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == (static_dir / "app.js").read_bytes()
    status, headers, body = helpers.request(server, "/app.js")
    assert "content-encoding" not in headers and body == (static_dir / "app.js").read_bytes()


@pytest.mark.parametrize(
    "path",
    [
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/vendor/../../secret.txt",
        "/vendor/%2E%2E/%2E%2E/secret.txt",
        "/..%5csecret.txt",
        "//etc/passwd",
        "/%00index.html",
        "/vendor/",
        "/missing.js",
    ],
)
def test_paths_outside_static_or_missing_are_404(server, path):
    status, _headers, body = helpers.request(server, path)
    assert status == 404
    assert b"not for the browser" not in body


def test_a_symlink_out_of_static_is_refused(server, static_dir):
    (static_dir / "link.txt").symlink_to(static_dir.parent / "secret.txt")
    status, _headers, body = helpers.request(server, "/link.txt")
    assert status == 404 and b"not for the browser" not in body


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("./%2e5cfA\\\x00-_")), max_size=30))
def test_static_file_never_names_a_file_outside_its_root(tmp_path_factory, url_path):
    root = tmp_path_factory.getbasetemp() / "static-property"
    if not root.exists():
        (root / "static" / "sub").mkdir(parents=True)
        (root / "static" / "sub" / "a.js").write_text("a", encoding="utf-8")
        (root / "static" / "index.html").write_text("i", encoding="utf-8")
        (root / "outside.txt").write_text("o", encoding="utf-8")
    base = (root / "static").resolve()
    found = static_file(base, "/" + url_path)
    assert found is None or (found.is_relative_to(base) and found.is_file())


# -- security ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    ["evil.example:{port}", "evil.example", "127.0.0.1", "127.0.0.1:1", "localhost", "127.0.0.2:{port}", ""],
)
def test_a_foreign_host_header_is_refused(server, host):
    status, headers, body = helpers.request(
        server, "/api/runs", headers={"Host": host.format(port=server.port)}
    )
    assert status == 403
    assert "runs" not in json.loads(body)
    _security_headers(headers)


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}"])
def test_the_servers_own_host_names_are_accepted(server, host):
    status, _headers, _body = helpers.request(
        server, "/api/runs", headers={"Host": host.format(port=server.port)}
    )
    assert status == 200


def test_allow_remote_accepts_any_host(runs_dir, static_dir):
    with helpers.serving(runs_dir, static_dir=static_dir, allow_remote=True) as server:
        status, _headers, _body = helpers.request(server, "/api/runs", headers={"Host": "viewer.lan:8585"})
    assert status == 200


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND"])
def test_every_method_but_get_and_head_is_405(server, run_ids, method):
    status, headers, body = helpers.request(server, f"/api/runs/{run_ids[0]}/summary", method, body=b"{}")
    assert status == 405
    assert headers["allow"] == "GET, HEAD"
    assert "read-only" in json.loads(body)["error"]
    _security_headers(headers)


def test_head_answers_like_get_without_a_body(server, run_ids):
    _status, get_headers, body = helpers.request(server, f"/api/runs/{run_ids[0]}/index")
    status, headers, head_body = helpers.request(server, f"/api/runs/{run_ids[0]}/index", "HEAD")
    assert status == 200 and head_body == b""
    assert headers["content-length"] == get_headers["content-length"] == str(len(body))


def test_api_responses_carry_the_security_headers_and_no_store(server):
    status, headers, _body = helpers.request(server, "/api/runs")
    assert status == 200
    assert headers["cache-control"] == "no-store"
    assert headers["server"] == "agenteval-view"
    _security_headers(headers)


def test_a_malformed_request_gets_a_json_error(server):
    import socket

    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /api/runs HTTP/9.9\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    # the stdlib answers a request it cannot parse as HTTP/0.9 would: the body alone
    assert answer.endswith(b'{"error":"Invalid HTTP version (9.9)"}')
    assert b"<html" not in answer.lower()


# -- live updates --------------------------------------------------------------------------


@pytest.fixture
def live(tmp_path, runs_dir, run_ids):
    from agenteval.runs import RecordedRun

    run = helpers.LiveRun(tmp_path / "live-runs", RecordedRun.open(runs_dir / run_ids[0]))
    yield run
    run.close()


@pytest.fixture
def live_server(live, static_dir):
    with helpers.serving(live.folder.parent, static_dir=static_dir, poll_s=0.05, heartbeat_s=0.3) as running:
        yield running


def _rows(stream) -> list[int]:
    return sorted({row for name, data, _id in stream.events if name == "rows" for row in data["rows"]})


def test_events_send_rows_of_new_records_and_the_final_state(live, live_server):
    stream = helpers.EventStream(live_server, f"/api/runs/{live.run_id}/events")
    try:
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type") == "text/event-stream; charset=utf-8"
        assert stream.wait_for(lambda s: s.events)
        assert stream.events[0][:2] == ("state", {"state": "running"})
        live.append()
        assert stream.wait_for(lambda s: _rows(s) == [0], timeout=2.0)
        live.append()
        live.append()
        assert stream.wait_for(lambda s: _rows(s) == [0, 1, 2], timeout=2.0)
        live.finish()
        assert stream.wait_for(lambda s: s.ended.is_set(), timeout=5.0)
        assert stream.events[-1][:2] == ("state", {"state": "complete"})
        offsets = [int(i) for name, _data, i in stream.events if name == "rows"]
        assert offsets == sorted(offsets) and offsets[-1] == (live.folder / "results.jsonl").stat().st_size
    finally:
        stream.close()


def test_events_coalesce_a_burst_of_records(live, live_server):
    stream = helpers.EventStream(live_server, f"/api/runs/{live.run_id}/events")
    try:
        assert stream.wait_for(lambda s: s.events)
        for _ in range(3):
            live.append()
        assert stream.wait_for(lambda s: _rows(s) == [0, 1, 2], timeout=2.0)
        assert sum(name == "rows" for name, _d, _i in stream.events) <= 3
    finally:
        stream.close()


def test_events_pick_up_after_the_last_event_id(live, live_server):
    live.append()
    offset = (live.folder / "results.jsonl").stat().st_size
    live.append()
    stream = helpers.EventStream(
        live_server, f"/api/runs/{live.run_id}/events", headers={"Last-Event-ID": str(offset)}
    )
    try:
        assert stream.wait_for(lambda s: _rows(s) == [1], timeout=2.0)
    finally:
        stream.close()


def test_events_wait_for_a_line_to_be_complete(live, live_server):
    stream = helpers.EventStream(live_server, f"/api/runs/{live.run_id}/events")
    try:
        assert stream.wait_for(lambda s: s.events)
        line = live.records[0].model_copy(update={"run_id": live.run_id}).dump().encode("utf-8")
        with open(live.folder / "results.jsonl", "ab") as handle:
            handle.write(line[:40])
            handle.flush()
            assert not stream.wait_for(lambda s: _rows(s), timeout=0.4)
            handle.write(line[40:])
        assert stream.wait_for(lambda s: _rows(s) == [0], timeout=2.0)
    finally:
        stream.close()


def test_events_send_heartbeats_while_nothing_happens(live, live_server):
    stream = helpers.EventStream(live_server, f"/api/runs/{live.run_id}/events")
    try:
        assert stream.wait_for(lambda s: s.comments >= 2, timeout=5.0)
    finally:
        stream.close()


def test_events_of_a_finished_run_are_204_so_the_browser_stops_asking(server, run_ids):
    status, headers, body = helpers.request(server, f"/api/runs/{run_ids[0]}/events")
    assert (status, body) == (204, b"")
    _security_headers(headers)


def test_closing_the_server_ends_open_streams(live, static_dir):
    with helpers.serving(live.folder.parent, static_dir=static_dir, poll_s=0.05) as server:
        stream = helpers.EventStream(server, f"/api/runs/{live.run_id}/events")
        assert stream.wait_for(lambda s: s.events)
    assert stream.ended.wait(5.0)
    stream.close()


# -- with the front end's bundle -------------------------------------------------------------


def test_the_front_ends_bundle_is_served_and_scans_a_run_once_for_summary_and_index(
    runs_dir, static_dir, run_ids, monkeypatch
):
    from agenteval_viewer import _bundle

    scans = []
    original = _bundle.scan
    monkeypatch.setattr(_bundle, "scan", lambda run: scans.append(run.run_id) or original(run))
    with helpers.serving(runs_dir, static_dir=static_dir) as server:
        run_id = run_ids[0]
        status, summary = helpers.get_json(server, f"/api/runs/{run_id}/summary")
        assert status == 200
        status, index = helpers.get_json(server, f"/api/runs/{run_id}/index")
        assert status == 200
        assert index["n"] == 3 and index["row"] == [0, 1, 2]
        assert scans == [run_id]
        for row in index["row"]:
            status, detail = helpers.get_json(server, f"/api/runs/{run_id}/cases/{row}")
            assert status == 200
            assert detail["case_id"] == index["case_id"][row]
        assert helpers.get_json(server, f"/api/runs/{run_id}/cases/3")[0] == 404
    assert summary


# -- the disk cache of finished runs ---------------------------------------------------------


def test_a_finished_runs_index_is_served_from_the_disk_cache_in_the_next_session(
    tmp_path, runs_dir, static_dir, run_ids
):
    cache = tmp_path / "cache"
    bodies = []
    for _session in range(2):
        with helpers.serving(runs_dir, static_dir=static_dir, cache_dir=cache) as server:
            summary = helpers.request(server, f"/api/runs/{run_ids[0]}/summary")
            index = helpers.request(server, f"/api/runs/{run_ids[0]}/index")
            bodies.append((summary[2], index[2]))
            builds = dict(server.store.builds)
    assert builds == {}  # the second session built nothing
    assert bodies[0] == bodies[1]
    assert len(list(cache.glob("*.json.gz"))) == 2


def test_a_changed_run_or_a_damaged_entry_is_built_again(tmp_path, runs_dir, static_dir, run_ids):
    cache = tmp_path / "cache"
    with helpers.serving(runs_dir, static_dir=static_dir, cache_dir=cache) as server:
        helpers.request(server, f"/api/runs/{run_ids[0]}/index")
    for entry in cache.glob("*.json.gz"):
        entry.write_bytes(b"not gzip")
    with helpers.serving(runs_dir, static_dir=static_dir, cache_dir=cache) as server:
        assert helpers.get_json(server, f"/api/runs/{run_ids[0]}/index")[0] == 200
        assert server.store.builds == {"summary": 1, "index": 1}


def test_a_running_run_is_never_cached_on_disk(tmp_path, live, static_dir):
    cache = tmp_path / "cache"
    live.append()
    with helpers.serving(live.folder.parent, static_dir=static_dir, cache_dir=cache) as server:
        assert helpers.get_json(server, f"/api/runs/{live.run_id}/index")[0] == 200
    assert not cache.exists() or not list(cache.iterdir())


def test_an_unwritable_cache_only_means_building_again(tmp_path, runs_dir, static_dir, run_ids):
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder would be", encoding="utf-8")
    with helpers.serving(runs_dir, static_dir=static_dir, cache_dir=blocked / "cache") as server:
        assert helpers.get_json(server, f"/api/runs/{run_ids[0]}/index")[0] == 200


def test_an_ipv6_loopback_server_answers_to_its_bracketed_address(runs_dir, static_dir):
    import http.client
    import socket

    from agenteval_viewer._server import ViewerServer

    try:
        server = ViewerServer(runs_dir, "::1", 0, static_dir=static_dir)
    except OSError:
        pytest.skip("no IPv6 loopback here")
    import threading

    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        assert server.address_family == socket.AF_INET6
        assert server.url == f"http://[::1]:{server.port}/"
        answers = {}
        for host in (f"[::1]:{server.port}", f"localhost:{server.port}", f"127.0.0.1:{server.port}"):
            connection = http.client.HTTPConnection("::1", server.port, timeout=10)
            connection.request("GET", "/api/runs", headers={"Host": host})
            answers[host] = connection.getresponse().status
            connection.close()
        assert answers == {
            f"[::1]:{server.port}": 200,
            f"localhost:{server.port}": 200,
            f"127.0.0.1:{server.port}": 403,
        }
    finally:
        server.close()
        thread.join(5)


def test_a_loopback_client_gets_a_big_payload_plain_and_the_disk_cache_is_written_after(tmp_path, static_dir):
    runs = tmp_path / "runs"
    run = fx.synthetic_run(runs, 400, summary=False)
    cache = tmp_path / "cache"
    with helpers.serving(runs, static_dir=static_dir, cache_dir=cache) as server:
        status, headers, body = helpers.request(
            server, f"/api/runs/{run.run_id}/index", headers={"Accept-Encoding": "gzip"}
        )
        assert status == 200 and "content-encoding" not in headers and len(body) > 64 * 1024
        assert json.loads(body)["n"] == 400
    assert len(list(cache.glob("*.json.gz"))) == 2  # written by the time the server stopped


def test_an_informational_criterion_has_no_pass_rate_in_the_history(tiny):
    """tool_call_count_v1 reports values: a pass rate of 0% (its NOT_EVALUATED cases over
    nothing that could pass) would be drawn as a failing trend."""
    from agenteval_viewer._history import run_entry

    entry = run_entry(tiny.folder)
    assert entry is not None
    assert entry["criteria"]["tool_call_count_v1"]["pass_rate"] is None
    assert entry["criteria"]["tool_trajectory_avg_score"]["pass_rate"] is not None


def test_the_front_ends_modules_are_served_as_javascript_under_the_csp(runs_dir):
    """index.html loads app.js as a module; app.js and every module it imports (the real
    static folder) come back as JavaScript, with the CSP that allows same-origin scripts."""
    import re

    from agenteval_viewer._server import STATIC_DIR

    with helpers.serving(runs_dir) as server:
        status, headers, body = helpers.request(server, "/")
        assert b'<script type="module" src="app.js"></script>' in body
        modules = sorted(p.name for p in STATIC_DIR.glob("*.js"))
        assert {"app.js", "ui.js", "drawer.js", "labels.js", "author.js"} <= set(modules)
        for name in modules:
            status, headers, body = helpers.request(server, f"/{name}")
            assert (status, headers["content-type"]) == (200, "text/javascript; charset=utf-8"), name
            assert "script-src 'self'" in headers["content-security-policy"]
            for imported in re.findall(rb'from "\./([\w.-]+)";', body):
                assert (STATIC_DIR / imported.decode()).is_file(), (name, imported)
