"""``--report otel``: gen_ai.evaluation.result log records, as an OTLP/JSON file and POSTed to
the endpoint of the standard OTEL_EXPORTER_OTLP_* variables (a loopback server here),
parented to the evaluated turns' root spans when the run came from a trace."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from agenteval.cli import main
from agenteval_otel._otlp import read_spans
from agenteval_otel._turns import turns_of
from click.testing import CliRunner

FIXTURES = Path(__file__).parent / "fixtures"
EVALSET = FIXTURES / "travel.evalset.json"
ADK_TRACE = FIXTURES / "adk_v2.otlp.json"
_CLEAN = {
    key: ""
    for key in (
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL",
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
    )
}


def _report(tmp_path: Path, actual: Path, **env: str):
    out = tmp_path / "out"
    args = ["run", str(EVALSET), "--actual", str(actual), "--runs-dir", str(tmp_path / "runs")]
    result = CliRunner().invoke(
        main, [*args, "--report", "otel", "--report-dir", str(out), "-q"], env={**_CLEAN, **env}
    )
    return result, out / "agenteval.otel.json"


def _logs(path: Path) -> list[dict]:
    [resource] = json.loads(path.read_text())["resourceLogs"]
    [scope] = resource["scopeLogs"]
    assert scope["scope"]["name"] == "agenteval"
    return scope["logRecords"]


def _attrs(record: dict) -> dict:
    return {a["key"]: next(iter(a["value"].values())) for a in record["attributes"]}


def test_each_result_is_an_evaluation_event_parented_to_the_turn_it_judges(tmp_path):
    result, path = _report(tmp_path, ADK_TRACE)
    assert result.exit_code in (0, 1), result.output
    records = _logs(path)
    roots = {
        t.invocation.user_content.text(): (t.trace_id, t.span_id) for t in turns_of(read_spans(ADK_TRACE))[0]
    }
    weather = [r for r in records if _attrs(r)["agenteval.case_id"] == "weather_paris"]
    trajectory = next(
        r for r in weather if _attrs(r)["gen_ai.evaluation.name"] == "tool_trajectory_avg_score"
    )
    attrs = _attrs(trajectory)
    assert trajectory["eventName"] == attrs["event.name"] == "gen_ai.evaluation.result"
    assert (
        attrs["gen_ai.evaluation.score.value"] == 1.0 and attrs["gen_ai.evaluation.score.label"] == "passed"
    )
    assert (trajectory["traceId"], trajectory["spanId"]) == roots["What's the weather in Paris tomorrow?"]
    # a case of two turns: one record per turn, each parented to its own turn
    flight = [
        r
        for r in records
        if _attrs(r)["agenteval.case_id"] == "flight_then_currency"
        and _attrs(r)["gen_ai.evaluation.name"] == "response_match_score"
        and "agenteval.invocation_index" in _attrs(r)
    ]
    assert [(r["traceId"], r["spanId"]) for r in flight] == [
        roots["Find me a flight from Berlin to Tokyo on 12 March."],
        roots["How much is that in Japanese yen?"],
    ]
    assert all(
        "gen_ai.evaluation.explanation" in _attrs(r)
        or _attrs(r).get("gen_ai.evaluation.score.value") is not None
        for r in records
    )


def test_a_run_not_from_a_trace_writes_its_verdicts_without_parents(tmp_path):
    result, path = _report(tmp_path, FIXTURES / "adk_v2.actual.json")
    assert result.exit_code in (0, 1), result.output
    records = _logs(path)
    assert records and all("traceId" not in r and "spanId" not in r for r in records)


def test_the_file_is_the_request_written_a_record_at_a_time(tmp_path, monkeypatch):
    """Streamed (a 100k-case run's request is hundreds of MB), the file is the very text of
    the whole request encoded at once; a lone surrogate in a reason is written as its escape."""
    import io

    from agenteval.plugins import ReportContext
    from agenteval.runs import list_runs
    from agenteval_otel import _reporter

    monkeypatch.setattr(_reporter.time, "time_ns", lambda: 1_780_000_000_000_000_000)
    result, path = _report(tmp_path, ADK_TRACE)
    assert result.exit_code in (0, 1), result.output
    [run] = list_runs(tmp_path / "runs")
    context = ReportContext(run=run, folder=tmp_path, stream=io.StringIO(), environ={})
    whole = json.dumps(_reporter.export_request(context), ensure_ascii=False) + "\n"
    assert path.read_text(encoding="utf-8") == whole and whole.count('"logRecords": [{') == 1
    real = _reporter._records

    def hostile(run, spans):
        for record in real(run, spans):
            for attribute in record["attributes"]:
                if attribute["key"] == "gen_ai.evaluation.explanation":
                    attribute["value"]["stringValue"] += " \ud800"
            yield record

    monkeypatch.setattr(_reporter, "_records", hostile)
    [written] = _reporter.OtelReporter().write(context)
    assert "\\ud800" in written.read_text(encoding="utf-8")


class _Collector(BaseHTTPRequestHandler):
    received: list = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append((self.path, self.headers, body))  # case-insensitive names
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


@pytest.fixture
def collector():
    _Collector.received = []
    server = HTTPServer(("127.0.0.1", 0), _Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _Collector.received
    server.shutdown()
    server.server_close()


def test_the_verdicts_are_posted_to_the_otlp_endpoint_of_the_standard_variables(tmp_path, collector):
    url, received = collector
    result, path = _report(
        tmp_path,
        ADK_TRACE,
        OTEL_EXPORTER_OTLP_ENDPOINT=url + "/",
        OTEL_EXPORTER_OTLP_HEADERS="x-api-key=s%3Dcret,x-team=qa",
    )
    assert result.exit_code in (0, 1), result.output
    [(where, headers, body)] = received
    assert where == "/v1/logs" and headers["Content-Type"] == "application/json"
    assert headers["x-api-key"] == "s=cret" and headers["x-team"] == "qa"
    assert json.loads(body) == json.loads(path.read_text())
    assert "s=cret" not in result.output and "s%3Dcret" not in result.output


def test_the_logs_endpoint_is_used_as_it_is(tmp_path, collector):
    url, received = collector
    result, _ = _report(tmp_path, ADK_TRACE, OTEL_EXPORTER_OTLP_LOGS_ENDPOINT=url + "/custom/logs")
    assert result.exit_code in (0, 1), result.output
    assert [r[0] for r in received] == ["/custom/logs"]


def test_an_unreachable_endpoint_is_a_warning_and_the_file_stays(tmp_path):
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result, path = _report(tmp_path, ADK_TRACE, OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{port}")
    assert result.exit_code in (0, 1), result.output
    assert "could not be sent" in result.output and path.is_file()


@pytest.mark.parametrize(
    ("env", "said"),
    [
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
            "http/json",
        ),
        ({"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "localhost:4318"}, "not an http(s) URL"),
    ],
)
def test_a_protocol_or_endpoint_it_cannot_send_to_is_a_warning_and_the_run_s_report_stays(
    tmp_path, env, said
):
    result, path = _report(tmp_path, ADK_TRACE, **env)
    assert result.exit_code in (0, 1), result.output
    assert "were not sent" in result.output and said in result.output and path.is_file()
    assert "2 cases: 2 passed" in result.output  # the run's own report is printed


def test_a_recorded_run_is_reported_again_later_with_the_same_parents(tmp_path, collector):
    url, received = collector
    result, first = _report(tmp_path, ADK_TRACE)
    assert result.exit_code in (0, 1), result.output
    again = CliRunner().invoke(
        main,
        ["runs", "report", "latest", "--runs-dir", str(tmp_path / "runs"), "--report", "otel"],
        env={**_CLEAN, "OTEL_EXPORTER_OTLP_ENDPOINT": url},
    )
    assert again.exit_code == 0, again.output
    [(_, _, body)] = received

    def parents(doc):
        return [
            (r.get("traceId"), r.get("spanId")) for r in doc["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
        ]

    assert parents(json.loads(body)) == parents(json.loads(first.read_text()))
