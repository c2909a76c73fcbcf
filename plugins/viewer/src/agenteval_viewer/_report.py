"""The single-file HTML report: the viewer's front end with the run's data inlined.

One file, no network access: the CSS and the vendored JavaScript are inlined, a
Content-Security-Policy meta tag forbids everything else, and the data travels as JSON islands
(``<script type="application/json">``): ``ae-summary``, ``ae-index`` (every case), and
``ae-details-<k>`` (the details of rows ``k*1000`` … ``k*1000+999`` that made it in, as
``{row: detail}``), parsed by the page only when a case of that chunk is opened.

Details are added failing cases first (worst status first, then plan order), then passing
ones (``details="all"``), until the file would pass ``max_mb``; the summary island says how
many were left out, and the page says so. The islands escape ``<``, ``>``, ``&`` and U+2028/9,
so no text in a run (``</script>``, ``<!--``) can end an island early.

The stdlib is enough here (no Jinja2): the shell is a static file with three markers, and the
only escaping needed is the JSON islands', done in ``island``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Optional

from agenteval.runs import RecordedRun

from ._bundle import STATUS_LEGEND, case_index, run_summary, scan
from ._modules import IMPORT, MODULE_TAG, module_graph
from ._store import encode_json

__all__ = ["CSP", "DETAILS_CHOICES", "ReportStats", "build_report", "island", "render_report"]

CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
DETAILS_CHOICES = ("nonpassing", "all", "none")
CHUNK = 1000
_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_UNSAFE = re.compile("[<>&\u2028\u2029]")
_SCRIPT_TAG = re.compile(r'<script src="([^"]+)"></script>')
#: what ``export function f`` / ``export const x`` / ``export const { a, b }`` export
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_EXPORT = re.compile(r"^export (?:function (\w+)|const (\{[^}]*\}|\w+))", re.MULTILINE)
_STYLE_TAG = re.compile(r'<link rel="stylesheet" href="([^"]+)">')
#: worst first: which details go in first when the file has a size limit
_PRIORITY = {"FAILED": 0, "ERRORED": 1, "NOT_EVALUATED": 2, "PASSED": 3, "INFORMATIONAL": 3}


def island(value: Any) -> str:
    """``value`` as JSON safe inside ``<script type="application/json">``: the server's
    encoding (``encode_json``: non-finite numbers ``null``, a lone surrogate escaped) with
    ``<``, ``>``, ``&`` and the JavaScript line separators escaped too."""
    return _UNSAFE.sub(lambda m: _ESCAPES[m.group(0)], encode_json(value).decode("utf-8"))


def _static(name: str) -> str:
    return resources.files("agenteval_viewer").joinpath("static", name).read_text(encoding="utf-8")


def _inline_script(source: str) -> str:
    if re.search(r"</script", source, re.IGNORECASE):  # would end the tag early
        source = re.sub(r"</(script)", r"<\\/\1", source, flags=re.IGNORECASE)
    return f"<script>{source}</script>"


def _inline_modules(entry: str) -> str:
    """The module ``entry`` and what it imports as one classic script: the report is one
    file, and a browser loads no module from a ``file:`` page. Each module becomes a function
    scope that returns its exports; an ``import { a, b } from "./m.js"`` reads them. The
    modules keep to that one form (``export function`` / ``export const`` and named imports
    of ``./*.js`` files; ``import(...)`` loads only what the report never shows)."""
    parts = ['"use strict";', "const modules = {};"]
    for name in module_graph(_static, entry):
        source = _static(name)
        exported = [n for groups in _EXPORT.findall(source) for n in _NAME.findall(" ".join(groups))]
        if re.search(r"^export (?!function |const )", source, re.MULTILINE):
            raise RuntimeError(f"static/{name}: export only with 'export function' or 'export const'")
        body = IMPORT.sub(lambda m: f"const {{{m.group(1)}}} = modules[{json.dumps(m.group(2))}];", source)
        body = re.sub(r"^export (function|const) ", r"\1 ", body, flags=re.MULTILINE)
        returned = "return {" + ", ".join(exported) + "};"
        parts.append(f"modules[{json.dumps(name)}] = (function () {{\n{body}\n{returned}\n}})();")
    return _inline_script("(function () {\n" + "\n".join(parts) + "\n})();")


def _shell(title: str) -> tuple[str, str]:
    """The page around the islands: (before, after) the data."""
    page = _static("index.html")
    page = page.replace("<title>agenteval</title>", f"<title>{_html_text(title)}</title>")
    page = page.replace("<!--ae:csp-->", f'<meta http-equiv="Content-Security-Policy" content="{CSP}">')
    page = _STYLE_TAG.sub(lambda m: f"<style>{_static(m.group(1))}</style>", page)
    page = _SCRIPT_TAG.sub(lambda m: _inline_script(_static(m.group(1))), page)
    page = MODULE_TAG.sub(lambda m: _inline_modules(m.group(1)), page)
    before, marker, after = page.partition("<!--ae:data-->")
    if not marker:
        raise RuntimeError("the viewer's index.html has no <!--ae:data--> marker")
    return before, after


def _html_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@dataclass(frozen=True)
class ReportStats:
    """What a report holds: its size, the cases and how many have their details."""

    path: Path
    bytes: int
    cases: int
    details_included: int
    details_left_out: int


def _island_tag(element_id: str, payload: str) -> str:
    return f'<script type="application/json" id="{element_id}">{payload}</script>\n'


def render_report(run: RecordedRun, out: Path, *, max_mb: float = 50.0, details: str = "all") -> ReportStats:
    """Write the report of ``run`` to ``out`` (see the module docstring)."""
    if details not in DETAILS_CHOICES:
        raise ValueError(f"details must be one of {DETAILS_CHOICES}, got {details!r}")
    from ._bundle import case_detail

    scanned = scan(run)
    summary = run_summary(run, scanned)
    index_text = island(case_index(run, scanned))
    before, after = _shell(f"agenteval · {run.run_id}")
    budget = int(max_mb * 1_000_000)
    # Everything but the details: the shell, the index, the summary (its ``report`` block,
    # filled in below, is a few numbers: 512 bytes cover it) and the island tags.
    summary_bytes = len(island(summary).encode()) + 512
    used = len(before.encode()) + len(after.encode()) + len(index_text.encode()) + summary_bytes + 4_096
    statuses = scanned.status
    wanted: list[int] = []
    if details != "none":
        order = sorted(range(len(statuses)), key=lambda r: (_PRIORITY[STATUS_LEGEND[statuses[r]]], r))
        wanted = [r for r in order if details == "all" or _PRIORITY[STATUS_LEGEND[statuses[r]]] < 3]
    encoded: dict[int, str] = {}
    opened: set[int] = set()
    full = False
    for row in wanted:
        detail = case_detail(run, row)
        if detail is None:
            continue
        text = island(detail)
        # the detail, its key and separator, and its chunk's island tag if it opens one
        cost = len(text.encode()) + len(str(row)) + 4 + (0 if row // CHUNK in opened else 64)
        if used + cost > budget:
            full = True
            break
        encoded[row] = text
        opened.add(row // CHUNK)
        used += cost
    left_out = len(statuses) - len(encoded)
    summary["report"] = {
        "details": details,
        "max_mb": max_mb,
        "details_included": len(encoded),
        "details_left_out": left_out,
        "size_limited": full,
        "chunk_size": CHUNK,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    size = 0
    with open(out, "w", encoding="utf-8", newline="\n") as handle:

        def write(text: str) -> None:
            nonlocal size
            handle.write(text)
            size += len(text.encode())

        write(before)
        write(_island_tag("ae-summary", island(summary)))
        write(_island_tag("ae-index", index_text))
        chunks: dict[int, list[int]] = {}
        for row in sorted(encoded):
            chunks.setdefault(row // CHUNK, []).append(row)
        for chunk, rows in chunks.items():
            body = ",".join(f'"{row}":{encoded[row]}' for row in rows)
            write(_island_tag(f"ae-details-{chunk}", "{" + body + "}"))
        write(after)
    return ReportStats(out, size, len(statuses), len(encoded), left_out)


def build_report(
    run: RecordedRun, out: Optional[Path] = None, *, max_mb: float = 50.0, details: str = "all"
) -> ReportStats:
    """``render_report`` into ``out`` (default: ``report.html`` in the run folder)."""
    return render_report(run, out or run.folder / "report.html", max_mb=max_mb, details=details)
