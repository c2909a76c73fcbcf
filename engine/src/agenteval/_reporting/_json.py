"""The ``--format json`` document (see docs/json-format.md): ``RunResult`` as JSON, written
from a ``RunResult`` in memory or streamed from a recorded run one case at a time."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Optional, Union

from .._jsonsafe import dump_model
from .._results import EvalSetResult, RunResult, RunSummary
from ..runs import RecordedRun
from ._cases import case_results
from ._spool import CASE_INDENT, CaseSpool

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

__all__ = ["json_chunks", "render_json", "write_json"]

_EVAL_SETS = '\n  "eval_sets": [],\n'

#: Characters gathered before one write to the output stream.
_WRITE_SIZE = 1 << 20


def render_json(result: RunResult, *, indent: int = 2) -> str:
    """The stable JSON document: format_version, engine_version, summary, eval_sets, warnings.

    Serialised by pydantic's own encoder (several times faster than the standard library on
    large runs); non-finite numbers become ``null``, and a value pydantic cannot encode (a
    lone surrogate, nesting past its depth limit) is made writable instead of losing the
    report (``agenteval._jsonsafe``).
    """
    return dump_model(result, indent=indent) + "\n"


def json_chunks(
    source: RecordedRun, *, summary: Optional[RunSummary] = None, spool: Optional[CaseSpool] = None
) -> Iterator[str]:
    """The same document as ``render_json(run.result())``, character for character, in
    pieces: one case in memory at a time. ``summary`` is the run's own when the caller has
    it (otherwise recomputed from the records: one more pass over them); ``spool``: the
    cases as the run rendered them when it finished them (``CaseSpool``), used when it has
    every planned case (otherwise each case is read from the records)."""
    if summary is None:
        summary = source.result_summary()
    manifest = source.manifest
    shell = RunResult(
        engine_version=manifest.engine_version,
        summary=summary,
        eval_sets=[],
        warnings=list(manifest.warnings),
        interrupted=manifest.state.value != "complete",
        run_id=source.run_id,
    )
    head, _, tail = dump_model(shell, indent=2).partition(_EVAL_SETS)
    yield head + '\n  "eval_sets": ['
    sets = manifest.eval_sets
    cached = spool if spool is not None and spool.covers(manifest) else None
    results = case_results(source) if cached is None else None
    if cached is not None:
        cached.prepare_reading()
    for position, entry in enumerate(sets):
        shell_set = EvalSetResult(eval_set_id=entry.eval_set_id, source=entry.path, cases=[])
        before, _, after = dump_model(shell_set, indent=2).replace("\n", "\n    ").partition('"cases": []')
        yield ("," if position else "") + "\n    " + before + '"cases": ['
        for number, case_id in enumerate(entry.case_ids):
            if cached is not None:
                case = cached.text(entry.index, case_id)
            else:
                assert results is not None
                case = dump_model(next(results), indent=2).replace("\n", CASE_INDENT)
            yield ("," if number else "") + CASE_INDENT + case
        yield ("\n      ]" if entry.case_ids else "]") + after
    yield ("\n  ]" if sets else "]") + ",\n" + tail + "\n"


def write_json(
    source: Union[RecordedRun, RunResult],
    out: SupportsWrite[str],
    *,
    summary: Optional[RunSummary] = None,
    transform: Callable[[str], str] = lambda text: text,
    spool: Optional[CaseSpool] = None,
) -> None:
    """Write the document to ``out``; ``transform`` is applied to each piece (e.g. making
    control characters visible for a terminal); ``spool``: as ``json_chunks``. The pieces
    go out in writes of about ``_WRITE_SIZE`` characters (a write to a terminal stream has a
    cost of its own: one per case was most of the time a 100k-case report took)."""
    if isinstance(source, RunResult):
        out.write(transform(render_json(source)))
        return
    pending: list[str] = []
    size = 0
    for chunk in json_chunks(source, summary=summary, spool=spool):
        piece = transform(chunk)
        pending.append(piece)
        size += len(piece)
        if size >= _WRITE_SIZE:
            out.write("".join(pending))
            pending.clear()
            size = 0
    if pending:
        out.write("".join(pending))
