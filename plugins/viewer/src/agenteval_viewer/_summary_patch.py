"""What changed in a live run's summary since the one a client holds (``GET
/api/runs/<id>/summary?since=<version>``), instead of the whole summary again.

Each summary the server builds of a running run carries a ``version`` (the state of the run's
files it was built from); the server keeps the last few it built. A patch
(``agenteval.viewer.summary-patch/1``) holds ``since`` and the new ``version``; ``set``, the
top-level keys whose value changed (``criteria`` whole only when the criteria themselves
changed, which a running run never does); and ``criteria``, per criterion name, the keys of
its entry whose value changed. Applying it to the summary of ``since`` gives the summary of
``version`` exactly.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SUMMARY_PATCH_SCHEMA", "summary_patch"]

SUMMARY_PATCH_SCHEMA = "agenteval.viewer.summary-patch/1"


def _changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in after.items() if key not in before or before[key] != value}


def summary_patch(before: dict[str, Any], after: dict[str, Any], since: str) -> dict[str, Any]:
    """The patch from ``before`` (the summary of version ``since``) to ``after``."""
    changed = _changed({k: v for k, v in before.items() if k != "criteria"}, after)
    changed.pop("criteria", None)
    old, new = before.get("criteria") or [], after.get("criteria") or []
    criteria: dict[str, dict[str, Any]] = {}
    same_names = [c["name"] for c in old] == [c["name"] for c in new]
    if not same_names or any(set(a) - set(b) for a, b in zip(old, new, strict=True)):
        changed["criteria"] = new  # another set of criteria (or keys gone): sent whole
    else:
        for was, now in zip(old, new, strict=True):
            diff = _changed(was, now)
            if diff:
                criteria[now["name"]] = diff
    return {
        "schema": SUMMARY_PATCH_SCHEMA,
        "run_id": after["run_id"],
        "since": since,
        "version": after["version"],
        "set": changed,
        "criteria": criteria,
    }
