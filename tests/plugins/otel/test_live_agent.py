"""Traces from a live agent: ``--agent-type http-traces`` sends each turn's request with a W3C
``traceparent``, receives the agent's OTLP spans (JSON or protobuf) on a loopback receiver, and
scores the turn read from them as ``--actual TRACE`` would, each record keeping its trace id.

The fake agent is a loopback chat endpoint that, for each request, exports the spans ADK
recorded for that user message (``fixtures/adk_v2.otlp.json``) re-stamped into the request's
trace, its root parented to the caller's span."""

from __future__ import annotations

import dataclasses
import json
import re
import socket
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from agenteval.cli import main
from agenteval_otel._otlp import read_spans
from agenteval_otel._receiver import OtlpReceiver
from agenteval_otel._turns import Tree, turns_of

from tests.plugins.otel._cli import run_scores
from tests.plugins.otel._encode import encode

FIXTURES = Path(__file__).parent / "fixtures"
EVALSET = FIXTURES / "travel.evalset.json"
ADK_TRACE = FIXTURES / "adk_v2.otlp.json"
_CONTENT = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments")
_TRACEPARENT = re.compile(r"^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$")


def _recorded_turns() -> dict[str, tuple[list[Any], str]]:
    """User text → (the spans of that turn in the ADK trace, its final text)."""
    spans = read_spans(ADK_TRACE)
    turns, _ = turns_of(spans)
    by_trace: dict[str, list[Any]] = {}
    for span in spans:
        by_trace.setdefault(span.trace_id, []).append(span)
    out = {}
    for turn in turns:
        tree = Tree(by_trace[turn.trace_id])
        root = tree.by_id[turn.span_id]
        final = turn.invocation.final_response.text() if turn.invocation.final_response else ""
        out[turn.user_text] = (list(tree.walk(root)), final)
    return out


def _free_port(taken: int) -> int:
    """A port free now and not ``taken`` (a bound port 0 may hand back one just released)."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port != taken:
            return port


class FakeAgent:
    """A chat endpoint exporting the recorded spans of each turn into the caller's trace."""

    def __init__(self, protocol: str = "json", traceparent: bool = True, elide: bool = False) -> None:
        self.recorded = _recorded_turns()
        self.otlp_endpoint = ""  # set by the otlp_port fixture, once this agent holds its own port
        self.protocol, self.propagates = protocol, traceparent
        self.elide = elide  # content capture off: every message attribute is "<elided>"
        self.traceparents: list[str] = []
        agent = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                header = self.headers.get("traceparent") or ""
                agent.traceparents.append(header)
                final = agent.answer(body["messages"][-1]["content"], header)
                data = json.dumps(
                    {"choices": [{"message": {"role": "assistant", "content": final}}]}
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answer(self, user_text: str, traceparent: str) -> str:
        spans, final = self.recorded[user_text]
        match = _TRACEPARENT.match(traceparent)
        if match and self.propagates:
            trace_id, parent = match.groups()
            root = spans[0].span_id
            spans = [
                dataclasses.replace(
                    s,
                    trace_id=trace_id,
                    parent_id=parent if s.span_id == root else s.parent_id,
                    attributes={
                        k: "<elided>" if self.elide and k in _CONTENT else v for k, v in s.attributes.items()
                    },
                )
                for s in spans
            ]
            self._export(spans)
        return final

    def _export(self, spans: list[Any]) -> None:
        text = encode(
            spans, shape="request", base64_ids=self.protocol == "protobuf", plain=False, json_strings=True
        )
        if self.protocol == "protobuf":
            from google.protobuf.json_format import Parse
            from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

            data, kind = (
                Parse(text, ExportTraceServiceRequest()).SerializeToString(),
                "application/x-protobuf",
            )
        else:
            data, kind = text.encode(), "application/json"
        request = urllib.request.Request(
            f"{self.otlp_endpoint}/v1/traces", data=data, headers={"Content-Type": kind}, method="POST"
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 200

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_agent(request) -> Iterator[FakeAgent]:
    agent = FakeAgent(**getattr(request, "param", {}))
    yield agent
    agent.close()


@pytest.fixture
def otlp_port(fake_agent: FakeAgent) -> int:
    port = _free_port(taken=fake_agent.server.server_address[1])
    fake_agent.otlp_endpoint = f"http://127.0.0.1:{port}"
    return port


def _target(agent: FakeAgent, port: int, extra: str = "") -> str:
    return f"{agent.url}?model=travel&otlp_port={port}{extra}"


@pytest.mark.parametrize("fake_agent", [{"protocol": "json"}, {"protocol": "protobuf"}], indirect=True)
def test_a_live_agent_s_spans_score_as_its_recorded_trace_criterion_by_criterion(
    runner, fake_agent, otlp_port
):
    live = run_scores(
        runner, str(EVALSET), "--agent", _target(fake_agent, otlp_port), "--agent-type", "http-traces"
    )
    recorded = run_scores(runner, str(EVALSET), "--actual", str(ADK_TRACE))
    assert live == recorded
    assert ("flight_then_currency", "tool_trajectory_avg_score") in live
    assert len(fake_agent.traceparents) == 3 and all(_TRACEPARENT.match(h) for h in fake_agent.traceparents)
    assert len({h.split("-")[1] for h in fake_agent.traceparents}) == 3  # a new trace per turn


def test_the_traceparent_is_one_opentelemetry_s_propagator_extracts(runner, fake_agent, otlp_port):
    propagation = pytest.importorskip("opentelemetry.trace.propagation.tracecontext")
    from opentelemetry import trace

    target = _target(fake_agent, otlp_port)
    run_scores(runner, f"{EVALSET}:weather_paris", "--agent", target, "--agent-type", "http-traces")
    [header] = fake_agent.traceparents
    context = propagation.TraceContextTextMapPropagator().extract({"traceparent": header})
    span_context = trace.get_current_span(context).get_span_context()
    assert span_context.is_valid and span_context.is_remote
    assert f"{span_context.trace_id:032x}" == header.split("-")[1]


@pytest.mark.parametrize("fake_agent", [{"elide": True}], indirect=True)
def test_what_the_trace_lacks_is_not_evaluated_and_the_http_answer_stands_in_for_the_final_text(
    runner, fake_agent, otlp_port
):
    args = ["run", f"{EVALSET}:weather_paris", "--agent", _target(fake_agent, otlp_port)]
    result = runner.invoke(main, [*args, "--agent-type", "http-traces", "--format", "json", "--no-record"])
    [case] = json.loads(result.stdout)["eval_sets"][0]["cases"]
    results = {r["criterion"]: r for r in case["criteria"]}
    assert (results["response_match_score"]["score"], results["response_match_score"]["status"]) == (
        1.0,
        "PASSED",
    )
    elided = results["tool_trajectory_avg_score"]  # the tool calls' content was elided
    assert elided["status"] == "NOT_EVALUATED" and elided["reason_code"] == "content_elided"


def test_each_recorded_turn_keeps_its_trace_id(runner, fake_agent, otlp_port, tmp_path):
    args = ["run", str(EVALSET), "--agent", _target(fake_agent, otlp_port), "--agent-type", "http-traces"]
    result = runner.invoke(main, [*args, "--runs-dir", str(tmp_path), "--format", "json"])
    assert result.exit_code == 0, result.output
    trace_ids = {h.split("-")[1] for h in fake_agent.traceparents}
    [results] = tmp_path.rglob("results.jsonl")
    recorded = {
        turn["invocation_id"]
        for line in results.read_text().splitlines()
        for criterion in json.loads(line)["criteria"]
        for turn in criterion["per_invocation"]
    }
    assert recorded == trace_ids


@pytest.mark.parametrize("fake_agent", [{"traceparent": False}], indirect=True)
def test_an_agent_whose_spans_never_arrive_errors_its_cases_naming_the_settings(
    runner, fake_agent, otlp_port
):
    args = ["run", f"{EVALSET}:weather_paris", "--agent", _target(fake_agent, otlp_port, "&trace_wait=0.5")]
    result = runner.invoke(main, [*args, "--agent-type", "http-traces", "--format", "json", "--no-record"])
    assert result.exit_code != 0 and result.exit_code != 2, result.output
    out = json.loads(result.stdout)
    case = out["eval_sets"][0]["cases"][0]
    text = json.dumps(case)
    assert "did not reach http://127.0.0.1:" in text and "OTEL_EXPORTER_OTLP_ENDPOINT=" in text


def test_a_busy_receiver_port_stops_the_run_with_exit_2(runner, fake_agent):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        otlp_port = busy.getsockname()[1]
        args = ["run", str(EVALSET), "--agent", _target(fake_agent, otlp_port), "--agent-type", "http-traces"]
        result = runner.invoke(main, [*args, "--no-record"])
    assert result.exit_code == 2, result.output
    assert (
        f"cannot receive spans on 127.0.0.1:{otlp_port}" in result.output and "?otlp_port=N" in result.output
    )


@pytest.mark.parametrize(
    ("body", "kind", "status"),
    [
        (b'{"resourceSpans": [', "application/json", 400),
        (b'{"n": 1}', "application/json", 400),
        (b"\xff\x00garbage", "application/x-protobuf", 400),
    ],
)
def test_the_receiver_refuses_what_it_cannot_read_with_the_reason(body, kind, status):
    receiver = OtlpReceiver(0)
    try:
        request = urllib.request.Request(
            f"{receiver.endpoint}/v1/traces", data=body, headers={"Content-Type": kind}, method="POST"
        )
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=10)
        info.value.close()
        assert info.value.code == status and receiver.refused
    finally:
        receiver.close()


def test_the_receiver_answers_a_request_without_a_length_or_to_another_path():
    receiver = OtlpReceiver(0)
    try:
        with socket.create_connection(("127.0.0.1", int(receiver.endpoint.rsplit(":", 1)[1]))) as raw:
            raw.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n")
            assert raw.recv(100).startswith(b"HTTP/1.0 411")
        request = urllib.request.Request(f"{receiver.endpoint}/v1/logs", data=b"{}", method="POST")
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=10)
        info.value.close()
        assert info.value.code == 404
    finally:
        receiver.close()


def test_the_receiver_takes_gzip_bodies():
    import gzip

    spans = _recorded_turns()["What's the weather in Paris tomorrow?"][0]
    receiver = OtlpReceiver(0)
    try:
        data = gzip.compress(
            encode(spans, shape="request", base64_ids=False, plain=False, json_strings=True).encode()
        )
        request = urllib.request.Request(
            f"{receiver.endpoint}/v1/traces",
            data=data,
            headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 200
        assert len(receiver.take(spans[0].trace_id)) == len(spans)
    finally:
        receiver.close()


@pytest.mark.parametrize(
    ("body", "status", "said"),
    [
        (None, 413, "too large once decompressed"),  # a gzip bomb: 65 MB of zeros in about 64 KB
        (b"\x1f\x8b\x08\x00garbage", 400, "does not decompress"),
        ("cut", 400, "cut short"),
    ],
)
def test_the_receiver_decompresses_no_further_than_its_limit_and_refuses_bad_gzip(body, status, said):
    import gzip

    from agenteval_otel import _receiver

    if body is None:
        body = gzip.compress(b"\0" * (_receiver._MAX_BODY + 1024 * 1024), compresslevel=1)
        assert len(body) < _receiver._MAX_BODY // 100
    elif body == "cut":
        body = gzip.compress(b'{"resourceSpans": []}')[:-12]
    receiver = OtlpReceiver(0)
    try:
        request = urllib.request.Request(
            f"{receiver.endpoint}/v1/traces",
            data=body,
            headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
            method="POST",
        )
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=30)
        answer = info.value.read().decode()
        info.value.close()
        assert info.value.code == status and said in answer and receiver.refused
    finally:
        receiver.close()


def test_two_gzip_members_are_one_body():
    """As ``gzip.decompress`` reads them (some exporters flush a stream in members)."""
    import gzip

    from agenteval_otel._receiver import _gunzip

    text = b'{"resourceSpans": []}'
    assert _gunzip(gzip.compress(text[:9]) + gzip.compress(text[9:]), 1000) == text


def test_process_isolation_with_an_agent_scored_from_its_spans_stops_the_run_with_exit_2(
    runner, fake_agent, otlp_port
):
    """The receiver lives in the run's process: worker processes would each bind its port (and
    the first the run's own), so the combination is refused before any case runs, with the fix."""
    args = ["run", str(EVALSET), "--agent", _target(fake_agent, otlp_port), "--agent-type", "http-traces"]
    result = runner.invoke(main, [*args, "--agent-isolation", "process", "--no-record"])
    assert result.exit_code == 2, result.output
    assert "--agent-isolation process" in result.output and "drop --agent-isolation" in result.output
    assert fake_agent.traceparents == []  # no case ran
