"""Record ADK 2.13's own spans and its own invocations of the same runs: the ADK-recorded fixtures.

``python tests/plugins/otel/adk_recorder.py OUTDIR`` runs the scripted, offline test team
(``tests/fixtures/adk_agents/weather_team``: no key, no network) over its eval set with ADK's
own ``EvaluationGenerator.generate_responses`` once per telemetry schema
(``ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN`` 1 and 2) and content-capture mode
(``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``: NO_CONTENT, SPAN_ONLY, EVENT_ONLY,
SPAN_AND_EVENT), exporting every span and log record ADK emits to in-memory exporters. For
each ``v{schema}-{mode}`` it writes ``.otlp.json`` (the spans, OTLP/JSON), ``.otlp.logs.json``
(the log records, beside it: where EVENT_ONLY puts the content) and ``.actual.json`` (the
invocations ADK returned, as an ADK eval set). Each span carries ``agenteval.case_id`` (set
by a span processor while that case runs, as an agent would set it), so sessions match their
cases even when no user text is recorded. The tests run it at test time (nothing is
committed); run it by hand to look at what ADK emits.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
from tests.plugins.otel._encode import any_value  # noqa: E402 - the repository on the path first

TEAM = ROOT / "tests" / "fixtures" / "adk_agents" / "weather_team"
SCHEMAS = (1, 2)
MODES = ("NO_CONTENT", "SPAN_ONLY", "EVENT_ONLY", "SPAN_AND_EVENT")


def _attributes(values: Any) -> list[dict[str, Any]]:
    return [{"key": str(k), "value": any_value(v)} for k, v in dict(values or {}).items()]


def _span(span: Any) -> dict[str, Any]:
    context = span.get_span_context()
    out: dict[str, Any] = {
        "traceId": f"{context.trace_id:032x}",
        "spanId": f"{context.span_id:016x}",
        "name": span.name,
        "kind": int(span.kind.value) + 1,
        "startTimeUnixNano": str(span.start_time),
        "endTimeUnixNano": str(span.end_time),
        "attributes": _attributes(span.attributes),
        "events": [
            {"timeUnixNano": str(e.timestamp), "name": e.name, "attributes": _attributes(e.attributes)}
            for e in span.events
        ],
        "status": {"code": int(span.status.status_code.value)},
    }
    if span.parent is not None:
        out["parentSpanId"] = f"{span.parent.span_id:016x}"
    return out


def _log(data: Any) -> dict[str, Any]:
    record = data.log_record
    out: dict[str, Any] = {
        "timeUnixNano": str(record.timestamp or record.observed_timestamp),
        "attributes": _attributes(record.attributes),
    }
    if record.event_name:
        out["eventName"] = record.event_name
    if record.body is not None:
        out["body"] = any_value(record.body)
    if record.trace_id:
        out["traceId"] = f"{record.trace_id:032x}"
    if record.span_id:
        out["spanId"] = f"{record.span_id:016x}"
    return out


def _scope(items: list[Any]) -> str:
    scope = getattr(items[0], "instrumentation_scope", None) if items else None
    return getattr(scope, "name", None) or "gcp.vertex.agent"


def _case_stamp() -> Any:
    """A span processor that sets ``agenteval.case_id`` = ``case_id`` on every span it starts."""
    from opentelemetry.sdk.trace import SpanProcessor

    class CaseStamp(SpanProcessor):
        case_id = ""

        def on_start(self, span: Any, parent_context: Any = None) -> None:
            span.set_attribute("agenteval.case_id", self.case_id)

    return CaseStamp()


def record(out: Path) -> list[str]:
    """Write every schema × mode's files into ``out``; their names (``v2-SPAN_ONLY``, …)."""
    from opentelemetry import trace
    from opentelemetry._logs import set_logger_provider
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    spans, logs = InMemorySpanExporter(), InMemoryLogRecordExporter()
    tracer_provider, stamp = TracerProvider(), _case_stamp()
    tracer_provider.add_span_processor(stamp)
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    trace.set_tracer_provider(tracer_provider)
    logger_provider = LoggerProvider()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    set_logger_provider(logger_provider)

    sys.path.insert(0, str(TEAM.parent))
    from google.adk.evaluation.eval_set import EvalSet
    from google.adk.evaluation.evaluation_generator import EvaluationGenerator

    eval_set = EvalSet.model_validate_json((TEAM / "weather_team.evalset.json").read_text())
    names = []
    for schema in SCHEMAS:
        for mode in MODES:
            os.environ["ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN"] = str(schema)
            os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = mode
            spans.clear()
            logs.clear()
            responses = []
            for case in eval_set.eval_cases:
                stamp.case_id = case.eval_id
                one = eval_set.model_copy(update={"eval_cases": [case]})
                responses += asyncio.run(EvaluationGenerator.generate_responses(one, "weather_team", 1))
            name = f"v{schema}-{mode}"
            recorded = eval_set.model_copy(
                update={
                    "eval_set_id": f"{eval_set.eval_set_id}_{name}",
                    "eval_cases": [
                        r.eval_case.model_copy(update={"conversation": r.responses[0]}) for r in responses
                    ],
                }
            )
            (out / f"{name}.actual.json").write_text(recorded.model_dump_json(exclude_none=True, indent=1))
            finished, emitted = list(spans.get_finished_spans()), list(logs.get_finished_logs())
            trace_doc = {"resourceSpans": [{"scopeSpans": [{"scope": {"name": _scope(finished)}}]}]}
            trace_doc["resourceSpans"][0]["scopeSpans"][0]["spans"] = [_span(s) for s in finished]
            (out / f"{name}.otlp.json").write_text(json.dumps(trace_doc, indent=1))
            logs_doc = {"resourceLogs": [{"scopeLogs": [{"scope": {"name": _scope(emitted)}}]}]}
            logs_doc["resourceLogs"][0]["scopeLogs"][0]["logRecords"] = [_log(x) for x in emitted]
            (out / f"{name}.otlp.logs.json").write_text(json.dumps(logs_doc, indent=1))
            names.append(name)
    return names


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    target.mkdir(parents=True, exist_ok=True)
    print("\n".join(record(target)))
