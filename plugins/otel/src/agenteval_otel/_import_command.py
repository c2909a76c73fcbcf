"""``agenteval import-trace FILE -o NAME.evalset.json [--as-expected]``: a recorded trace as an
ADK eval set (record once, score later runs against it).

Module-level imports stay light (click only): ``agenteval --help`` lists this command.
Exit codes: 0 written, 2 a file that cannot be read or a trace that lacks content.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import click
from agenteval.plugins import reports_errors

if TYPE_CHECKING:
    from collections.abc import Iterable

    from agenteval.models import EvalCase, EvalSet

__all__ = ["import_trace"]


@click.command(name="import-trace")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The eval set to write (NAME.evalset.json); its eval_set_id is NAME.",
)
@click.option(
    "--as-expected",
    is_flag=True,
    help="Write the turns as the expected (golden) conversation of each case, without the run's "
    "times and token counts; default: as actual invocations, which --actual reads as the trace.",
)
@click.option(
    "--cases",
    "cases_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="An eval set whose cases the sessions are matched to, by --actual's rule (agenteval.case_id, "
    "session id, first user message); only matched sessions are written, under those cases' ids.",
)
@reports_errors
def import_trace(file: Path, output: Path, as_expected: bool, cases_file: Optional[Path]) -> None:
    """Write an OpenTelemetry trace file's sessions as an ADK eval set, one case per session.

    The case id is the session's agenteval.case_id attribute, else its session id (or, with
    --cases, the id of the case the session matches). A trace whose turns lack content (see
    `agenteval lint-trace`) is refused: exit 2.
    """
    from agenteval.text import visible

    from ._golden import imported_cases

    cases = None
    if cases_file is not None:
        from agenteval import load_eval_set

        cases = load_eval_set(cases_file).eval_cases
    frame, found = imported_cases(file, _set_id(output), as_expected=as_expected, cases=cases)
    written = write_eval_set(frame, output, found)
    ids = ", ".join(written)
    click.echo(f"wrote {visible(str(output))}: {len(written)} case(s) ({visible(ids)})")
    if as_expected:
        later = f"agenteval run {shlex.quote(str(output))} --actual LATER_TRACE.json"
        click.echo(f"score a later recording against it: {visible(later)}")
    else:
        click.echo(f"score it: {visible(f'agenteval run EVALSET --actual {shlex.quote(str(output))}')}")


#: What an empty case list is in the eval set's JSON (``write_eval_set`` writes the cases there).
_NO_CASES = b'"eval_cases": []'


def write_eval_set(eval_set: EvalSet, output: Path, cases: Optional[Iterable[EvalCase]] = None) -> list[str]:
    """``eval_set.model_dump_json(indent=2, exclude_none=True)`` and a newline, written a case
    at a time (byte for byte the same): the JSON of a 10k-case set is never held whole. With
    ``cases``, those are its cases (each let go once written; a sequence of many is shared with
    a helper process, ``_split_write``), not ``eval_set``'s. The ids of the cases written."""
    from ._split_write import write_cases

    frame = eval_set.model_copy(update={"eval_cases": []}).model_dump_json(indent=2, exclude_none=True)
    head, tail = frame.encode("utf-8").split(_NO_CASES, 1)
    with output.open("wb") as handle:
        handle.write(head + _NO_CASES[:-1])
        written = write_cases(handle, eval_set.eval_cases if cases is None else cases, output)
        handle.write((b"\n  ]" if written else b"]") + tail + b"\n")
    return written


def _set_id(output: Path) -> str:
    name = output.name
    for ending in (".evalset.json", ".json"):
        if name.endswith(ending):
            name = name[: -len(ending)]
            break
    return re.sub(r"[^A-Za-z0-9_]+", "_", name).strip("_") or "imported_trace"
