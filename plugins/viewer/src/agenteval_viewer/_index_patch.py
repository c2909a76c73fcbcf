"""The rows of a live run's case index that changed since a cursor (``GET
/api/runs/<id>/index?since=<cursor>``), instead of the whole index again.

A cursor is a byte offset in the run's ``results.jsonl`` just past a complete line: the whole
index carries the one taken before it was built (``cursor``), and each patch carries the next.
Rows whose records were appended between the two are in the patch; a row written while the
index was built may come twice (in the index and in the next patch), never not at all.

A patch (``agenteval.viewer.index-patch/1``): ``since`` and ``cursor``; the legends of the
index (``reason_codes``, ``rubrics``, ``criteria``: whole, a client replaces its own; codes
already in a legend keep their place, new ones are appended); ``rows`` (ascending), and for
them, in that order, ``status``, ``search`` and ``by_criterion[name]`` ``status`` / ``score``
lists, with the sparse ``failed_rubrics`` and ``reason_code`` maps of those rows only (a
patched row absent from a map has no entry there any more).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["PATCH_SCHEMA", "index_patch"]

PATCH_SCHEMA = "agenteval.viewer.index-patch/1"


def index_patch(index: dict[str, Any], rows: Sequence[int], since: int, cursor: int) -> dict[str, Any]:
    """The patch of ``index`` (a whole ``case_index``) for ``rows``, from ``since`` to ``cursor``."""
    rows = sorted(r for r in set(rows) if 0 <= r < index["n"])
    keys = [str(r) for r in rows]
    failed = index.get("failed_rubrics", {})
    return {
        "schema": PATCH_SCHEMA,
        "run_id": index["run_id"],
        "n": index["n"],
        "since": since,
        "cursor": cursor,
        "reason_codes": index["reason_codes"],
        "rubrics": index["rubrics"],
        "criteria": index["criteria"],
        "rows": rows,
        "status": [index["status"][r] for r in rows],
        "search": [index["search"][r] for r in rows],
        "failed_rubrics": {k: failed[k] for k in keys if k in failed},
        "by_criterion": {
            name: {
                "status": [columns["status"][r] for r in rows],
                "score": [columns["score"][r] for r in rows],
                "reason_code": {k: columns["reason_code"][k] for k in keys if k in columns["reason_code"]},
            }
            for name, columns in index["by_criterion"].items()
        },
    }
