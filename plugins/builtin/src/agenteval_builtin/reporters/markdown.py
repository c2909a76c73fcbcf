"""``markdown``: ``report.md``, a page a person reads: the verdict, counts by status, each
criterion's mean and pass count, the failing cases with their first reason, and the command
that reruns them. Bounded whatever the run's size (the first ``FAILURES`` failing cases).

Under a failing case, each failed criterion whose info declares ``shows_trajectory`` and that
recorded an aligned trajectory (``details["alignment"]``) gets a trajectory diff table for
its first failed invocation: matched pairs with their similarity, missing and extra calls,
the arguments that differ (expected vs actual) and the matcher that decided. A run recorded
before criteria declared ``shows_trajectory`` shows no table, as before."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from agenteval import Status
from agenteval.plugins import ReportContext, Reporter, rerun_command
from agenteval.runs import RecordedRun

from ._common import CaseView, Tally, case_view, cell, clip, code, first_problem, tally
from ._trajectory_diff import diff_tables

__all__ = ["MarkdownReporter", "fit", "markdown_of", "render_markdown"]

FAILURES = 20
_BADGE = {
    Status.PASSED: "✅ PASSED",
    Status.FAILED: "❌ FAILED",
    Status.ERRORED: "💥 ERRORED",
    Status.NOT_EVALUATED: "⚠️ NOT EVALUATED",
    Status.INFORMATIONAL: "ℹ️ INFORMATIONAL",
}


def render_markdown(run: RecordedRun, *, failures: int = FAILURES, limit: Optional[int] = None) -> str:
    """The Markdown report of ``run``; ``limit`` caps its length in characters. Its cost is
    the run's scores (``tally``) and the records of the failing cases it prints."""
    return fit(markdown_of(run, tally(run), failures=failures), limit)


def fit(text: str, limit: Optional[int]) -> str:
    """``text`` cut to ``limit`` characters with a marker (``None``: as it is)."""
    if limit is not None and len(text) > limit:
        return text[: limit - 40] + "\n\n… (cut to fit)\n"
    return text


def markdown_of(run: RecordedRun, summed: Tally, *, failures: int = FAILURES) -> str:
    """The whole Markdown report of ``run`` from its ``tally``; the first ``failures``
    failing cases read in full."""
    counts, criteria, failing = summed.counts, summed.criteria, summed.failing
    worst = {status for _, _, status in failing}
    status = next(
        (s for s in (Status.FAILED, Status.ERRORED, Status.NOT_EVALUATED) if s in worst), Status.PASSED
    )
    manifest = run.manifest
    spent = _judge_spend(run)
    lines = [
        f"## agenteval: {_BADGE[status]}",
        "",
        f"Run `{run.run_id}` ({manifest.state.value}), {summed.cases} case(s): "
        + ", ".join(f"{n} {s.value.lower().replace('_', ' ')}" for s, n in counts.items() if n),
        "",
        "| criterion | mean | passed |" + (" judge tokens (in + out) | judge cost |" if spent else ""),
        "|---|---|---|" + ("---|---|" if spent else ""),
    ]
    for name, item in criteria.items():
        mean = f"{item[0] / item[1]:.3f}" if item[1] else "—"
        lines.append(
            f"| {code(name)} | {mean} | {_passed(item)} |"
            + (f" {spent.get(name, '— | —')} |" if spent else "")
        )
    if failing:
        lines += ["", f"### Cases that did not pass ({len(failing)})", ""]
        pending = run.in_progress
        for entry, case_id, _ in failing[:failures]:
            view = case_view(run, entry, case_id, pending=pending)
            problem = first_problem(view.result)
            why = f"{code(problem.criterion)}: {cell(clip(problem.reason, 200))}" if problem else ""
            name = f"{cell(view.entry.eval_set_id)}/{cell(view.result.eval_id)}"
            lines.append(f"- **{name}** {view.result.status.value} — {why}")
            lines += _trajectory_diffs(view)
        if len(failing) > failures:
            lines.append(f"- … and {len(failing) - failures} more (`agenteval runs show {run.run_id}`)")
        command = rerun_command(run, [(entry, case_id) for entry, case_id, _ in failing[:failures]])
        if command:
            lines += ["", "Rerun them:", "", "```sh", command, "```"]
    lines += _judge_lines(run)
    return "\n".join(lines) + "\n"


def _trajectory_diffs(view: CaseView) -> list[str]:
    """The diff tables of the case's failed trajectory criteria, indented under its item."""
    declared = {c.name for c in view.entry.criteria if c.shows_trajectory}
    failed = [r for r in view.result.criteria if r.status is Status.FAILED and r.criterion in declared]
    return ["  " + line if line else "" for line in diff_tables(failed)]


def _passed(item: list[float]) -> str:
    """``passed/total``; an informational criterion (ADK's efficiency criteria) is never
    passed or failed, and says so."""
    _, _, passed, failed, informational, total = item
    if informational and not passed and not failed:
        return "informational (not pass/fail)"
    return f"{int(passed)}/{int(total)}"


def _judge_spend(run: RecordedRun) -> dict[str, str]:
    """Each judge criterion's cells: its judge tokens (input + output, calls, cache hits) and
    their cost at the config's prices, from the run's summary (the sum of its results'
    calls); empty when no criterion called a judge."""
    written = run.summary()
    cells = {}
    for item in written.summary.criteria if written is not None else []:
        judge, cost = item.judge, item.judge_cost
        if judge is None:
            continue
        priced = "—" if cost is None else f"{cost.total:,.4f}"
        if cost is not None and cost.unpriced:
            priced += f" (no price for {cell(', '.join(cost.unpriced))})"
        cells[item.criterion] = (
            f"{judge.input_tokens:,} + {judge.output_tokens:,} "
            f"({judge.calls:,} call(s), {judge.cache_hits:,} cached) | {priced}"
        )
    return cells


def _judge_lines(run: RecordedRun) -> list[str]:
    """What the judges cost (calls, tokens as the providers reported them, the budgets, the
    cost at the config's prices), each calibration card's agreement with people and the
    calibration gate's finding (``--calibration``); none when the run had no judge."""
    from agenteval.calibration import read_cards

    written = run.summary()
    lines = []
    judge = written.summary.judge if written is not None else None
    if judge is not None:
        lines.append(
            f"Judge: {judge.calls:,} call(s), {judge.cache_hits:,} from cache; "
            f"{judge.input_tokens:,} input + {judge.output_tokens:,} output tokens."
        )
    budget = written.summary.budget if written is not None else None
    if budget is not None and budget.judge_calls_limit is not None:
        lines.append(
            f"Judge call budget: {budget.judge_calls_used:,} of {budget.judge_calls_limit:,} used"
            + (f", {budget.judge_calls_refused:,} call(s) refused." if budget.judge_calls_refused else ".")
        )
    if budget is not None and budget.judge_tokens_limit is not None:
        lines.append(
            f"Judge token budget: {budget.judge_tokens_used:,} of {budget.judge_tokens_limit:,} used"
            + (f", {budget.judge_tokens_refused:,} call(s) refused." if budget.judge_tokens_refused else ".")
        )
    if budget is not None and budget.inconclusive:
        lines.append(
            f"Judge budget spent: {budget.inconclusive:,} criterion result(s) not judged, each INCONCLUSIVE "
            "(`judge_budget`); a larger budget settles them, more runs do not."
        )
    cost = written.summary.judge_cost if written is not None else None
    if cost is not None:
        lines.append(
            f"Judge cost: {cost.total:,.4f} at the configured prices per million tokens"
            + (f"; no price for {cell(', '.join(cost.unpriced))} (not counted)." if cost.unpriced else ".")
        )
    for name, card in read_cards(run).items():
        accuracy = card.accuracy.estimate or 0.0
        lines.append(
            f"Calibration of {code(name)} against {card.n} human label(s): Cohen's κ {card.kappa_text()}, "
            f"people passed {card.base_rate:.0%}, judge {card.judge_rate:.0%}, accuracy {accuracy:.0%} "
            f"({cell(', '.join(card.judge_models))}, {cell(card.criterion_version)})."
        )
    for entry in {e.name: e for s in run.manifest.eval_sets for e in s.criteria}.values():
        gate = entry.calibration
        if gate is not None:
            found = (
                "a current card" if gate.problem is None else f"verdicts INCONCLUSIVE: {cell(gate.problem)}"
            )
            lines.append(f"Calibration gate of {code(entry.name)}: {found}.")
    return ["", *(f"- {line}" for line in lines)] if lines else []


class MarkdownReporter(Reporter):
    description = "report.md: verdict, counts, criteria and the failing cases with their reasons"

    def write(self, context: ReportContext) -> list[Path]:
        target = context.folder / "report.md"
        target.write_text(render_markdown(context.run), encoding="utf-8", errors="backslashreplace")
        return [target]
