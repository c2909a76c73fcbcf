"""The trajectory diff of a failed criterion as Markdown: why the trajectory lost points.

One table per criterion, for the first failed invocation that recorded an aligned trajectory
(``agenteval.plugins.rows_from_details``; or the case's own rows for a criterion that
aligned the whole conversation at once): one row per call, with what was expected, what the
agent called, and what differs (each argument's expected and actual value and the matcher
that decided). Tool names, keys and values are untrusted: they go through ``code``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Optional

from agenteval import CriterionResult, Status
from agenteval.plugins import TrajectoryRow, diff_text, rows_from_details

from ._common import clip, code

__all__ = ["ROWS_SHOWN", "diff_tables"]

#: rows of one table; the rest are counted.
ROWS_SHOWN = 12
_VALUE_CHARS = 80
_OP = {"match": "= match", "args_differ": "≠ differs", "missing": "− missing", "extra": "+ extra"}


def diff_tables(results: Iterable[CriterionResult]) -> list[str]:
    """Markdown lines: a heading line and a table per result that recorded rows."""
    lines: list[str] = []
    for result in results:
        found = _first_failed_rows(result)
        if found is None:
            continue
        index, rows = found
        where = f", invocation {index + 1}" if index is not None else ""
        lines += ["", f"{code(result.criterion)} trajectory diff{where}:", ""]
        lines += ["| | expected | actual | what differs |", "|---|---|---|---|"]
        lines += [_row(row) for row in rows[:ROWS_SHOWN]]
        if len(rows) > ROWS_SHOWN:
            lines.append(f"| … | {len(rows) - ROWS_SHOWN} more rows | | |")
    return lines


def _first_failed_rows(result: CriterionResult) -> Optional[tuple[Optional[int], list[TrajectoryRow]]]:
    """``(invocation index, rows)`` of the first failed invocation with rows; with several
    runs, of the first failed run; ``(None, rows)`` for rows recorded for the whole case."""
    if not result.per_invocation and result.runs:
        result = next((r for r in result.runs if r.status is Status.FAILED), result.runs[0])
    for item in result.per_invocation:
        if item.status is Status.FAILED:
            rows = rows_from_details(item.details)
            if rows:
                return item.index, rows
    rows = rows_from_details(result.details)
    return (None, rows) if rows else None


def _value(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError, RecursionError):  # not JSON: shown as text
        text = str(value)
    return clip(text, _VALUE_CHARS)


def _call(name: str, args: Optional[dict[str, Any]], index: Optional[int], turn: Optional[int]) -> str:
    if index is None:
        return ""
    where = f"#{index + 1}" + (f" (turn {turn + 1})" if turn is not None else "")
    shown = ", ".join(f"{key}={_value(value)}" for key, value in (args or {}).items())
    return f"{where} {code(clip(f'{name}({shown})', 2 * _VALUE_CHARS))}"


def _row(row: TrajectoryRow) -> str:
    op = _OP[row.op]
    if row.similarity is not None and row.op in ("match", "args_differ"):
        op += f", similarity {row.similarity:.3g}"
    expected = _call(row.name, row.expected_args, row.expected_index, row.expected_turn)
    actual = _call(row.name, row.actual_args, row.actual_index, row.actual_turn)
    differs = "<br>".join(diff_text(d, lambda v: code(_value(v)), code) for d in row.arg_diffs)
    return "| " + " | ".join([op, expected, actual, differs]) + " |"
