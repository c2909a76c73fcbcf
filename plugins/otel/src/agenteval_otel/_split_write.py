"""An eval set's cases written by two processes: a forked helper writes the second half's JSON.

``import-trace`` builds each case (its turns validated as ``Invocation`` models) and dumps it
as JSON: at 10k cases, most of the command's time after the read. Each case's text depends on
that case alone, so a forked helper builds and dumps the cases from the middle on into a
temporary file beside the output while this process writes the first half; this process then
copies the helper's text after its own, byte for byte what one process writes. When the
helper fails (killed, out of memory, an error), this process writes the second half itself.

Used for at least ``SPLIT_FROM_CASES`` cases, given as a sequence (built when indexed), when a
forked helper may run (``_parallel.can_fork``: a second CPU idle, no other thread).
"""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import tempfile
from collections.abc import Iterable, Sequence
from typing import IO, TYPE_CHECKING, Optional

from . import _parallel

if TYPE_CHECKING:
    from pathlib import Path

    from agenteval.models import EvalCase

__all__ = ["SPLIT_FROM_CASES", "case_text", "write_cases"]

#: The fewest cases written with a helper (below it, the fork and the copy cost about what
#: they save).
SPLIT_FROM_CASES = 256
#: What separates a case's text from the one before it (the first case's: ``_FIRST``).
_NEXT, _FIRST = b",\n    ", b"\n    "


def case_text(case: EvalCase) -> bytes:
    """A case's JSON as ``write_eval_set`` writes it inside the eval set (indented once more)."""
    # model_dump_json, not the serializer's to_json: before pydantic 2.11 to_json wrote
    # aliases by default (camelCase here), model_dump_json never does unless asked
    text = case.model_dump_json(indent=2, exclude_none=True).encode("utf-8")
    return text.replace(b"\n", b"\n    ")


def write_cases(handle: IO[bytes], cases: Iterable[EvalCase], output: Path) -> list[str]:
    """Each case's text, after its separator, written to ``handle`` (the eval set ``output``
    being written); the ids of the cases written. A sequence of ``SPLIT_FROM_CASES`` cases or
    more is shared with a helper when one may run (see the module docstring)."""
    if isinstance(cases, Sequence) and len(cases) >= SPLIT_FROM_CASES and _parallel.can_fork():
        return _shared(handle, cases, output)
    return _write(handle, cases, first=True)


def _write(handle: IO[bytes], cases: Iterable[EvalCase], *, first: bool) -> list[str]:
    written = []
    for case in cases:
        handle.write(_FIRST if first and not written else _NEXT)
        handle.write(case_text(case))
        written.append(case.eval_id)
    return written


def _shared(handle: IO[bytes], cases: Sequence[EvalCase], output: Path) -> list[str]:
    """The first half written here, the rest by a forked helper into a temporary file copied after it."""
    middle = len(cases) // 2
    rest = range(middle, len(cases))
    handle.flush()  # (a fork copies the buffer: the helper never writes it)
    with tempfile.TemporaryFile(dir=output.parent, prefix=f".{output.name}.") as part:

        def helper() -> list[str]:
            ids = _write(part, (cases[i] for i in rest), first=False)
            part.flush()
            return ids

        pid, reading = _parallel.forked(helper)
        try:
            written = _write(handle, (cases[i] for i in range(middle)), first=True)
            ids = _collect(reading, pid)
            reading = pid = -1
        finally:
            if pid > 0:  # this half failed: the helper is let go
                os.close(reading)
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        if ids is None or len(ids) != len(rest):  # the helper failed: the rest written here
            return written + _write(handle, (cases[i] for i in rest), first=not written)
        part.seek(0)
        shutil.copyfileobj(part, handle, 1 << 20)
    return written + ids


def _collect(reading: int, pid: int) -> Optional[list[str]]:
    """The ids the helper wrote (``None``: it failed), once it has finished."""
    ids = None
    try:
        with os.fdopen(reading, "rb") as pipe:
            try:
                ids = pickle.load(pipe)
            except Exception:  # noqa: BLE001  # nothing, or a part: the helper failed
                ids = None
    finally:
        _, status = os.waitpid(pid, 0)
    return ids if status == 0 and type(ids) is list else None
