"""The failure report of one eval case: what fell short, then expected vs actual per turn.

    FAILED: 1 of 4 criteria fell short: tool_trajectory_avg_score
    criteria that fell short:
      tool_trajectory_avg_score: score 0, threshold 1, FAILED
        <the criterion's reason>
    others: response_match_score 0.91 PASSED, ...
    invocation 1 of 2, user: Find me a flight from Berlin to Tokyo on 12 March.
      tool calls (- expected, + actual):
        - search_flights(origin="BER", destination="HND", date="2027-03-12")
        + search_flights(origin="BER", destination="NRT", date="2027-03-12")
      final response: as expected
    invocation 2 of 2: tool calls and final response as expected

With several runs the worst run is shown, after every criterion's per-run scores. The text
depends only on the results (no timings, no colours), so it is the same from run to run.
"""

from __future__ import annotations

import difflib
import json
import sysconfig
from collections.abc import Sequence
from itertools import zip_longest
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:  # nothing from agenteval is imported until a report is made
    from agenteval import CaseResult, CriterionResult
    from agenteval.models import FunctionCall, Invocation

__all__ = ["case_report", "case_verdict", "inconclusive_report"]

#: Worst first, as the engine ranks a case's statuses (a FAILED run shows the most).
_RANK = ["FAILED", "ERRORED", "NOT_EVALUATED", "PASSED", "INFORMATIONAL"]
_MAX_DIFF_LINES = 40
_TRACEBACK_FRAMES = 6


def _num(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.4g}"


def _clip(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _call(call: FunctionCall, order: Sequence[str] = ()) -> str:
    """``name(arg=value, ...)``; arguments named in ``order`` come first, in that order
    (argument order never affects a score, so it must not make a diff either)."""
    args = call.args or {}
    keys = [k for k in order if k in args] + [k for k in args if k not in order]
    shown = ", ".join(f"{k}={json.dumps(args[k], ensure_ascii=False, sort_keys=True)}" for k in keys)
    return f"{call.name}({shown})"


def _calls(expected: Optional[Sequence[FunctionCall]], actual: Sequence[FunctionCall]) -> list[str]:
    """The actual calls, each with its arguments in the order of the expected call it
    most likely stands for (the one at the same position, else the first of that name)."""
    if not expected:
        return [_call(c) for c in actual]
    shown = []
    for index, call in enumerate(actual):
        twin = expected[index] if index < len(expected) and expected[index].name == call.name else None
        twin = twin or next((e for e in expected if e.name == call.name), None)
        shown.append(_call(call, list((twin.args or {}) if twin is not None else ())))
    return shown


def _diff(expected: list[str], actual: list[str]) -> list[str]:
    lines = [line.rstrip() for line in difflib.ndiff(expected, actual)]
    if len(lines) > _MAX_DIFF_LINES:
        rest = len(lines) - _MAX_DIFF_LINES
        lines = [*lines[:_MAX_DIFF_LINES], f"... {rest} more line{'s' if rest != 1 else ''}"]
    return lines


def _rank(status: Any) -> int:
    return _RANK.index(status.value)


def _rank_of(value: str) -> int:
    return _RANK.index(value)


def _criterion_line(result: CriterionResult) -> str:
    line = f"{result.criterion}: score {_num(result.score)}"
    if result.threshold is not None:
        line += f", threshold {_num(result.threshold)}"
    line += f", {result.status.value}"
    if result.reason_code:
        line += f" [{result.reason_code}]"
    verdict = result.verdict
    if verdict is not None and verdict.basis != "single-run":  # one run: the same as the status
        line += f", tri-state {verdict.verdict}"
    return line


def case_verdict(case: CaseResult) -> Optional[str]:
    """The case's tri-state verdict over its gating criteria (FAIL if one FAILs or is not
    evaluated, else INCONCLUSIVE if one is, else PASS); ``None`` without verdicts."""
    verdicts = [r.verdict.verdict for r in case.criteria if r.verdict is not None]
    if not verdicts:
        return None
    if any(v in ("FAIL", "NOT_EVALUATED") for v in verdicts):
        return "FAIL"
    return "INCONCLUSIVE" if "INCONCLUSIVE" in verdicts else "PASS"


def inconclusive_report(case: CaseResult) -> str:
    """The report of a case whose point verdicts pass but whose intervals over the runs
    contain a threshold (``--agenteval-fail-on-inconclusive``): each such criterion's
    interval and how many runs would settle it."""
    open_ = [r for r in case.criteria if r.verdict is not None and r.verdict.verdict == "INCONCLUSIVE"]
    lines = [
        f"INCONCLUSIVE: {len(open_)} of {len(case.criteria)} criteria pass on the mean, but their "
        f"interval contains the threshold: {', '.join(r.criterion for r in open_)}"
    ]
    for result in open_:
        assert result.verdict is not None
        lines.append(f"  {_criterion_line(result)}")
        lines.append(f"    {_clip(result.verdict.reason, 600)}")
        if result.verdict.hint:
            lines.append(f"    {_clip(result.verdict.hint, 300)}")
    return "\n".join(lines)


def _run_results(case: CaseResult, run: int) -> list[CriterionResult]:
    """Each criterion's result in run ``run`` (0-based); the case's own for a single run."""
    return [r.runs[run] if r.runs and run < len(r.runs) else r for r in case.criteria]


def _worst_run(case: CaseResult) -> int:
    """The 0-based run to show: worst status, then most criteria short, then earliest."""

    def key(run: int) -> tuple[int, int, int]:
        results = _run_results(case, run)
        ranks = [_rank(r.status) for r in results]
        if case.agent_runs[run].error is not None:
            ranks.append(_rank_of("ERRORED"))
        short = sum(1 for r in results if not r.status.ok)
        return (min(ranks, default=_rank_of("PASSED")), -short, run)

    return min(range(len(case.agent_runs)), key=key)


def _criteria_section(case: CaseResult) -> list[str]:
    short = [r for r in case.criteria if not r.status.ok]
    lines = ["criteria that fell short:"] if short else []
    for result in short:
        lines.append(f"  {_criterion_line(result)}")
        if result.reason:
            lines.append(f"    {_clip(result.reason, 600)}")
    others = [r for r in case.criteria if r.status.ok]
    if others:
        shown = ", ".join(f"{r.criterion} {_num(r.score)} {r.status.value}" for r in others)
        lines.append(f"others: {shown}")
    return lines


def _runs_section(case: CaseResult, shown: int) -> list[str]:
    runs = len(case.agent_runs)
    rows = [(r.criterion, [x.score for x in r.runs] or [r.score], r.score) for r in case.criteria]
    rows = [row for row in rows if any(score is not None for score in row[1])]
    heading = "Per-run scores:" if rows else "No run produced a score."
    lines = [f"{runs} runs; run {shown + 1} is shown below (the worst). {heading}"]
    width = max((len(name) for name, _, _ in rows), default=0)
    for name, scores, mean in rows:
        lines.append(f"  {name.ljust(width)}  {'  '.join(map(_num, scores))}  (mean {_num(mean)})")
    failed: dict[str, list[str]] = {}
    for record in case.agent_runs:
        if record.error is not None:
            failed.setdefault(record.error_code or "error", []).append(str(record.run))
    for code, which in failed.items():
        lines.append(f"  run{'s' if len(which) > 1 else ''} {', '.join(which)}: {_no_conversation(code)}")
    return lines


def _no_conversation(code: str) -> str:
    return f"the agent failed [{code}]" if code.startswith("agent_") else f"the case was not run [{code}]"


def _trace_tail(text: str) -> list[str]:
    """The innermost frames of a traceback, below the last standard-library frame (for a
    sync agent, the thread it runs in), at most ``_TRACEBACK_FRAMES``; then the error."""
    lines = [line for line in text.rstrip().splitlines() if line.strip()]
    frames = [i for i, line in enumerate(lines) if line.lstrip().startswith('File "')]
    if not frames:
        return lines
    stdlib = sysconfig.get_paths()["stdlib"]
    in_stdlib = [i for i in frames if lines[i].lstrip()[len('File "') :].startswith(stdlib)]
    own = [i for i in frames if not in_stdlib or i > in_stdlib[-1]] or frames
    first = own[-_TRACEBACK_FRAMES:][0]
    return (["..."] if first > 0 else []) + lines[first:]


def _agent_error(record: Any) -> list[str]:
    lines = [f"{_no_conversation(record.error_code or 'error')}: {_clip(record.error.message, 600)}"]
    lines.extend(f"  {line}" for line in _trace_tail(record.error.traceback))
    return lines


def _invocation_section(
    index: int,
    count: int,
    expected: Optional[Invocation],
    actual: Optional[Invocation],
    results: Sequence[CriterionResult],
    reference: bool,
) -> list[str]:
    """One turn: as expected in one line, else what differs and what scored short."""
    where = f"invocation {index + 1} of {count}"
    exp_list = expected.tool_calls() if expected is not None else None
    exp_calls = [_call(c) for c in exp_list] if exp_list is not None else None
    act_calls = _calls(exp_list, actual.tool_calls()) if actual is not None else []
    exp_text = expected.final_text() if expected is not None else None
    act_text = actual.final_text() if actual is not None else ""
    short = [
        (result, item)
        for result in results
        for item in result.per_invocation
        if item.index == index and not item.status.ok
    ]
    if expected is not None and actual is not None and exp_calls == act_calls and exp_text == act_text:
        if not short:
            return [f"{where}: tool calls and final response as expected"]
    source = actual if actual is not None else expected
    user = source.user_content.text() if source is not None else ""
    lines = [f"{where}, user: {_clip(user)}"]
    if actual is None:
        lines.append("  the agent produced no invocation for this turn")
    if exp_calls is None:  # a conversation scenario or an extra turn: nothing to compare with
        if reference:
            lines.append("  the eval case has no expected invocation for this turn")
        lines.append(f"  tool calls: {', '.join(act_calls) or '(none)'}")
        lines.append(f"  final response: {act_text or '(empty)'}")
    else:
        if exp_calls == act_calls:
            lines.append(f"  tool calls: as expected: {', '.join(act_calls) or '(none)'}")
        else:
            lines.append("  tool calls (- expected, + actual):")
            lines.extend(f"    {line}" for line in _diff(exp_calls, act_calls))
        if exp_text == act_text:
            lines.append("  final response: as expected")
        else:
            lines.append("  final response (- expected, + actual):")
            exp_lines = (exp_text or "").splitlines() or ["(empty)"]  # a str: there is an expected turn
            act_lines = act_text.splitlines() or ["(empty)"]
            lines.extend(f"    {line}" for line in _diff(exp_lines, act_lines))
    for result, item in short:
        line = f"  {result.criterion}: {_num(item.score)} {item.status.value}"
        if item.reason and item.reason not in (result.reason or ""):  # not said above already
            line += f": {_clip(item.reason, 300)}"
        lines.append(line)
    return lines


def case_report(case: CaseResult, expected: Optional[Sequence[Invocation]]) -> str:
    """The report for a case that did not pass (``expected``: the eval file's turns, or
    ``None`` for a conversation scenario)."""
    short = [r.criterion for r in case.criteria if not r.status.ok]
    if short:
        head = f"{len(short)} of {len(case.criteria)} criteria fell short: {', '.join(short)}"
    else:
        head = "no criteria" if not case.criteria else "no criterion fell short"
    lines = [f"{case.status.value}: {head}"]
    lines.extend(_criteria_section(case))
    if not case.agent_runs:
        return "\n".join(lines)
    shown = _worst_run(case) if len(case.agent_runs) > 1 else 0
    if len(case.agent_runs) > 1:
        lines.extend(_runs_section(case, shown))
    record = case.agent_runs[shown]
    if record.error is not None:
        lines.extend(_agent_error(record))
        return "\n".join(lines)
    actual = record.invocations
    expected = list(expected) if expected is not None else None
    results = _run_results(case, shown)
    count = max(len(actual), len(expected or ()))
    if count == 0:
        lines.append("no invocations: the case has no turns and the agent produced none")
    pairs = zip_longest(expected if expected is not None else [None] * len(actual), actual)
    for index, (exp, act) in enumerate(pairs):
        lines.extend(_invocation_section(index, count, exp, act, results, expected is not None))
    return "\n".join(lines)
