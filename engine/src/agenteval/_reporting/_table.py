"""The terminal report, summary first.

1. a header (the run, its eval sets and cases) and the verdict with the case counts;
2. one row per criterion over all cases: mean, threshold, passed / failed / other;
3. each case that did not pass, with the reason of each criterion that fell short (a reason
   shared by several criteria, such as the agent's own error, is printed once), the agent's
   actual reply beside the expected one for a failing response criterion, and the expected
   and actual tool calls for a failing criterion whose info declares ``shows_trajectory``
   (with the aligned trajectory it recorded, when it did: pairs and their similarity,
   missing and extra calls, the arguments that differ and the matcher that decided);
   ``show="all"`` lists the passing cases too, one line each;
4. judge activity, reasons for what was not evaluated, INCONCLUSIVE results, and the counts
   again (the last thing on screen after a long list).

Cases are read one at a time (``_cases.case_views``), so a report of a recorded 100k-case
run holds one record in memory. It fits 80 columns: long ids and names wrap, nothing is cut.
With ``detailed=True`` each listed case also shows every criterion's per-invocation scores,
the prompts, responses and tool calls (what ADK's ``--print_detailed_results`` shows).

Every untrusted string (ids, file names, criterion names, reasons, agent and judge text,
tracebacks) goes through ``_terminal.visible`` first, so none can act on the terminal.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Optional, TextIO, Union

from rich import box
from rich.cells import cell_len, get_character_cell_size
from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from .._results import (
    CriterionResult,
    CriterionSummary,
    IntervalInfo,
    JudgeActivity,
    RunResult,
    RunSummary,
    SetCriterionSummary,
    Status,
)
from .._terminal import visible
from ..models import FunctionCall
from ..runs import RecordedRun, RunState, not_reached
from ..runs._folder import CALIBRATION
from ._alignment import TrajectoryRow, row_text, rows_from_details
from ._cases import CaseView, case_briefs, case_outcome, case_view, case_views

__all__ = ["file_console", "render_table"]

_STYLE = {
    Status.PASSED: "green",
    Status.FAILED: "bold red",
    Status.NOT_EVALUATED: "yellow",
    Status.ERRORED: "bold magenta",
    Status.INFORMATIONAL: "cyan",
}
_MARK = {
    Status.PASSED: "✓",
    Status.FAILED: "✗",
    Status.NOT_EVALUATED: "?",
    Status.ERRORED: "!",
    Status.INFORMATIONAL: "i",
}
#: How many not-passing cases ``show="failing"`` describes in full before it only counts.
FAILING_LIMIT = 200
#: How many rows of an aligned trajectory are printed.
_ROWS_SHOWN = 12
_ROW_STYLE = {"match": "", "args_differ": "yellow", "missing": "red", "extra": "red"}


def _score(value: Optional[float]) -> str:
    return "—" if value is None else f"{value:.4g}"


def _score_of(result: CriterionResult) -> str:
    """The score; with several runs, their mean and the per-run range."""
    spread = result.details.get("spread") if result.runs else None
    if not spread:
        return _score(result.score)
    return f"{_score(result.score)} (runs {_score(spread['min'])}–{_score(spread['max'])})"


def _label(status: Status) -> str:
    return status.value.lower().replace("_", " ")


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


def file_console(handle: TextIO, width: int, **options: Any) -> Console:
    """A colourless console that writes to ``handle``, ``width`` columns wide. Its height is
    fixed too (rich's default, 25, which a report never uses): a console of a known width
    but no height asks the operating system for the terminal's size at every line it
    measures, about a seventh of the time of a report file of every case."""
    return Console(file=handle, width=width, height=25, no_color=True, **options)


def _print_indented(console: Console, text: Union[str, Text], depth: int, style: str = "") -> None:
    """Print ``text`` ``depth`` columns in. On a console without colour (the report file, a
    pipe) printable text is written as rich would write it, wrapped as rich's own ``wrap``
    wraps it (``_wrap_single_cell`` for one-column characters) but without its layout pass
    (about a millisecond a line, most of the time of a report that lists thousands of
    failing cases). Anything else goes through rich."""
    body = text if isinstance(text, Text) else Text(text, style=style)
    written = _plain_lines(console, body, depth)
    if written is not None:
        console.file.write(written)
        return
    console.print(Padding(body, (0, 0, 0, depth), expand=False) if depth else body)


def _plain_lines(console: Console, body: Text, depth: int) -> Optional[str]:
    """What rich prints for ``body`` ``depth`` columns in on a colourless console, or
    ``None`` when that is not sure to be the same (colour, recording, control characters,
    nothing of width, a line rich would crop)."""
    plain = body.plain
    if console.color_system is not None or console.record or not plain or not plain.isprintable():
        return None
    width = console.width - depth
    size = cell_len(plain)
    # nothing visible (combining marks alone): rich 14.3 prints no line, 15 an indented one
    if width <= 0 or size == 0:
        return None
    if size <= width:
        return " " * depth + plain + "\n"
    if not depth:  # printed bare, rich does not pad the wrapped lines
        return None
    if _single_cell(plain):
        wrapped = _wrap_single_cell(plain, width)
    else:
        wrapped = [line.plain for line in body.wrap(console, width, justify="default", overflow="fold")]
    lines = []
    for line in wrapped:
        size = cell_len(line)
        if size > width:
            return None
        lines.append(" " * depth + line + " " * (width - size) + "\n")
    return "".join(lines)


#: A word as rich's wrapping sees one: its leading and trailing white space included.
_WORD = re.compile(r"\s*\S+\s*")


def _single_cell(plain: str) -> bool:
    """Whether every character of ``plain`` takes exactly one column (no wide, no
    zero-width character), so a column is a character."""
    return plain.isascii() or all(get_character_cell_size(c) == 1 for c in set(plain))


def _wrap_single_cell(plain: str, width: int) -> list[str]:
    """The lines rich's ``Text.wrap`` makes of ``plain`` (one line of text, every character
    one column) ``width`` columns wide, with no justification and long words folded: words
    fill a line while they fit (a word's trailing space may pass the edge), a word that fits
    no line is cut every ``width`` columns, and a line keeps at most ``width`` columns of
    the space that passes its edge. Rich builds a ``Text`` for every piece of this: for the
    long lines of a report of every case, a third of its time."""
    breaks: list[int] = []
    offset = 0  # columns used on the current line
    for word in _WORD.finditer(plain):
        start, text = word.start(), word.group()
        length = len(text.rstrip())
        if width - offset >= length:
            offset += len(text)
        elif length > width:  # folded: a piece of ``width`` columns per line
            pieces = range(0, len(text), width)
            for piece in pieces:
                if start:
                    breaks.append(start)
                if piece == pieces[-1]:
                    offset = len(text) - piece
                else:
                    start += width
        elif offset and start:
            breaks.append(start)
            offset = len(text)
    edges = [0, *breaks, len(plain)]
    return [plain[a:b][:width] for a, b in itertools.pairwise(edges)]


# -- 1. and 2.: the summary ----------------------------------------------------------------


def _counts(counts: dict[Status, int]) -> Text:
    text = Text()
    parts = [(status, n) for status, n in counts.items() if n]
    for i, (status, n) in enumerate(parts):
        text.append(f"{n:,} {_label(status)}", style=_STYLE[status])
        if i < len(parts) - 1:
            text.append(" · ")
    return text


def _verdict_line(summary: RunSummary, stopped: Optional[str]) -> Text:
    """The verdict and the counts; ``stopped``: "interrupted", "running" or ``None``."""
    total = sum(summary.cases.values())
    if total == 0:
        return Text("no case ran", style="bold yellow")
    text = Text(summary.status.value, style=_STYLE[summary.status]).append("  ")
    text.append(f"{total:,} case{'s' if total != 1 else ''}: ", style="bold").append(_counts(summary.cases))
    if stopped == "interrupted":
        text.append("  (interrupted: the rest is not evaluated)", style="bold yellow")
    elif stopped == "running":
        text.append("  (still running: the rest is not scored yet)", style="bold yellow")
    return text


def _name_column(table: Table, names: list[str]) -> None:
    """The criterion column: as wide as its longest name (a name is never folded mid-word
    while the other columns can wrap or fit); past ``NAME_WIDTH`` characters it folds."""
    longest = max((len(visible(name)) for name in names), default=0)
    table.add_column("criterion", overflow="fold", no_wrap=longest <= NAME_WIDTH)


#: Two spaces between columns (the right padding and the box's blank rule), not three.
_PADDING = (0, 1, 0, 0)
#: The widest criterion name kept on one line (38: the longest built-in name fits in 80 columns).
NAME_WIDTH = 40


def _criteria_table(summary: RunSummary) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False, padding=_PADDING)
    names = [_criterion_name(item) for item in summary.criteria]
    _name_column(table, [name.plain for name in names])
    for column in ("mean", "threshold", "passed", "failed", "other"):
        table.add_column(column, justify="right", no_wrap=True, min_width=len(column))
    for name, item in zip(names, summary.criteria, strict=True):
        counts = item.counts
        other = counts[Status.NOT_EVALUATED] + counts[Status.ERRORED]
        passed, failed = counts[Status.PASSED], counts[Status.FAILED]
        gating = not informational(item)
        table.add_row(
            name,
            _score(item.mean_score),
            "—" if item.threshold is None else _score(item.threshold),
            Text(f"{passed:,}", style="green" if passed else "") if gating else "—",
            Text(f"{failed:,}", style="red" if failed else "") if gating else "—",
            Text(f"{other:,}", style="yellow" if other else ""),
        )
    return table


def _judge_tokens(activity: JudgeActivity) -> str:
    """Judge tokens (input + output, as reported), compact: ``12.3k``."""
    tokens = activity.input_tokens + activity.output_tokens
    for size, unit in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if tokens >= size:
            return f"{tokens / size:.3g}{unit}"
    return f"{tokens:,}"


def informational(item: CriterionSummary) -> bool:
    """The criterion only reports (ADK's efficiency criteria...): no case passes or fails it."""
    counts = item.counts
    return (
        counts.get(Status.INFORMATIONAL, 0) > 0
        and not counts.get(Status.PASSED)
        and not counts.get(Status.FAILED)
    )


def _criterion_name(item: CriterionSummary) -> Text:
    name = Text(visible(item.criterion))
    return name + Text(" (informational)", style="dim") if informational(item) else name


#: With more eval sets than this, only those whose verdict is not PASS are listed.
SETS_LISTED = 10
_VERDICT_STYLE = {"PASS": "green", "FAIL": "bold red", "INCONCLUSIVE": "yellow", "NOT_EVALUATED": "yellow"}


def _interval(info: Optional[IntervalInfo], percent: bool = False) -> str:
    if info is None:
        return "—"
    show = (lambda v: f"{v:.0%}") if percent else _score
    point = show(info.estimate) if info.estimate is not None else ""
    return f"{point} [{show(info.low)}, {show(info.high)}]".strip()


def _set_statistics(console: Console, summary: RunSummary) -> None:
    """Per eval set, per criterion: the mean and the pass rate with their intervals over
    cases, and the set's tri-state verdict."""
    sets = [s for s in summary.eval_sets if any(c.mean or c.pass_rate for c in s.criteria)]
    if not sets:
        return
    listed = (
        sets
        if len(sets) <= SETS_LISTED
        else [s for s in sets if any(c.verdict not in (None, "PASS") for c in s.criteria)]
    )
    level = next((i.level for s in sets for c in s.criteria for i in (c.mean, c.pass_rate) if i), 0.95)
    console.print()
    console.print(Text(f"by eval set: {level:.0%} intervals over cases", style="dim"))
    for item in listed:
        n = max((c.n_cases for c in item.criteria), default=0)
        table = Table(
            title=f"{visible(item.eval_set_id)} ({n:,} case{'s' if n != 1 else ''})",
            title_justify="left",
            title_style="bold",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
            padding=_PADDING,
        )
        _name_column(table, [crit.criterion for crit in item.criteria])
        for column in ("mean", "pass rate"):
            table.add_column(column, min_width=len(column))  # an interval wraps at its space
        table.add_column("verdict", no_wrap=True, min_width=len("verdict"))
        for crit in item.criteria:
            if crit.mean is None and crit.pass_rate is None:
                continue
            unscored = _never_evaluated(crit)
            table.add_row(
                Text(visible(crit.criterion)),
                "—" if unscored else _interval(crit.mean),
                "—" if unscored else _interval(crit.pass_rate, percent=True),
                _set_verdict(crit),
            )
        console.print(table)
        _set_verdict_lines(console, item.criteria)
    if len(listed) < len(sets):
        console.print(
            Text(f"{len(sets) - len(listed):,} more eval set(s), all PASS, not listed", style="dim")
        )


def _never_evaluated(crit: SetCriterionSummary) -> bool:
    """No case of the set has a score for the criterion (a dead judge, an agent error...)."""
    return crit.n_cases > 0 and crit.verdict_counts.get("NOT_EVALUATED", 0) == crit.n_cases


def _set_verdict(crit: SetCriterionSummary) -> Text:
    """The set's verdict in the words of the case statuses: a set whose only blemish is
    cases never evaluated is NOT_EVALUATED (how many, when not all), not FAIL, although it
    does not pass (ADK counts a case without a score as failing)."""
    verdict = crit.verdict or "—"
    not_evaluated = crit.verdict_counts.get("NOT_EVALUATED", 0)
    note = ""
    if verdict == "FAIL" and not crit.verdict_counts.get("FAIL", 0) and not_evaluated:
        verdict = "NOT_EVALUATED"
        if not_evaluated < crit.n_cases:
            note = f" ({not_evaluated:,} of {crit.n_cases:,})"
    text = Text(verdict, style=_VERDICT_STYLE.get(verdict, "")) + Text(note, style="yellow")
    if crit.flaky_cases:
        text += Text(f" ({crit.flaky_cases:,} flaky)", style="yellow")
    return text


def _set_verdict_lines(console: Console, criteria: Sequence) -> None:
    """Why a set's verdict is not PASS, in words, and the error its verdict controls."""
    for crit in criteria:
        if crit.verdict in ("FAIL", "INCONCLUSIVE") and crit.verdict_reason:
            line = Text(f"{visible(crit.criterion)} ").append(
                crit.verdict, style=_VERDICT_STYLE[crit.verdict]
            )
            _print_indented(console, line.append(f": {visible(crit.verdict_reason)}"), 2)
    stated: dict[tuple[str, str], list[str]] = {}
    for crit in criteria:
        if crit.guarantee:
            stated.setdefault((crit.verdict_rule or "", crit.guarantee), []).append(visible(crit.criterion))
    for (rule, guarantee), names in stated.items():
        which = f" of {', '.join(names)}" if len(stated) > 1 else ""
        _print_indented(console, Text(f"set verdict{which} ({rule}): {guarantee}", style="dim"), 2)


def _header(source: Union[RecordedRun, RunResult], sets: int, summary: RunSummary) -> Text:
    total = sum(summary.cases.values())
    text = Text("agenteval", style="bold")
    if isinstance(source, RecordedRun):
        text.append(f" · run {visible(source.run_id)}")
        runs = source.manifest.num_runs
        if source.manifest.num_runs_policy == "auto":
            text.append(f" · {source.manifest.looks[0]}-{runs} runs per case (auto)")
        elif runs > 1:
            text.append(f" · {runs} runs per case")
    text.append(f" · {sets} eval set{'s' if sets != 1 else ''} · {total:,} case{'s' if total != 1 else ''}")
    return text


# -- 3.: the cases -------------------------------------------------------------------------


def _aligned_rows(result: CriterionResult, index: int) -> Optional[list[TrajectoryRow]]:
    """The aligned trajectory ``result`` recorded for invocation ``index`` (or, for a
    criterion that aligned the whole conversation at once, for the case)."""
    item = next((p for p in result.per_invocation if p.index == index), None)
    if item is not None:
        return rows_from_details(item.details)
    return None if result.per_invocation else rows_from_details(result.details)


def _print_rows(label: str, rows: Sequence[TrajectoryRow], console: Console, depth: int) -> None:
    _print_indented(console, Text(label, style="dim"), depth)
    for row in rows[:_ROWS_SHOWN]:
        _print_indented(console, Text(_clip(row_text(row), 400), style=_ROW_STYLE[row.op]), depth + 2)
    if len(rows) > _ROWS_SHOWN:
        _print_indented(console, Text(f"… {len(rows) - _ROWS_SHOWN} more rows", style="dim"), depth + 2)


def _reasons(view: CaseView, console: Console) -> None:
    """Why the case did not pass: each distinct reason once, with the criteria it covers."""
    failure = view.agent_failure
    if failure is not None and failure.error is not None:
        failure_code = f" [{visible(failure.error_code)}]" if failure.error_code else ""
        line = Text("the agent failed", style="bold").append(failure_code, style="dim").append(": ")
        line.append(_clip(failure.error.message, 400))
        _print_indented(console, line, 4)
    groups: dict[tuple[Status, Optional[str], str], list[CriterionResult]] = {}
    for result in view.case.criteria:
        undecided = result.verdict is not None and result.verdict.verdict == "INCONCLUSIVE"
        if result.status.ok and not undecided:
            continue
        reason = result.reason or ""
        if failure is not None and failure.error is not None and failure.error.message in reason:
            reason = "(the agent failed)"
        groups.setdefault((result.status, result.reason_code, reason), []).append(result)
    shown: set[tuple[int, object]] = set()
    for (status, code, reason), results in groups.items():
        names = ", ".join(visible(r.criterion) for r in results)
        line = Text(names)
        if len(results) == 1 and results[0].score is not None:
            result = results[0]
            line.append(f" {_score_of(result)}")
            if result.threshold is not None and not status.ok:
                line.append(f" (threshold {_score(result.threshold)})", style="dim")
        line.append(" ").append(_status(status))
        verdict = results[0].verdict
        if verdict is not None and verdict.verdict == "INCONCLUSIVE":  # e.g. not judged: no budget left
            line.append(" INCONCLUSIVE", style="yellow")
            reason = verdict.reason + (f"; {verdict.hint}" if verdict.hint else "")
        if code:
            line.append(f" [{visible(code)}]", style="dim")
        if reason:
            line.append(": ").append(_clip(reason, 600))
        _print_indented(console, line, 4)
        if status is Status.FAILED:
            _evidence(view, results, console, shown)


def _evidence(
    view: CaseView, results: Sequence[CriterionResult], console: Console, shown: set[tuple[int, object]]
) -> None:
    """What the agent did against what was expected, in the first invocation that failed:
    tool calls for trajectory criteria, replies for the others; each once per case."""
    failed_at = [p.index for r in results for p in r.per_invocation if p.status is Status.FAILED]
    index = min(failed_at) if failed_at else 0
    actual = view.actual[index] if index < len(view.actual) else None
    expected = view.expected[index] if view.expected is not None and index < len(view.expected) else None
    if actual is None:
        return
    turn = f"turn {index + 1}: " if len(view.actual) > 1 else ""
    tools = all(r.criterion in view.trajectory_criteria for r in results)
    if tools:
        if (index, tools) not in shown:
            shown.add((index, tools))
            if expected is not None:
                calls = ", ".join(map(_call, expected.tool_calls())) or "(none)"
                _print_indented(console, Text(f"{turn}expected tools: ", style="dim").append(_clip(calls)), 6)
            calls = ", ".join(map(_call, actual.tool_calls())) or "(none)"
            _print_indented(console, Text(f"{turn}actual tools:   ", style="dim").append(_clip(calls)), 6)
        for result in results:
            rows = _aligned_rows(result, index)
            if rows and (index, result.criterion) not in shown:
                shown.add((index, result.criterion))
                _print_rows(f"{turn}aligned by {visible(result.criterion)}:", rows, console, 6)
        return
    if (index, tools) in shown:
        return
    shown.add((index, tools))
    if expected is not None:
        line = Text(f"{turn}expected: ", style="dim").append(_clip(expected.final_text()))
        _print_indented(console, line, 6)
    _print_indented(console, Text(f"{turn}actual:   ", style="dim").append(_clip(actual.final_text())), 6)


def _case_line(view: CaseView, doubtful: bool = False) -> Text:
    """The case's mark, status and id; ``doubtful``: it passes, but its runs leave a
    criterion INCONCLUSIVE."""
    case = view.case
    if doubtful:
        line = Text("? ", style="yellow").append(_status(case.status)).append(" INCONCLUSIVE", style="yellow")
    else:
        line = Text(f"{_MARK[case.status]} ", style=_STYLE[case.status]).append(_status(case.status))
    line.append(f"  {visible(view.eval_set_id)} · ", style="dim")
    return line.append(visible(case.eval_id), style="bold")


def _passing_line(view: CaseView) -> Text:
    line = _case_line(view)
    scores = [f"{visible(r.criterion)} {_score_of(r)}" for r in view.case.criteria]
    if scores:
        line.append("  " + " · ".join(scores), style="dim")
    return line


def _details(view: CaseView, console: Console) -> None:
    """Per-invocation scores, prompts, responses and tool calls; the agent's output."""
    case = view.case
    for result in case.criteria:
        line = f"{visible(result.criterion)} ({visible(result.plugin.id)}): {_score(result.score)}"
        if result.threshold is not None:
            line += f" / threshold {_score(result.threshold)}"
        _print_indented(console, Text(line).append(" ").append(_status(result.status)), 4)
        if result.error is not None:
            traceback = visible(result.error.traceback, newlines=True)
            shown = traceback if len(traceback) <= 2000 else traceback[:1999] + "…"
            _print_indented(console, shown, 6, "dim")
    for run in case.agent_runs:
        if run.output:  # what the agent printed (ADK's logs for an ADK agent)
            output = visible(run.output, newlines=True)
            label = f"agent output (run {run.run}):" if len(case.agent_runs) > 1 else "agent output:"
            _print_indented(console, Text(label, style="bold"), 4)
            _print_indented(console, output if len(output) <= 2000 else output[:1999] + "…", 6, "dim")
    for index, inv in enumerate(view.actual):
        exp = view.expected[index] if view.expected is not None and index < len(view.expected) else None
        _print_indented(console, Text(f"invocation {index + 1}", style="bold"), 4)
        rows = [("prompt:   ", inv.user_content.text())]
        if exp is not None:
            rows.append(("expected: ", exp.final_text()))
        rows.append(("actual:   ", inv.final_text()))
        if exp is not None:
            rows.append(("expected tools: ", ", ".join(map(_call, exp.tool_calls())) or "(none)"))
        rows.append(("actual tools:   ", ", ".join(map(_call, inv.tool_calls())) or "(none)"))
        for label, value in rows:
            _print_indented(console, Text(label, style="dim").append(_clip(value)), 6)
        for result in case.criteria:
            item = next((p for p in result.per_invocation if p.index == index), None)
            if item is None:
                continue
            text = Text(f"{visible(result.criterion)}: ").append(_status(item.status))
            text.append(f" ({_score(item.score)})")
            if item.reason and item.status is not Status.PASSED:
                text.append(f" {_clip(item.reason, 400)}")
            _print_indented(console, text, 6)
            aligned = rows_from_details(item.details)
            if aligned:
                _print_rows("aligned:", aligned, console, 8)


def _same(view: CaseView) -> CaseView:
    return view


def _listing(
    source: Union[RecordedRun, RunResult], show: str, detailed: bool
) -> Iterator[tuple[int, bool, bool, Callable[[], CaseView]]]:
    """Per case in run order: its INCONCLUSIVE count, whether its status is fine, whether
    the run never scored it, and how to read it. A recorded run of one run per case is
    decided on from its briefs (``case_briefs``) and only the cases printed are read: a
    passing case's one line only as far as its scores (``case_outcome``)."""
    briefs = case_briefs(source) if isinstance(source, RecordedRun) else None
    if briefs is None:
        for view in case_views(source):
            inconclusive = sum(
                1 for r in view.case.criteria if r.verdict is not None and r.verdict.verdict == "INCONCLUSIVE"
            )
            unreached = not_reached([(r.status, r.reason_code) for r in view.case.criteria])
            yield inconclusive, view.case.status.ok, unreached, functools.partial(_same, view)
        return
    assert isinstance(source, RecordedRun)
    pending = source.in_progress
    for brief in briefs:
        ok, unreached = brief.status.ok, brief.unreached
        passing = ok and not brief.inconclusive
        # a case only counted (passing and not listed, or never scored) is never read
        if unreached or (passing and show != "all"):
            read: Callable[[], CaseView] = _unread
        else:
            reader = case_outcome if passing and not detailed else case_view
            read = functools.partial(reader, source, brief.entry, brief.case_id, pending)
        yield brief.inconclusive, ok, unreached, read


def _unread() -> CaseView:
    raise AssertionError("a case only counted is never read")


def _list_cases(
    items: Iterable[tuple[int, bool, bool, Callable[[], CaseView]]],
    console: Console,
    show: str,
    detailed: bool,
) -> tuple[int, int, int, int]:
    """Print the cases; returns the INCONCLUSIVE criterion results seen, the cases not
    passing that were not described, the passing cases not listed, and the cases an
    interruption left unscored."""
    undecided = 0
    left_out = 0
    hidden = 0
    unreached = 0
    described = 0
    titled = False
    for doubtful, ok, never_scored, read in items:
        undecided += doubtful
        passing = ok and not doubtful
        if passing and show != "all":
            hidden += 1
            continue
        if never_scored:  # counted once in the footer, not listed one by one
            unreached += 1
            continue
        if not titled:
            title = "cases" if show == "all" else "not passing, or inconclusive"
            console.print()
            console.print(Text(title, style="bold underline"))
            titled = True
        if passing:
            view = read()
            _print_indented(console, _passing_line(view), 0)
            if detailed:
                _details(view, console)
            continue
        if show != "all" and described >= FAILING_LIMIT:
            left_out += 1
            continue
        described += 1
        view = read()
        _print_indented(console, _case_line(view, doubtful=ok), 0)
        _reasons(view, console)
        if detailed:
            _details(view, console)
    return undecided, left_out, hidden, unreached


# -- 4.: the footer ------------------------------------------------------------------------


def _judge_line(summary: RunSummary) -> Optional[Text]:
    activity = summary.judge
    if activity is None:
        return None
    text = Text(
        f"judge: {activity.calls:,} call(s), {activity.cache_hits:,} from cache, "
        f"{activity.retries:,} retried; "
        f"{activity.input_tokens:,} input + {activity.output_tokens:,} output tokens",
        style="dim",
    )
    if activity.failures:
        failed = ", ".join(f"{n} {visible(code)}" for code, n in sorted(activity.failures.items()))
        text.append(f"; failed calls: {failed}", style="yellow")
    simulator = summary.user_simulator
    if simulator is not None:
        text.append(
            f" (of which the user simulator: {simulator.calls} call(s), {simulator.cache_hits} from cache)",
            style="dim",
        )
    return text


def _criteria_judge_line(summary: RunSummary) -> Optional[Text]:
    """Each judge criterion's share of the judge calls, compactly (its cost: ``_cost_line``)."""
    parts = [
        f"{visible(item.criterion)} {_judge_tokens(item.judge)} ({item.judge.calls:,} call(s)"
        + (f", {item.judge.cache_hits:,} cached)" if item.judge.cache_hits else ")")
        for item in summary.criteria
        if item.judge is not None
    ]
    return Text(f"judge tokens by criterion: {', '.join(parts)}", style="dim") if parts else None


def _cost_line(summary: RunSummary) -> Optional[Text]:
    """What the judge calls cost at the config's prices (``statistics.judge_prices``)."""
    cost = summary.judge_cost
    if cost is None:
        return None
    models = ", ".join(f"{visible(name)} {amount:,.4f}" for name, amount in cost.by_model.items())
    criteria = ", ".join(
        f"{visible(item.criterion)} {item.judge_cost.total:,.4f}" + ("+?" if item.judge_cost.unpriced else "")
        for item in summary.criteria
        if item.judge_cost is not None
    )
    parts = [f"by model: {models}" if models else "", f"by criterion: {criteria}" if criteria else ""]
    shown = "; ".join(part for part in parts if part)
    text = Text(
        f"judge cost: {cost.total:,.4f} at the configured prices per million tokens"
        + (f" ({shown})" if shown else ""),
        style="dim",
    )
    if cost.unpriced:
        text.append(
            f"; no price for {', '.join(visible(n) for n in cost.unpriced)} (statistics.judge_prices): "
            "not counted",
            style="yellow",
        )
    return text


def _budget_lines(summary: RunSummary) -> list[Text]:
    """The judge budgets (calls, tokens) and their use, one line each."""
    budget = summary.budget
    if budget is None:
        return []
    spends = []
    if budget.judge_calls_limit is not None:
        used = f"judge budget: {budget.judge_calls_used:,} of {budget.judge_calls_limit:,} call(s) used"
        spends.append((used, budget.judge_calls_refused, ""))
    if budget.judge_tokens_limit is not None:
        used = (
            f"judge token budget: {budget.judge_tokens_used:,} of {budget.judge_tokens_limit:,} token(s) used"
        )
        spends.append((used, budget.judge_tokens_refused, " call(s)"))
    lines = []
    for used, refused, unit in spends:
        text = Text(used, style="dim")
        if refused:
            text.append(f"; {refused:,}{unit} refused once it was spent", style="yellow")
        lines.append(text)
    if budget.inconclusive:
        lines.append(
            Text(
                f"judge budget spent: {budget.inconclusive:,} criterion result(s) not judged, each "
                "INCONCLUSIVE (judge_budget); a larger budget settles them, more runs do not",
                style="yellow",
            )
        )
    return lines


def _agreement_lines(summary: RunSummary) -> list[Text]:
    """How each judge criterion's samples agreed: unanimity, fragile majorities, α, calls saved."""
    lines = []
    for item in summary.criteria:
        agreement = item.agreement
        if agreement is None or not agreement.invocations:
            continue
        parts = [f"{agreement.calls_used:,} call(s), {agreement.calls_saved:,} saved"]
        if agreement.unanimity is not None:
            parts.append(f"unanimous {agreement.unanimity:.0%}")
        if agreement.fragile:
            parts.append(f"{agreement.fragile:,} decided by one vote")
        if agreement.krippendorff_alpha is not None:
            parts.append(f"Krippendorff's α {agreement.krippendorff_alpha:.2f}")
        lines.append(Text(f"judge samples of {visible(item.criterion)}: {', '.join(parts)}", style="dim"))
    return lines


def _calibration_lines(source: Union[RecordedRun, RunResult]) -> list[Text]:
    """Each judge criterion's calibration card (the run folder's ``calibration.json``, from
    ``agenteval calibrate``) and the calibration gate's finding (``--calibration``, in the
    manifest), one line each; none for a result in memory."""
    if not isinstance(source, RecordedRun):
        return []
    cards = {}
    if (source.folder / CALIBRATION).exists():  # the calibration package is imported when needed
        from ..calibration import read_cards

        cards = read_cards(source)
    lines = []
    entries = {e.name: e for s in source.manifest.eval_sets for e in s.criteria}
    for name, card in cards.items():
        lines.append(
            Text(
                f"calibration of {visible(name)}: Cohen's κ {card.kappa_text()} over {card.n:,} human "
                f"label(s), people passed {card.base_rate:.0%}, judge {card.judge_rate:.0%}, "
                f"accuracy {_interval(card.accuracy, percent=True)} "
                f"(judge {visible(', '.join(card.judge_models) or 'none')}, "
                f"{visible(card.criterion_version)})",
                style="dim",
            )
        )
    for name, entry in entries.items():
        gate = entry.calibration
        if gate is None:
            continue
        if gate.problem is None:
            floor = f", floor {gate.min_kappa:g}" if gate.min_kappa is not None else ""
            kappa = (
                "undefined"
                if gate.kappa is None
                else f"{gate.kappa:.2f} [{gate.kappa_low:.2f}, {gate.kappa_high:.2f}]"
            )
            lines.append(
                Text(
                    f"calibration gate of {visible(name)}: a current card "
                    f"(run {visible(gate.card_run_id or '-')}, κ {kappa} "
                    f"over {gate.n or 0:,} label(s){floor})",
                    style="dim",
                )
            )
        else:
            lines.append(
                Text(
                    f"calibration gate of {visible(name)}: its verdicts are INCONCLUSIVE: "
                    f"{visible(gate.problem)}",
                    style="yellow",
                )
            )
    return lines


def _not_evaluated_line(summary: RunSummary) -> Optional[Text]:
    parts = [f"{n:,} {visible(code)}" for code, n in summary.not_evaluated_reasons.items()]
    parts += [f"{n:,} invocation(s) {visible(code)}" for code, n in summary.invocations_not_evaluated.items()]
    if not parts:
        return None
    return Text(f"not evaluated: {', '.join(parts)}", style="yellow")


def _footer(
    console: Console,
    summary: RunSummary,
    undecided: int,
    left_out: int,
    hidden: int,
    calibration: Sequence[Text] = (),
) -> None:
    if left_out:
        console.print(
            Text(
                f"… and {left_out:,} more case(s) not passing, not described here "
                "(--show all lists every case; the run folder has them all)",
                style="yellow",
            )
        )
    if hidden:
        console.print(Text(f"{hidden:,} passing case(s) not listed (--show all lists them)", style="dim"))
    for line in (
        _judge_line(summary),
        _criteria_judge_line(summary),
        _cost_line(summary),
        *_budget_lines(summary),
        *_agreement_lines(summary),
        *calibration,
        _not_evaluated_line(summary),
    ):
        if line is not None:
            console.print(line)
    if undecided:
        causes = ["an interval over the runs that contains the threshold (more runs, --num-runs, settle it)"]
        if any(line.style == "yellow" for line in calibration):
            causes.append("a judge not calibrated (--calibration; a current card settles it)")
        if summary.budget is not None and summary.budget.inconclusive:
            causes.append("a judge budget spent before the result was judged (a larger budget settles it)")
        console.print(
            Text(
                f"inconclusive: {undecided:,} criterion result(s) neither shown to PASS nor to FAIL, each "
                f"saying why: {' or '.join(causes)}"
                if len(causes) > 1
                else f"inconclusive: {undecided:,} criterion result(s) whose interval over the runs contains "
                "the threshold; more runs (--num-runs) would settle them",
                style="yellow",
            )
        )


def render_table(
    source: Union[RecordedRun, RunResult],
    console: Console,
    *,
    summary: Optional[RunSummary] = None,
    show: str = "failing",
    detailed: bool = False,
) -> None:
    """Print the report of a recorded run (read one case at a time) or of a ``RunResult``.

    ``summary`` is the run's own summary when the caller has it (a recorded run's is
    otherwise recomputed from its records, one more pass over them). ``show="failing"``
    describes the cases that did not pass (at most ``FAILING_LIMIT``, the rest counted);
    ``show="all"`` also lists each passing case on one line.
    """
    if isinstance(source, RunResult):
        stopped = "interrupted" if source.interrupted else None
        sets = len(source.eval_sets)
        summary = summary or source.summary
    else:
        stopped = None
        if source.in_progress:
            stopped = "running"
        elif source.manifest.state is not RunState.COMPLETE:
            stopped = "interrupted"
        sets = len(source.manifest.eval_sets)
        summary = summary or source.result_summary()
    console.print(_header(source, sets, summary))
    console.print(_verdict_line(summary, stopped))
    if summary.criteria:
        console.print()
        console.print(_criteria_table(summary))
    _set_statistics(console, summary)
    undecided, left_out, hidden, unreached = _list_cases(
        _listing(source, show, detailed), console, show, detailed
    )
    console.print()
    if unreached:
        why = "not scored yet" if stopped == "running" else "not reached before the interruption"
        console.print(Text(f"{unreached:,} case(s) {why}", style="yellow"))
    _footer(console, summary, undecided, left_out, hidden, _calibration_lines(source))
    console.print(_verdict_line(summary, stopped))
