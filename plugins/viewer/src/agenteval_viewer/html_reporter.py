"""``html``: ``report.html``, the single-file HTML report (``agenteval report``), written by
``--report html`` at the end of a run or by ``agenteval runs report``."""

from __future__ import annotations

from pathlib import Path

from agenteval.plugins import ReportContext, Reporter

__all__ = ["HtmlReporter"]


class HtmlReporter(Reporter):
    description = "report.html: one self-contained HTML file (no network), failing cases' details first"

    def write(self, context: ReportContext) -> list[Path]:
        from ._report import build_report

        stats = build_report(context.run, context.folder / "report.html")
        return [stats.path]
