"""``markdown``: ``report.md``, a page a person reads: the verdict, counts by status, each
criterion's mean and pass count, the failing cases with their first reason, and the command
that reruns them. Bounded whatever the run's size (the first ``FAILURES`` failing cases)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from agenteval import Status
from agenteval.plugins import ReportContext, Reporter, rerun_command
from agenteval.runs import RecordedRun

from ._common import cases_of, clip, first_problem

__all__ = ["MarkdownReporter", "render_markdown"]

FAILURES = 20
_BADGE = {
    Status.PASSED: "✅ PASSED",
    Status.FAILED: "❌ FAILED",
    Status.ERRORED: "💥 ERRORED",
    Status.NOT_EVALUATED: "⚠️ NOT EVALUATED",
    Status.INFORMATIONAL: "ℹ️ INFORMATIONAL",
}


def _cell(text: object) -> str:
    """Text safe inside a Markdown table cell (no pipes, no line breaks, no HTML)."""
    value = str(text).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
    return " ".join(value.split())


def render_markdown(run: RecordedRun, *, failures: int = FAILURES, limit: Optional[int] = None) -> str:
    """The Markdown report of ``run``; ``limit`` caps its length in characters."""
    views = list(cases_of(run))
    counts = {status: 0 for status in Status}
    criteria: dict[str, dict[str, float]] = {}
    for view in views:
        counts[view.result.status] += 1
        for result in view.result.criteria:
            item = criteria.setdefault(
                result.criterion,
                {"sum": 0.0, "n": 0, "passed": 0, "failed": 0, "informational": 0, "total": 0},
            )
            item["total"] += 1
            item["passed"] += result.status is Status.PASSED
            item["failed"] += result.status is Status.FAILED
            item["informational"] += result.status is Status.INFORMATIONAL
            if result.score is not None:
                item["sum"] += result.score
                item["n"] += 1
    failing = [v for v in views if not v.result.status.ok]
    status = Status.PASSED if not failing else min((v.result.status for v in failing), key=_order)
    manifest = run.manifest
    lines = [
        f"## agenteval: {_BADGE[status]}",
        "",
        f"Run `{run.run_id}` ({manifest.state.value}), {len(views)} case(s): "
        + ", ".join(f"{n} {s.value.lower().replace('_', ' ')}" for s, n in counts.items() if n),
        "",
        "| criterion | mean | passed |",
        "|---|---|---|",
    ]
    for name, item in criteria.items():
        mean = f"{item['sum'] / item['n']:.3f}" if item["n"] else "—"
        lines.append(f"| `{_cell(name)}` | {mean} | {_passed(item)} |")
    if failing:
        lines += ["", f"### Cases that did not pass ({len(failing)})", ""]
        for view in failing[:failures]:
            problem = first_problem(view.result)
            why = f"`{_cell(problem.criterion)}`: {_cell(clip(problem.reason, 200))}" if problem else ""
            name = f"{_cell(view.entry.eval_set_id)}/{_cell(view.result.eval_id)}"
            lines.append(f"- **{name}** {view.result.status.value} — {why}")
        if len(failing) > failures:
            lines.append(f"- … and {len(failing) - failures} more (`agenteval runs show {run.run_id}`)")
        command = rerun_command(run, [(v.entry, v.result.eval_id) for v in failing[:failures]])
        if command:
            lines += ["", "Rerun them:", "", "```sh", command, "```"]
    text = "\n".join(lines) + "\n"
    if limit is not None and len(text) > limit:
        text = text[: limit - 40] + "\n\n… (cut to fit)\n"
    return text


def _passed(item: dict[str, float]) -> str:
    """``passed/total``; an informational criterion (ADK's efficiency criteria) is never
    passed or failed, and says so."""
    if item["informational"] and not item["passed"] and not item["failed"]:
        return "informational (not pass/fail)"
    return f"{int(item['passed'])}/{int(item['total'])}"


def _order(status: Status) -> int:
    return [Status.FAILED, Status.ERRORED, Status.NOT_EVALUATED].index(status)


class MarkdownReporter(Reporter):
    description = "report.md: verdict, counts, criteria and the failing cases with their reasons"

    def write(self, context: ReportContext) -> list[Path]:
        target = context.folder / "report.md"
        target.write_text(render_markdown(context.run), encoding="utf-8", errors="backslashreplace")
        return [target]
