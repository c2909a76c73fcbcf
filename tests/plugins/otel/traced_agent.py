"""A small agent for ``--agent-command`` tests, any-language style: no agenteval, no OTel SDK.

It serves ``POST /v1/chat/completions`` on ``$PORT`` and, for each request, exports an OTLP/JSON
GenAI span tree (``invoke_agent`` → ``chat`` with a tool call → ``execute_tool`` → ``chat`` with
the final text) by a plain HTTP POST to ``$OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces``, in the
trace of the request's ``traceparent``. Its HTTP answer's text is a placeholder: the scores
come from its spans. Options: ``--die-on N`` (exit 3 on the N-th request, before answering),
``--never-listen``, ``--hang`` (requests never answered), ``--pid-file F`` (write its pid and
a child's, which it starts, to F).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: User text → (tool, arguments, result, final text): the travel eval set's expected turns.
ANSWERS = {
    "What's the weather in Paris tomorrow?": (
        "get_weather",
        {"city": "Paris", "day": "tomorrow"},
        {"forecast": "sunny", "high_c": 24},
        "Tomorrow in Paris it will be sunny with a high of 24 degrees Celsius.",
    ),
    "Find me a flight from Berlin to Tokyo on 12 March.": (
        "search_flights",
        {"origin": "BER", "destination": "HND", "date": "2027-03-12"},
        {"flight": "LH716", "departs": "09:40", "price_eur": 780},
        "I found a direct flight from Berlin to Tokyo on 12 March at 09:40 for 780 euros.",
    ),
    "How much is that in Japanese yen?": (
        "convert_currency",
        {"amount": 780, "from": "EUR", "to": "JPY"},
        {"amount": 126000},
        "780 euros is about 126,000 Japanese yen at today's rate.",
    ),
}
PLACEHOLDER = "(the answer is in the trace)"


def _attributes(values: dict) -> list[dict]:
    out = []
    for key, value in values.items():
        if isinstance(value, int):
            out.append({"key": key, "value": {"intValue": str(value)}})
        else:
            text = value if isinstance(value, str) else json.dumps(value)
            out.append({"key": key, "value": {"stringValue": text}})
    return out


def _span(trace_id: str, parent: str, name: str, start: int, attributes: dict) -> dict:
    return {
        "traceId": trace_id,
        "spanId": secrets.token_hex(8),
        "parentSpanId": parent,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 1_000_000),
        "attributes": _attributes(attributes),
    }


def spans_for(user_text: str, trace_id: str, parent: str) -> list[dict]:
    tool, args, result, final = ANSWERS[user_text]
    now = time.time_ns()
    root = _span(trace_id, parent, "invoke_agent travel", now, {"gen_ai.operation.name": "invoke_agent"})
    root["attributes"] += _attributes({"gen_ai.agent.name": "travel"})
    root["endTimeUnixNano"] = str(now + 10_000_000)
    agent = root["spanId"]
    user = [{"role": "user", "parts": [{"type": "text", "content": user_text}]}]
    call = {"type": "tool_call", "id": "call_1", "name": tool, "arguments": args}
    return [
        root,
        _span(
            trace_id,
            agent,
            "chat fake-model",
            now + 1_000_000,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "fake-model",
                "gen_ai.usage.input_tokens": 50,
                "gen_ai.usage.output_tokens": 7,
                "gen_ai.input.messages": user,
                "gen_ai.output.messages": [{"role": "assistant", "parts": [call]}],
            },
        ),
        _span(
            trace_id,
            agent,
            f"execute_tool {tool}",
            now + 3_000_000,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": tool,
                "gen_ai.tool.call.id": "call_1",
                "gen_ai.tool.call.arguments": args,
                "gen_ai.tool.call.result": result,
            },
        ),
        _span(
            trace_id,
            agent,
            "chat fake-model",
            now + 5_000_000,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "fake-model",
                "gen_ai.usage.input_tokens": 70,
                "gen_ai.usage.output_tokens": 20,
                "gen_ai.input.messages": user,
                "gen_ai.output.messages": [
                    {"role": "assistant", "parts": [{"type": "text", "content": final}]}
                ],
            },
        ),
    ]


def export(spans: list[dict]) -> None:
    body = {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "traced-agent"}, "spans": spans}]}]}
    request = urllib.request.Request(
        os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] + "/v1/traces",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--die-on", type=int, default=0)
    parser.add_argument("--never-listen", action="store_true")
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--pid-file")
    options = parser.parse_args()
    print(f"traced agent starting on port {os.environ['PORT']}", file=sys.stderr, flush=True)
    if options.pid_file:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(options.pid_file, "w") as pids:
            pids.write(f"{os.getpid()} {child.pid}\n")
    if options.never_listen:
        time.sleep(600)
    seen = [0]

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen[0] += 1
            if seen[0] == options.die_on:
                print(f"traced agent: request {seen[0]}, giving up", file=sys.stderr, flush=True)
                os._exit(3)
            if options.hang:
                print("traced agent: hanging", file=sys.stderr, flush=True)
                time.sleep(600)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            _, trace_id, parent, _ = self.headers["traceparent"].split("-")
            export(spans_for(body["messages"][-1]["content"], trace_id, parent))
            data = json.dumps(
                {"choices": [{"message": {"role": "assistant", "content": PLACEHOLDER}}]}
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()


if __name__ == "__main__":
    main()
