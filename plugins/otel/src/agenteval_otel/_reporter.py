"""``--report otel``: the run's verdicts as OpenTelemetry ``gen_ai.evaluation.result`` events.

One log record per criterion result of every case × run (and, for a case of several turns,
one per turn's result), with the GenAI attributes ``gen_ai.evaluation.name`` (the criterion),
``.score.value`` (absent when there is no score), ``.score.label`` (the status, lowercase:
``passed``, ``failed``, ``not_evaluated``, ``errored``, ``informational``), ``.explanation``
(the reason) and ``error.type`` (the reason code of a result with no score), plus
``agenteval.*`` attributes saying which run, set, case and threshold.

**Parenting**: when the run's turns came from a trace (``--actual TRACE``, still unchanged on
disk: its sha256 is the manifest's), each record carries the ``traceId`` and ``spanId`` of the
turn's root span (the case's first turn for a case result), so an OTel backend shows the
verdict beside the spans it judges.

**Where**: always ``agenteval.otel.json`` (an OTLP/JSON logs export request) in the report
folder; and, when ``OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`` (used as is) or
``OTEL_EXPORTER_OTLP_ENDPOINT`` (``/v1/logs`` appended) is set, POSTed there as OTLP/HTTP JSON
with the headers of ``OTEL_EXPORTER_OTLP_LOGS_HEADERS`` / ``OTEL_EXPORTER_OTLP_HEADERS`` and
the timeout of ``OTEL_EXPORTER_OTLP_LOGS_TIMEOUT`` / ``OTEL_EXPORTER_OTLP_TIMEOUT``
(milliseconds, default 10 s). A failed delivery, a protocol other than ``http/json`` or an
endpoint that is not an http(s) URL is a warning on the report's stream and nothing is sent:
the file stays, and the run's own report and exit code are not lost to its reporter.
"""

from __future__ import annotations

import hashlib
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Optional

from agenteval import CriterionResult, Status
from agenteval.plugins import ReportContext, Reporter

__all__ = ["OtelReporter"]

FILE_NAME = "agenteval.otel.json"
EVENT_NAME = "gen_ai.evaluation.result"
_SEVERITY = {Status.FAILED: (13, "WARN"), Status.ERRORED: (17, "ERROR")}
#: (trace id, span id) by invocation id.
SpanIndex = Mapping[str, tuple[str, str]]


class OtelReporter(Reporter):
    """gen_ai.evaluation.result log records (see the module docstring)."""

    description = (
        f"{FILE_NAME}: gen_ai.evaluation.result log records (OTLP/JSON), parented to the evaluated "
        "spans; also sent to OTEL_EXPORTER_OTLP_(LOGS_)ENDPOINT when set"
    )

    def write(self, context: ReportContext) -> list[Path]:
        target = context.folder / FILE_NAME
        # a lone surrogate (untrusted text) is written as its escape, as the other reports do
        with target.open("w", encoding="utf-8", errors="backslashreplace") as handle:
            write_request(context, handle)
        try:
            endpoint = _endpoint(context.environ)
        except ValueError as exc:
            context.stream.write(f"warning: the verdicts were not sent: {exc}; they are in {target}\n")
            return [target]
        if endpoint is not None:
            _post(endpoint, target.read_bytes().rstrip(b"\n"), context)
        return [target]


def write_request(context: ReportContext, out: IO[str]) -> None:
    """``json.dumps(export_request(context), ensure_ascii=False)`` and a newline into ``out``,
    one log record at a time (a 100k-case run's request is hundreds of MB of text)."""
    run = context.run
    spans = _span_index(run.manifest.actual_files, context)
    head, marker, tail = json.dumps(export_request(context, ()), ensure_ascii=False).partition(
        '"logRecords": []'
    )
    assert marker, "the request's frame holds its log records"
    out.write(head + '"logRecords": [')
    separator = ""
    for record in _records(run, spans):
        out.write(separator + json.dumps(record, ensure_ascii=False))
        separator = ", "
    out.write("]" + tail + "\n")


def export_request(
    context: ReportContext, records: Optional[Sequence[dict[str, Any]]] = None
) -> dict[str, Any]:
    """The OTLP/JSON ``ExportLogsServiceRequest`` of the run's results (``records``: these
    log records instead)."""
    from agenteval import __version__

    if records is None:
        run = context.run
        records = list(_records(run, _span_index(run.manifest.actual_files, context)))
    return {
        "resourceLogs": [
            {
                "resource": {"attributes": _attributes({"service.name": "agenteval"})},
                "scopeLogs": [
                    {"scope": {"name": "agenteval", "version": __version__}, "logRecords": records}
                ],
            }
        ]
    }


def _records(run: Any, spans: SpanIndex) -> Iterator[dict[str, Any]]:
    now = str(time.time_ns())
    for record in run.records(scored=True):  # no turn's content: only the turns' ids
        turns = record.actual.invocations if record.actual is not None else []
        parents = [spans.get(turn.invocation_id) for turn in turns]
        common = {
            "agenteval.run_id": record.run_id,
            "agenteval.eval_set_id": record.eval_set_id,
            "agenteval.case_id": record.case_id,
            "agenteval.run_index": record.run_index,
        }
        for result in record.criteria:
            yield _record(result, common, parents[0] if parents else None, now)
            if len(turns) > 1:
                for item in result.per_invocation:
                    parent = parents[item.index] if item.index < len(parents) else None
                    per_turn = {**common, "agenteval.invocation_index": item.index}
                    yield _record(
                        result.model_copy(
                            update={
                                "score": item.score,
                                "status": item.status,
                                "reason": item.reason,
                                "reason_code": item.reason_code,
                            }
                        ),
                        per_turn,
                        parent,
                        now,
                    )


def _record(
    result: CriterionResult, common: dict[str, Any], parent: Optional[tuple[str, str]], now: str
) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "event.name": EVENT_NAME,
        "gen_ai.evaluation.name": result.criterion,
        "gen_ai.evaluation.score.label": result.status.value.lower(),
    }
    if result.score is not None:
        attributes["gen_ai.evaluation.score.value"] = float(result.score)
    if result.reason:
        attributes["gen_ai.evaluation.explanation"] = result.reason
    if result.score is None and result.reason_code:
        attributes["error.type"] = result.reason_code
    if result.threshold is not None:
        attributes["agenteval.threshold"] = float(result.threshold)
    attributes.update(common)
    number, text = _SEVERITY.get(result.status, (9, "INFO"))
    item: dict[str, Any] = {
        "timeUnixNano": now,
        "observedTimeUnixNano": now,
        "severityNumber": number,
        "severityText": text,
        "eventName": EVENT_NAME,
        "attributes": _attributes(attributes),
    }
    if parent is not None:
        item["traceId"], item["spanId"] = parent
    return item


def _attributes(values: Mapping[str, Any]) -> list[dict[str, Any]]:
    def value(v: Any) -> dict[str, Any]:
        if isinstance(v, bool):
            return {"boolValue": v}
        if isinstance(v, int):
            return {"intValue": str(v)}
        if isinstance(v, float):
            return {"doubleValue": v}
        return {"stringValue": str(v)}

    return [{"key": k, "value": value(v)} for k, v in values.items()]


def _span_index(files: Any, context: ReportContext) -> dict[str, tuple[str, str]]:
    """The root span of every turn of the run's trace inputs, by invocation id."""
    from ._otlp import read_spans, sniff
    from ._turns import turns_of

    index: dict[str, tuple[str, str]] = {}
    for entry in files:
        path = Path(entry.path)
        if not path.is_file():
            continue
        raw = path.read_bytes()
        if not sniff(raw[:65536]):
            continue
        if entry.sha256 and hashlib.sha256(raw).hexdigest() != entry.sha256:
            context.stream.write(
                f"warning: {path} changed since the run; its verdicts are written without their spans\n"
            )
            continue
        turns, _ = turns_of(read_spans(path))
        for turn in turns:
            index.setdefault(turn.invocation_id, (turn.trace_id, turn.span_id))
    return index


def _setting(environ: Mapping[str, str], name: str) -> Optional[str]:
    """``OTEL_EXPORTER_OTLP_LOGS_<name>``, else ``OTEL_EXPORTER_OTLP_<name>`` (blank is unset)."""
    for key in (f"OTEL_EXPORTER_OTLP_LOGS_{name}", f"OTEL_EXPORTER_OTLP_{name}"):
        value = (environ.get(key) or "").strip()
        if value:
            return value
    return None


def _endpoint(environ: Mapping[str, str]) -> Optional[str]:
    protocol = _setting(environ, "PROTOCOL")
    logs = (environ.get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT") or "").strip()
    base = (environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or "").strip()
    endpoint = logs or (base.rstrip("/") + "/v1/logs" if base else None)
    if endpoint is None:
        return None
    if protocol not in (None, "http/json"):
        raise ValueError(
            f"OTEL_EXPORTER_OTLP_PROTOCOL is {protocol!r} and --report otel sends OTLP/HTTP JSON only. "
            "Fix: set OTEL_EXPORTER_OTLP_LOGS_PROTOCOL=http/json (the Collector accepts it over OTLP/HTTP)"
        )
    if urllib.parse.urlsplit(endpoint).scheme not in ("http", "https"):
        raise ValueError(
            f"the OTLP endpoint {endpoint!r} is not an http(s) URL. Fix: e.g. http://localhost:4318"
        )
    return endpoint


def _headers(environ: Mapping[str, str]) -> dict[str, str]:
    """``key=value`` pairs, comma-separated, values percent-decoded (the OTel exporter spec)."""
    headers = {}
    for pair in (_setting(environ, "HEADERS") or "").split(","):
        key, sep, value = pair.partition("=")
        if sep and key.strip():
            headers[key.strip()] = urllib.parse.unquote(value.strip())
    return headers


def _post(endpoint: str, body: bytes, context: ReportContext) -> None:
    timeout_ms = _setting(context.environ, "TIMEOUT")
    try:
        timeout = float(timeout_ms) / 1000 if timeout_ms else 10.0
    except ValueError:
        timeout = 10.0
    headers = {**_headers(context.environ), "Content-Type": "application/json"}
    request = urllib.request.Request(endpoint, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            answer.read()
    except urllib.error.HTTPError as exc:
        problem = f"HTTP {exc.code} {exc.reason}"
    except (urllib.error.URLError, OSError) as exc:
        problem = str(getattr(exc, "reason", exc))
    else:
        context.stream.write(f"otel: verdicts sent to {endpoint}\n")
        return
    context.stream.write(
        f"warning: the verdicts could not be sent to {endpoint} ({problem}); they are in "
        f"{context.folder / FILE_NAME}\n"
    )
