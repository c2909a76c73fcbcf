"""Spreading spans over a file's lines (or a document's resources), and how many spans the
otel reader holds while it turns the file's traces into turns."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest
from agenteval_otel import _select
from agenteval_otel._otlp import Span
from agenteval_otel._select import read_turns


def in_batches(spans: list[Span], order: list[int], cuts: list[int]) -> list[list[Span]]:
    """``spans`` taken in ``order`` and cut into batches of the sizes ``cuts`` gives in turn
    (``cuts`` has at least as many sizes as there are spans)."""
    ordered = [spans[i] for i in order]
    batches, sizes = [], iter(cuts)
    while ordered:
        size = next(sizes)
        batches.append(ordered[:size])
        ordered = ordered[size:]
    return batches


def spans_by_trace(spans: list[Span]) -> list[list[Span]]:
    """``spans`` grouped by trace, in order of first sight."""
    by_trace: dict[str, list[Span]] = {}
    for span in spans:
        by_trace.setdefault(span.trace_id, []).append(span)
    return list(by_trace.values())


def assert_one_trace_held_at_a_time(
    path: Path, traces: list[list[Span]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading ``path`` (the spans of ``traces``) turns each trace as soon as it can, holding
    at most one trace's spans beyond the ones the test module itself keeps."""
    held: list[int] = []
    original = _select.trace_turns

    def counting(trace_id: str, spans: list[Span], **options: bool) -> Any:
        held.append(sum(type(o) is Span for o in gc.get_objects()))
        return original(trace_id, spans, **options)

    monkeypatch.setattr(_select, "trace_turns", counting)
    monkeypatch.setattr(_select, "HELD_SPANS", 1)
    read_turns(path)
    assert len(held) == len(traces) > 1
    baseline = sum(type(o) is Span for o in gc.get_objects())  # the test module's own spans
    assert max(held) - baseline <= max(map(len, traces))
