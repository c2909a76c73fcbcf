"""The terminal report: one table per eval set, reasons for everything not PASSED, a summary.

With ``detailed=True`` each criterion also lists its per-invocation scores, and each
invocation shows the prompt, expected and actual responses and tool calls (what ADK's
``--print_detailed_results`` shows).

Every untrusted string (ids, file names, criterion names, reasons, agent and judge text,
tracebacks) goes through ``_terminal.visible`` first, so none can act on the terminal.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Optional

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from .._terminal import visible
from ..models import FunctionCall, Invocation
from ..results import CaseResult, CriterionResult, RunResult, Status

__all__ = ["render_table"]

_STYLE = {
    Status.PASSED: "green",
    Status.FAILED: "bold red",
    Status.NOT_EVALUATED: "yellow",
    Status.ERRORED: "bold magenta",
    Status.INFORMATIONAL: "cyan",
}


def _score(value: Optional[float]) -> str:
    return "—" if value is None else f"{value:.4g}"


def _score_cell(result: CriterionResult) -> str:
    """The score; with several runs, their mean followed by the per-run range."""
    spread = result.details.get("spread") if result.runs else None
    if not spread:
        return _score(result.score)
    return f"{_score(result.score)} ({_score(spread['min'])}–{_score(spread['max'])})"


def _status(status: Status) -> Text:
    return Text(status.value, style=_STYLE[status])


def _call(call: FunctionCall) -> str:
    args = ", ".join(f"{k}={_json(v)}" for k, v in (call.args or {}).items())
    return visible(f"{call.name}({args})")


def _json(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError):  # nesting too deep, a circular value
        return "…"


def _clip(text: str, limit: int = 300) -> str:
    """One line (whitespace runs made one space), at most ``limit`` characters, made
    visible."""
    text = visible(" ".join(text.split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _case_table(title: str, cases: Sequence[CaseResult]) -> Table:
    """One row per case (its id and status), then one indented row per criterion: case ids
    of any length fit, and the table stays within 80 columns."""
    table = Table(title=title, title_justify="left", expand=False, box=box.SIMPLE_HEAD)
    table.add_column("case / criterion", overflow="fold")
    runs = any(r.runs for case in cases for r in case.criteria)
    table.add_column("mean (min–max)" if runs else "score", justify="right", no_wrap=True)
    table.add_column("threshold", justify="right", no_wrap=True)
    table.add_column("status", no_wrap=True)
    for case in cases:
        table.add_row(
            Text(visible(case.eval_id), style="bold"),
            "",
            "",
            _status(case.status),
            end_section=not case.criteria,
        )
        for index, result in enumerate(case.criteria):
            table.add_row(
                Text(f"  {visible(result.criterion)}"),
                _score_cell(result),
                _score(result.threshold),
                _status(result.status),
                end_section=index == len(case.criteria) - 1,
            )
    return table


def _problems(console: Console, cases: Sequence[CaseResult]) -> None:
    """Why each FAILED / NOT_EVALUATED / ERRORED result is so, one paragraph each."""
    for case in cases:
        for result in case.criteria:
            undecided = result.verdict is not None and result.verdict.verdict == "INCONCLUSIVE"
            if result.status.ok and not undecided:
                continue
            if result.status.ok:  # passes on the mean, but the runs do not settle it
                head = Text("  ? ", style="yellow").append(
                    f"{visible(case.eval_id)} · {visible(result.criterion)} "
                )
                head.append(_status(result.status)).append(" INCONCLUSIVE", style="yellow")
                console.print(head)
                why = result.verdict.reason + (f"; {result.verdict.hint}" if result.verdict.hint else "")
                console.print(Padding(Text(_clip(why, 600)), (0, 0, 0, 4)))
                continue
            head = Text("  ✗ ", style=_STYLE[result.status])
            head.append(f"{visible(case.eval_id)} · {visible(result.criterion)} ")
            head.append(_status(result.status))
            if result.reason_code:
                head.append(f" [{visible(result.reason_code)}]", style="dim")
            console.print(head)
            if result.reason:
                console.print(Padding(Text(_clip(result.reason, 600)), (0, 0, 0, 4)))


def _details(
    console: Console,
    case: CaseResult,
    actual: Optional[Sequence[Invocation]],
    expected: Optional[Sequence[Invocation]],
) -> None:
    console.print(Text(f"▸ {visible(case.eval_id)}: ", style="bold").append(_status(case.status)))
    for result in case.criteria:
        line = f"  {visible(result.criterion)} ({visible(result.plugin.id)}): {_score(result.score)}"
        if result.threshold is not None:
            line += f" / threshold {_score(result.threshold)}"
        console.print(Text(line).append(" ").append(_status(result.status)))
        if result.error is not None:
            traceback = visible(result.error.traceback, newlines=True)
            console.print(Text(traceback if len(traceback) <= 2000 else traceback[:1999] + "…", style="dim"))
    for run in case.agent_runs:
        if run.output:  # what the agent printed (ADK's logs for an ADK agent)
            output = visible(run.output, newlines=True)
            label = f"  agent output (run {run.run}):" if len(case.agent_runs) > 1 else "  agent output:"
            console.print(Text(label, style="bold"))
            console.print(
                Padding(
                    Text(output if len(output) <= 2000 else output[:1999] + "…", style="dim"), (0, 0, 0, 4)
                )
            )
    count = len(actual or ())
    for index in range(count):
        console.print(Text(f"  invocation {index + 1}", style="bold"))
        inv = actual[index]
        exp = expected[index] if expected is not None and index < len(expected) else None
        console.print(f"    prompt:   {escape(_clip(inv.user_content.text()))}")
        if exp is not None:
            console.print(f"    expected: {escape(_clip(exp.final_text()))}")
        console.print(f"    actual:   {escape(_clip(inv.final_text()))}")
        if exp is not None:
            console.print(
                f"    expected tools: {escape(', '.join(map(_call, exp.tool_calls())) or '(none)')}"
            )
        console.print(f"    actual tools:   {escape(', '.join(map(_call, inv.tool_calls())) or '(none)')}")
        for result in case.criteria:
            item = next((p for p in result.per_invocation if p.index == index), None)
            if item is None:
                continue
            text = (
                Text(f"    {visible(result.criterion)}: ")
                .append(_status(item.status))
                .append(f" ({_score(item.score)})")
            )
            if item.reason and item.status is not Status.PASSED:
                text.append(f" {_clip(item.reason, 400)}")
            console.print(text)


def _judge_line(result: RunResult) -> Optional[Text]:
    activity = result.summary.judge
    if activity is None:
        return None
    text = Text(
        f"judge: {activity.calls} call(s), {activity.cache_hits} from cache, {activity.retries} retried; "
        f"{activity.input_tokens} input + {activity.output_tokens} output tokens",
        style="dim",
    )
    if activity.failures:
        failed = ", ".join(f"{n} {visible(code)}" for code, n in sorted(activity.failures.items()))
        text.append(f"; failed calls: {failed}", style="yellow")
    simulator = result.summary.user_simulator
    if simulator is not None:
        text.append(
            f" (of which the user simulator: {simulator.calls} call(s), {simulator.cache_hits} from cache)",
            style="dim",
        )
    return text


def _not_evaluated_line(result: RunResult) -> Optional[Text]:
    parts = [f"{n} {visible(code)}" for code, n in result.summary.not_evaluated_reasons.items()]
    parts += [
        f"{n} invocation(s) {visible(code)}" for code, n in result.summary.invocations_not_evaluated.items()
    ]
    if not parts:
        return None
    return Text(f"not evaluated: {', '.join(parts)}", style="yellow")


def _inconclusive_line(result: RunResult) -> Optional[Text]:
    """How many criterion results the repeated runs leave undecided (tri-state verdicts)."""
    undecided = sum(
        1
        for case in result.cases()
        for r in case.criteria
        if r.verdict is not None and r.verdict.verdict == "INCONCLUSIVE"
    )
    if not undecided:
        return None
    return Text(
        f"inconclusive: {undecided} criterion result(s) whose interval over the runs contains the "
        "threshold; more runs (--num-runs) would settle them",
        style="yellow",
    )


def _summary_line(result: RunResult) -> Text:
    cases = result.summary.cases
    total = sum(cases.values())
    text = Text(f"{total} case{'s' if total != 1 else ''}: ", style="bold")
    parts = [(status, n) for status, n in cases.items() if n]
    for i, (status, n) in enumerate(parts):
        text.append(f"{n} {status.value.lower().replace('_', ' ')}", style=_STYLE[status])
        if i < len(parts) - 1:
            text.append(", ")
    results = result.summary.criterion_results
    problems = results[Status.NOT_EVALUATED] + results[Status.ERRORED]
    if problems:
        text.append(
            f"  ({results[Status.NOT_EVALUATED]} criterion results not evaluated, "
            f"{results[Status.ERRORED]} errored: see reasons above)",
            style="yellow",
        )
    if total == 0:
        text.append("no case ran", style="yellow")
    return text


def render_table(
    result: RunResult,
    console: Console,
    *,
    detailed: bool = False,
    conversations: Optional[
        Mapping[tuple[int, str], tuple[Sequence[Invocation], Optional[Sequence[Invocation]]]]
    ] = None,
    show: str = "all",
) -> None:
    """Print the report. ``conversations`` maps ``(eval set index, eval_id)`` to
    ``(actual, expected)`` invocations, used by the detailed view. ``show="failing"``
    lists only the cases that did not pass (the summary still counts them all), which
    keeps the report short and fast for large runs."""
    hidden = 0
    for set_index, eval_set in enumerate(result.eval_sets):
        title = eval_set.eval_set_id + (f"  ({eval_set.source})" if eval_set.source else "")
        shown = eval_set.cases
        if show == "failing":
            shown = [case for case in eval_set.cases if not case.status.ok]
            hidden += len(eval_set.cases) - len(shown)
            if not shown:
                continue
        console.print(_case_table(escape(visible(title)), shown))
        _problems(console, eval_set.cases)
        if detailed:
            for case in eval_set.cases:
                actual, expected = (conversations or {}).get((set_index, case.eval_id), (None, None))
                _details(console, case, actual, expected)
            console.print()
    if result.summary.criteria:
        means = Table(title="criteria over all cases", title_justify="left", box=box.SIMPLE_HEAD)
        for column in ("criterion", "mean", "threshold", "pass", "fail", "n/e", "err"):
            means.add_column(column, justify="left" if column == "criterion" else "right", no_wrap=True)
        for item in result.summary.criteria:
            counts = item.counts
            means.add_row(
                Text(visible(item.criterion)),
                _score(item.mean_score),
                _score(item.threshold),
                str(counts[Status.PASSED]),
                str(counts[Status.FAILED]),
                str(counts[Status.NOT_EVALUATED]),
                str(counts[Status.ERRORED]),
            )
        console.print(means)
        plugins = sorted({visible(item.plugin.id) for item in result.summary.criteria})
        console.print(Text(f"scored by {', '.join(plugins)}", style="dim"))
    if hidden:
        console.print(Text(f"{hidden} passing case(s) not listed (--show all lists them)", style="dim"))
    for line in (_judge_line(result), _not_evaluated_line(result), _inconclusive_line(result)):
        if line is not None:
            console.print(line)
    if result.interrupted:
        console.print(
            Text("interrupted: unfinished results are NOT_EVALUATED (interrupted)", style="bold yellow")
        )
    console.print(_summary_line(result))
