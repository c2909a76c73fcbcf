"""``github``: what a GitHub Actions job shows.

* the job's step summary (appended to ``$GITHUB_STEP_SUMMARY`` when it is set), at most
  ``SUMMARY_BYTES`` whatever the run's size;
* at most ``ANNOTATIONS`` ``::error`` annotations pinned to the eval-file line that defines
  each failing case, and one ``::notice`` for the rest, printed to the job log;
* ``pr-comment.md``, at most ``COMMENT_CHARS`` characters with a hidden marker, for a sticky
  pull-request comment (posting it is left to the workflow: agenteval handles no token).
"""

from __future__ import annotations

from pathlib import Path

from agenteval.plugins import ReportContext, Reporter, case_lines

from ._common import case_view, clip, first_problem, tally
from .markdown import fit, markdown_of

__all__ = ["GitHubReporter", "annotation"]

SUMMARY_BYTES = 900_000
COMMENT_CHARS = 60_000
ANNOTATIONS = 10
MARKER = "<!-- agenteval-report -->"


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(kind: str, message: str, **properties: object) -> str:
    """One workflow command line, escaped as GitHub requires (untrusted text cannot end it)."""
    props = ",".join(
        f"{key}={_property(str(value))}" for key, value in properties.items() if value is not None
    )
    return f"::{kind} {props}::{_data(message)}" if props else f"::{kind}::{_data(message)}"


class GitHubReporter(Reporter):
    description = "GitHub Actions: step summary, annotations on the eval-file lines, pr-comment.md"

    def write(self, context: ReportContext) -> list[Path]:
        run = context.run
        summed = tally(run)  # the run's scores, read once: the report and the annotations
        markdown = markdown_of(run, summed)
        summary = fit(markdown, SUMMARY_BYTES // 4)  # up to 4 bytes a character
        written = []
        step_summary = context.environ.get("GITHUB_STEP_SUMMARY")
        if step_summary:
            with open(step_summary, "a", encoding="utf-8", errors="backslashreplace") as handle:
                handle.write(summary)
            written.append(Path(step_summary))
        comment = context.folder / "pr-comment.md"
        body = MARKER + "\n" + fit(markdown, COMMENT_CHARS - len(MARKER) - 1)
        comment.write_text(body, encoding="utf-8", errors="backslashreplace")
        written.append(comment)
        lines: dict[str, dict[str, int]] = {}
        pending = run.in_progress
        for view in (case_view(run, e, c, pending=pending) for e, c, _ in summed.failing[:ANNOTATIONS]):
            path = view.entry.path
            if path and path not in lines:
                lines[path] = case_lines(path)
            problem = first_problem(view.result)
            why = f"{problem.criterion}: {clip(problem.reason, 300)}" if problem else view.result.status.value
            context.stream.write(
                annotation(
                    "error",
                    f"{view.result.status.value}: {why}",
                    file=path,
                    line=lines.get(path or "", {}).get(view.result.eval_id),
                    title=f"{view.entry.eval_set_id}/{view.result.eval_id}",
                )
                + "\n"
            )
        if len(summed.failing) > ANNOTATIONS:
            context.stream.write(
                annotation(
                    "notice",
                    f"{len(summed.failing) - ANNOTATIONS} more case(s) did not pass; see the job summary",
                )
                + "\n"
            )
        return written
