"""A recorded trace as an ADK eval set: every session one case (``agenteval import-trace``).

* The case id is the session's ``agenteval.case_id``, else its session id; given the eval
  set's ``cases``, sessions are matched to them by ``--actual``'s rule instead (see
  ``_reader``) and only the matched ones are written.
* **Actual** (the default): the turns exactly as ``--actual TRACE`` reads them, so the file
  scores as the trace does.
* **Expected** (``as_expected``): a golden reference for later runs: each turn's user message,
  final response and intermediate data in ADK's hand-written form (``tool_uses``,
  ``tool_responses``, ``intermediate_responses``), without the run's measurements (times,
  token usage, model versions).

A trace whose turns lack content cannot give a faithful file (an ADK file has no place to say
what is missing, so a later score would be silent): it is a ``DataError`` listing the
findings and the setting to turn on.

One session at a time (the viewer's authoring screen starting a case from a trace, through
``OtelReader.recorded_sessions`` and ``OtelReader.session_case``): ``trace_sessions`` lists
the sessions with what each lacks, ``session_case`` is one session's case, built as above
(refused with its findings when it lacks content). Both read the file once while it is
unchanged: the last file read is kept (its turns packed) for the next call.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Optional, Union, overload

from agenteval.errors import DataError
from agenteval.models import EvalCase, EvalSet, IntermediateData, Invocation, Part
from agenteval.plugins import gc_paused

from ._packed import Conversation
from ._reader import OtelReader, sessions_of
from ._select import read_turns
from ._turns import CAPTURE_SETTING, Turn

__all__ = ["eval_set_from_trace", "session_case", "trace_sessions"]

_SHOWN = 10


def eval_set_from_trace(
    path: Path, eval_set_id: str, *, as_expected: bool, cases: Optional[Sequence[EvalCase]] = None
) -> EvalSet:
    """The eval set of the trace at ``path`` (see the module docstring)."""
    frame, found = imported_cases(path, eval_set_id, as_expected=as_expected, cases=cases)
    return frame.model_copy(update={"eval_cases": list(found)})


def imported_cases(
    path: Path, eval_set_id: str, *, as_expected: bool, cases: Optional[Sequence[EvalCase]] = None
) -> tuple[EvalSet, Sequence[EvalCase]]:
    """``eval_set_from_trace`` as the eval set without its cases, and its cases, each built
    when it is read (``_Cases``; the file is read, and refused, before this returns)."""
    if cases is not None:
        reader = OtelReader()
        matched = reader.read_actual(path, cases)
        _refuse(path, reader.warnings[:-1])  # the last warning is the summary, not a finding
        sessions = [(case.eval_id, case.conversation or []) for case in matched.eval_cases]
    else:
        sessions = _sessions(path)
    kind = "expected (golden)" if as_expected else "actual"
    frame = EvalSet(
        eval_set_id=eval_set_id, name=f"{kind} invocations imported from the trace {path.name}", eval_cases=[]
    )
    return frame, _Cases(sessions, as_expected=as_expected)


class _Cases(Sequence[EvalCase]):
    """The imported cases, each built when it is indexed (and not kept): what a writer reads a
    case at a time, or shares with a helper process by index (``_split_write``)."""

    def __init__(self, sessions: Sequence[tuple[str, Sequence[Invocation]]], *, as_expected: bool) -> None:
        self._sessions = sessions
        self._as_expected = as_expected

    def __len__(self) -> int:
        return len(self._sessions)

    @overload
    def __getitem__(self, index: int) -> EvalCase: ...

    @overload
    def __getitem__(self, index: slice) -> list[EvalCase]: ...

    def __getitem__(self, index: Union[int, slice]) -> Union[EvalCase, list[EvalCase]]:
        if isinstance(index, slice):
            return [self._case(*session) for session in self._sessions[index]]
        return self._case(*self._sessions[index])

    def __iter__(self) -> Iterator[EvalCase]:
        return (self._case(*session) for session in self._sessions)

    def _case(self, case_id: str, turns: Sequence[Invocation]) -> EvalCase:
        expected = self._as_expected
        return EvalCase(eval_id=case_id, conversation=[_expected(t) if expected else t for t in turns])


def _refuse(path: Path, problems: Sequence[str]) -> None:
    if problems:
        shown = "\n  ".join(problems[:_SHOWN]) + (
            f"\n  ... and {len(problems) - _SHOWN} more" * (len(problems) > _SHOWN)
        )
        raise DataError(
            f"the trace lacks what an eval set must hold (`agenteval lint-trace {path}` lists it all):\n  "
            f"{shown}\nFix: record the agent again with {CAPTURE_SETTING}",
            source=str(path),
        )


def _sessions(path: Path) -> list[tuple[str, Sequence[Invocation]]]:
    """Every session of the trace as ``(case id, turns)``."""
    with gc_paused():
        turns, empty = read_turns(path)
    problems = [f"trace {trace_id}: {f.code}" for trace_id, f in empty]
    _refuse(
        path, problems + [f"session {t.session_id}: {f.code}: {f.message}" for t in turns for f in t.findings]
    )
    if not turns:
        raise DataError("the trace holds no turn of an agent; nothing to import", source=str(path))
    found = []
    seen: dict[str, str] = {}
    for session_id, session in sessions_of(turns).items():
        case_id = _case_id(session_id, session)
        if case_id in seen:
            raise DataError(
                f"sessions {seen[case_id]!r} and {session_id!r} both carry agenteval.case_id {case_id!r}; "
                "one eval set holds a case once. Fix: import each run's trace on its own",
                source=str(path),
            )
        seen[case_id] = session_id
        found.append((case_id, Conversation([t.packed for t in session])))
    return found


def _case_id(session_id: str, session: Sequence[Turn]) -> str:
    """A session's case id: its ``agenteval.case_id``, else its session id."""
    return next((t.case_id for t in session if t.case_id), None) or session_id


_Sessions = tuple[dict[str, list[Turn]], list[str]]
#: The last file ``_read_sessions`` read: its content's key (``_identity``) and what it found. A
#: viewer lists a trace's sessions, then starts a case from one of them: the second read of
#: the same, unchanged file is this (a large trace takes seconds to read; its turns are kept
#: packed, ``_packed``).
_last_read: Optional[tuple[tuple[Any, ...], _Sessions]] = None
_last_read_lock = threading.Lock()


def _identity(path: Path) -> tuple[Any, ...]:
    """The file's content as a key: its size and sha256 (a file rewritten within the file
    system's timestamp granularity keeps its times; hashing costs a small part of a read:
    about 0.3 s for 374 MB, against 8 s to read the traces)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
        return (os.fstat(handle.fileno()).st_size, digest.digest())


def _read_sessions(path: Path) -> _Sessions:
    """Every session's turns, by session id, and the trace-level findings (traces with no turn);
    the last file's answer again while the file is unchanged (``_last_read``). The answer is
    shared: its callers only read it."""
    global _last_read
    try:
        identity: Optional[tuple[Any, ...]] = _identity(path)
    except OSError:
        identity = None  # read_turns says what is wrong with the file
    with _last_read_lock:
        if identity is not None and _last_read is not None and _last_read[0] == identity:
            return _last_read[1]
    with gc_paused():
        turns, empty = read_turns(path)
    found = sessions_of(turns), [f"trace {trace_id}: {f.code}: {f.message}" for trace_id, f in empty]
    if identity is not None:
        with _last_read_lock:
            _last_read = (identity, found)
    return found


def _session_findings(session: Sequence[Turn]) -> list[str]:
    return [f"turn {n}: {f.code}: {f.message}" for n, t in enumerate(session, start=1) for f in t.findings]


def trace_sessions(path: Path) -> dict[str, Any]:
    """The sessions of the trace at ``path``, in the order the file gives them: ``{"sessions":
    [{"session_id", "case_id", "first_user_text", "turns", "findings"}], "notes"}``. A session
    with ``findings`` (what its turns lack, as ``lint-trace`` says it) cannot be imported
    (``session_case`` refuses it); ``notes`` are the trace-level findings (a trace with no
    turn of an agent). ``DataError`` for a file that cannot be read."""
    sessions, notes = _read_sessions(path)
    return {
        "sessions": [
            {
                "session_id": session_id,
                "case_id": _case_id(session_id, session),
                "first_user_text": session[0].user_text,
                "turns": len(session),
                "findings": _session_findings(session),
            }
            for session_id, session in sessions.items()
        ],
        "notes": notes,
    }


def session_case(path: Path, session_id: str, *, as_expected: bool = True) -> EvalCase:
    """The case of session ``session_id`` of the trace at ``path``, exactly as ``import-trace``
    (``--as-expected`` when ``as_expected``) writes it; a ``DataError`` when the file holds no
    such session or the session lacks content (its findings listed)."""
    sessions, _ = _read_sessions(path)
    session = sessions.get(session_id)
    if session is None:
        found = ", ".join(sorted(sessions)[:_SHOWN]) or "(none)"
        raise DataError(
            f"the trace holds no session {session_id!r}; sessions found: {found}", source=str(path)
        )
    _refuse(path, [f"session {session_id}: {finding}" for finding in _session_findings(session)])
    case_id = _case_id(session_id, session)
    return _Cases([(case_id, Conversation([t.packed for t in session]))], as_expected=as_expected)[0]


def _expected(turn: Invocation) -> Invocation:
    """A recorded turn as a reference: what the agent said and called, none of the run's measurements."""
    texts = []
    events = getattr(turn.intermediate_data, "invocation_events", ())
    for event in events:
        parts = (
            [Part(text=p.text) for p in (event.content.parts or ()) if p.text and not p.thought]
            if event.content
            else []
        )
        if parts:
            texts.append((event.author, parts))
    data = IntermediateData(
        tool_uses=turn.tool_calls(), tool_responses=turn.tool_responses(), intermediate_responses=texts
    )
    return Invocation(
        invocation_id=turn.invocation_id,
        user_content=turn.user_content,
        final_response=turn.final_response,
        intermediate_data=data,
        creation_timestamp=turn.creation_timestamp,
    )
