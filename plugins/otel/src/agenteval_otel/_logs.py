"""OTLP log records (``resourceLogs``): where GenAI content goes under ``EVENT_ONLY`` capture.

A record that names a span (``spanId``) and carries content attributes
(``gen_ai.input.messages``, ``gen_ai.output.messages``, tool arguments and results), as
attributes or in a key-value ``body``, gives them to that span when the span has none or only
``<elided>`` (``merge_logs``). Records naming no span of the file are ignored.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

from agenteval.errors import DataError

from ._span import Span, content_from_events, hex_id, list_at

__all__ = ["LOG_KEYS", "log_records", "merge_logs"]

#: An export request's list of log resources.
LOG_KEYS = ("resourceLogs", "resource_logs")
_SCOPE_KEYS = ("scopeLogs", "scope_logs", "instrumentationLibraryLogs", "instrumentation_library_logs")
_RECORD_KEYS = ("logRecords", "log_records")


def log_records(document: dict[str, Any], prefix: str, where: str) -> Iterator[dict[str, Any]]:
    """The log records of an OTLP logs request, as they are in the file."""
    key = next(k for k in LOG_KEYS if k in document)
    for r, resource in enumerate(list_at(document[key], f"{prefix}{key}", where)):
        for scope_key in _SCOPE_KEYS:
            if not isinstance(resource, dict):
                raise DataError(f"{prefix}{key}[{r}]: expected an object", source=where)
            for s, scope in enumerate(
                list_at(resource.get(scope_key), f"{prefix}{key}[{r}].{scope_key}", where)
            ):
                if not isinstance(scope, dict):
                    raise DataError(f"{prefix}{key}[{r}].{scope_key}[{s}]: expected an object", source=where)
                records = next((scope[k] for k in _RECORD_KEYS if k in scope), None)
                yield from list_at(records, f"{prefix}{key}[{r}].{scope_key}[{s}].logRecords", where)


def merge_logs(spans: Sequence[Span], records: Sequence[dict[str, Any]], where: str) -> None:
    """Give each span the content of the log records that name it (see the module docstring)."""
    by_span: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise DataError(f"log record {index}: expected an object", source=where)
        raw = record.get("spanId", record.get("span_id"))
        if raw:
            by_span[hex_id(raw, 8, f"log record {index}.spanId", where)].append(record)
    for span in spans:
        found = by_span.get(span.span_id)
        if found:
            content_from_events(span.attributes, found, f"{span.where} logs", where, replace=True)
