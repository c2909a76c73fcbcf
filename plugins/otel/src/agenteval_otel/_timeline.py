"""The spans of each turn as rows of a waterfall (``OtelReader.timeline``, the viewer's view).

A row per span of the turn's subtree, depth first in start order: its name, GenAI operation,
depth under the turn's root, start (milliseconds after the root's start) and duration, and
what a person reads to follow the turn: the tool's name, arguments and result, the model and
its token counts. Values are JSON text clipped to ``CLIP`` characters.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ._span import Span
from ._turns import Tree, turns_of

__all__ = ["CLIP", "timeline_of"]

CLIP = 2000
_SHOWN = {
    "gen_ai.tool.name": "tool",
    "gen_ai.tool.call.arguments": "arguments",
    "gcp.vertex.agent.tool_call_args": "arguments",
    "gen_ai.tool.call.result": "result",
    "gcp.vertex.agent.tool_response": "result",
    "gen_ai.request.model": "model",
    "gen_ai.usage.input_tokens": "input tokens",
    "gen_ai.usage.output_tokens": "output tokens",
    "gen_ai.agent.name": "agent",
}


def timeline_of(spans: Sequence[Span], invocation_ids: Sequence[str]) -> list[dict[str, Any]]:
    """The waterfall of each turn whose invocation id is given, in the order given."""
    wanted = set(invocation_ids)
    turns = [t for t in turns_of(spans)[0] if t.invocation_id in wanted]
    by_trace: dict[str, list[Span]] = defaultdict(list)
    needed = {t.trace_id for t in turns}
    for span in spans:
        if span.trace_id in needed:
            by_trace[span.trace_id].append(span)
    trees = {trace_id: Tree(items) for trace_id, items in by_trace.items()}
    found = {}
    for turn in turns:
        tree = trees[turn.trace_id]
        root = tree.by_id[turn.span_id]
        found.setdefault(
            turn.invocation_id,
            {
                "invocation_id": turn.invocation_id,
                "trace_id": turn.trace_id,
                "duration_ms": (root.end - root.start) / 1e6,
                "spans": [_row(tree, root, span) for span in tree.walk(root)],
            },
        )
    return [found[i] for i in invocation_ids if i in found]


def _row(tree: Tree, root: Span, span: Span) -> dict[str, Any]:
    depth = 0
    for ancestor in tree.ancestors(span):
        if ancestor.span_id == root.span_id:
            break
        depth += 1
    shown = {}
    for key, label in _SHOWN.items():
        value = span.attributes.get(key)
        if value is not None and label not in shown:
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            shown[label] = text if len(text) <= CLIP else text[: CLIP - 1] + "…"
    return {
        "span_id": span.span_id,
        "name": span.name,
        "operation": span.operation,
        "depth": 0 if span is root else depth + 1,
        "start_ms": (span.start - root.start) / 1e6,
        "duration_ms": (span.end - span.start) / 1e6,
        "attributes": shown,
    }
