"""Rendering runs: the terminal table (rich) and the JSON document of a ``RunResult``, and
the reporter plugins (``Reporter``, entry-point group ``agenteval.reporters``) that turn a
recorded run into JUnit, Markdown, GitHub outputs and more (``write_reports``), and the aligned
expected-vs-actual tool trajectory every report shows (``align_trajectory``).

Private: the reporter contract and the trajectory alignment are public in ``agenteval.plugins``.

Imported on first use, so that ``--format json`` never imports rich.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "ArgDiff",
    "CaseSpool",
    "CaseView",
    "ReportContext",
    "Reporter",
    "TrajectoryRow",
    "align_trajectory",
    "case_views",
    "diff_text",
    "file_console",
    "json_chunks",
    "render_json",
    "render_table",
    "resolve_reporters",
    "row_text",
    "rows_from_details",
    "write_json",
    "write_reports",
]

_MODULES = {
    "render_json": "._json",
    "write_json": "._json",
    "json_chunks": "._json",
    "CaseSpool": "._spool",
    "CaseView": "._cases",
    "case_views": "._cases",
    "render_table": "._table",
    "file_console": "._table",
    "Reporter": "._contract",
    "ReportContext": "._contract",
    "resolve_reporters": "._reporters",
    "write_reports": "._reporters",
    "align_trajectory": "._alignment",
    "TrajectoryRow": "._alignment",
    "ArgDiff": "._alignment",
    "rows_from_details": "._alignment",
    "row_text": "._alignment",
    "diff_text": "._alignment",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'agenteval._reporting' has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)


if TYPE_CHECKING:
    from ._alignment import ArgDiff, TrajectoryRow, align_trajectory, diff_text, row_text, rows_from_details
    from ._cases import CaseView, case_views
    from ._contract import ReportContext, Reporter
    from ._json import json_chunks, render_json, write_json
    from ._reporters import resolve_reporters, write_reports
    from ._spool import CaseSpool
    from ._table import file_console, render_table
