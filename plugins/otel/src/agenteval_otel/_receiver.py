"""A loopback OTLP/HTTP receiver: the spans a live agent exports while it is evaluated.

``OtlpReceiver(port)`` listens on ``127.0.0.1`` (``port=0``: any free port) in a thread and
accepts ``POST /v1/traces`` with an ``ExportTraceServiceRequest`` as JSON
(``application/json``) or protobuf (``application/x-protobuf``, decoded with
``opentelemetry-proto``), gzip-compressed or not, as the OTLP/HTTP exporters of every
language send it. It keeps the spans by trace id; ``spans(trace_id)`` takes them out. A
body it cannot read is answered ``400`` with the reason (the exporter logs it) and noted in
``refused``; a body larger than ``_MAX_BODY``, sent or once decompressed, ``413`` (a gzip
body is decompressed no further than that). Nothing else is kept, nothing leaves the
machine.
"""

from __future__ import annotations

import json
import threading
import zlib
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agenteval.errors import DataError

from ._otlp import Span, request_spans

__all__ = ["TRACES_PATH", "OtlpReceiver"]

#: Where OTLP/HTTP exporters send spans (``OTEL_EXPORTER_OTLP_ENDPOINT`` + this path).
TRACES_PATH = "/v1/traces"
#: The largest export request read (bytes), as sent and once decompressed; a larger one is
#: refused with 413.
_MAX_BODY = 64 * 1024 * 1024


class _TooLarge(Exception):
    """A body past ``_MAX_BODY`` once decompressed."""


def _gunzip(body: bytes, limit: int) -> bytes:
    """``body``'s gzip members decompressed, no further than ``limit`` bytes (``_TooLarge``
    past it: a small body may decompress to gigabytes); ``DataError`` when it is not gzip."""
    out = bytearray()
    rest = body
    try:
        while rest:
            member = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out += member.decompress(rest, limit + 1 - len(out))
            if len(out) > limit or member.unconsumed_tail:
                raise _TooLarge
            if not member.eof:
                raise DataError("a gzip body that does not decompress (it is cut short)")
            rest = member.unused_data
    except zlib.error as exc:
        raise DataError(f"a gzip body that does not decompress ({exc})") from None
    return bytes(out)


def _protobuf_request(body: bytes) -> dict[str, Any]:
    """An ``ExportTraceServiceRequest`` in protobuf as the OTLP/JSON dict the reader reads
    (ids come out base64, which the reader accepts)."""
    from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]
    from google.protobuf.message import DecodeError  # type: ignore[import-untyped]
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    message = ExportTraceServiceRequest()
    try:
        message.ParseFromString(body)
    except DecodeError as exc:
        raise DataError(f"not an OTLP protobuf export request ({exc})") from None
    return MessageToDict(message)


class OtlpReceiver:
    """The receiver (see the module docstring); ``close()`` stops it."""

    def __init__(self, port: int = 0) -> None:
        self._lock = threading.Condition()
        self._spans: dict[str, list[Span]] = defaultdict(list)
        #: Why each refused request was refused, in order.
        self.refused: list[str] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="agenteval-otlp-receiver", daemon=True
        )
        self._thread.start()

    @property
    def endpoint(self) -> str:
        """The value of ``OTEL_EXPORTER_OTLP_ENDPOINT`` that sends an agent's spans here."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def spans(self, trace_id: str) -> list[Span]:
        """The spans received so far of the trace ``trace_id`` (lowercase hex)."""
        with self._lock:
            return list(self._spans.get(trace_id, ()))

    def take(self, trace_id: str) -> list[Span]:
        """The spans of ``trace_id``, forgotten by the receiver."""
        with self._lock:
            return self._spans.pop(trace_id, [])

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _accept(self, body: bytes, content_type: str, encoding: str) -> None:
        if encoding == "gzip":
            body = _gunzip(body, _MAX_BODY)
        if content_type == "application/x-protobuf":
            document = _protobuf_request(body)
        else:
            try:
                document = json.loads(body)
            except (ValueError, RecursionError) as exc:
                raise DataError(f"not JSON ({str(exc).split(';', 1)[0]})") from None
        spans = request_spans(document, "the export request")
        with self._lock:
            for span in spans:
                self._spans[span.trace_id].append(span)
            self._lock.notify_all()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                if self.path.split("?", 1)[0] != TRACES_PATH:
                    self._answer(404, f"only {TRACES_PATH} is received here")
                    return
                try:
                    length = int(self.headers.get("Content-Length") or "")
                except ValueError:
                    length = -1
                if length < 0:
                    self._answer(411, "a Content-Length is required")
                    return
                if length > _MAX_BODY:
                    self._answer(413, "export request too large")
                    return
                body = self.rfile.read(length)
                content_type = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
                encoding = (self.headers.get("Content-Encoding") or "").strip().lower()
                try:
                    receiver._accept(body, content_type, encoding)
                except DataError as exc:
                    receiver.refused.append(str(exc))
                    self._answer(400, str(exc))
                    return
                except _TooLarge:
                    receiver.refused.append("an export request too large once decompressed")
                    self._answer(413, "export request too large once decompressed")
                    return
                if content_type == "application/x-protobuf":  # an empty ExportTraceServiceResponse
                    self._answer(200, "", content_type=content_type)
                else:
                    self._answer(200, "{}", content_type="application/json")

            def _answer(self, status: int, text: str, content_type: str = "text/plain") -> None:
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # exporters retry; the run's output is not the place for access logs

        return Handler
