"""The ``otel`` data format: an OTLP/JSON trace file as the actual turns of eval cases.

Sessions are matched to the run's selected cases by the first rule that applies:

1. a span of the session carries ``agenteval.case_id`` equal to the case's ``eval_id``;
2. the session id (``gen_ai.conversation.id``, or ADK's ``gcp.vertex.agent.session_id``)
   equals the ``eval_id``;
3. the session's first user text equals the case's first user message (its first
   invocation's ``user_content``, or a scenario's ``starting_prompt``), spaces trimmed.

Sessions that match no selected case are ignored (one file may hold many apps' sessions);
a selected case with no session, or with two, is a ``DataError`` listing them.

Each case's ``conversation`` is a ``Conversation``: its turns are checked when the file is read
and built as ``Invocation`` models only when the case's run reads them (the formats contract
allows any sequence there), so reading 10k traces does not hold 10k turns of models.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Optional

from agenteval.errors import DataError
from agenteval.models import EvalCase, EvalSet
from agenteval.plugins import FormatReader, gc_paused

from ._otlp import Span, read_spans, sniff
from ._packed import Conversation
from ._select import read_turns
from ._turns import CAPTURE_SETTING, Turn

__all__ = ["OtelReader", "sessions_of"]


def sessions_of(turns: Sequence[Turn]) -> dict[str, list[Turn]]:
    """The turns of each session, by session id, each in start-time order."""
    sessions: dict[str, list[Turn]] = defaultdict(list)
    for turn in turns:
        sessions[turn.session_id].append(turn)
    return dict(sessions)


def _first_message(case: EvalCase) -> Optional[str]:
    if case.conversation:
        return case.conversation[0].user_content.text().strip()
    scenario = case.conversation_scenario
    return scenario.starting_prompt.strip() if scenario is not None else None


def _match(sessions: dict[str, list[Turn]], cases: Sequence[EvalCase]) -> dict[str, list[str]]:
    """The sessions of each case id (see the module docstring)."""
    ids = {case.eval_id for case in cases}
    by_text: dict[str, list[str]] = defaultdict(list)
    for case in cases:
        text = _first_message(case)
        if text:
            by_text[text].append(case.eval_id)
    matched: dict[str, list[str]] = defaultdict(list)
    for session_id, turns in sessions.items():
        case_id = next((t.case_id for t in turns if t.case_id), None)
        if case_id is not None:
            if case_id in ids:
                matched[case_id].append(session_id)
        elif session_id in ids:
            matched[session_id].append(session_id)
        else:
            for eval_id in by_text.get(turns[0].user_text.strip(), ()):
                matched[eval_id].append(session_id)
    return matched


@functools.lru_cache(maxsize=2)
def _spans_of(path: str, mtime_ns: int, size: int) -> list[Span]:
    """The spans of a file, read once while it is unchanged (a viewer asks for one case's
    turns at a time)."""
    return read_spans(Path(path))


class OtelReader(FormatReader):
    """OpenTelemetry traces (OTLP/JSON, OTLP JSONL, Tempo, Jaeger; OTLP logs) of GenAI and ADK spans."""

    description: ClassVar[str] = "OpenTelemetry traces (OTLP/JSON or JSONL, Tempo, Jaeger) of GenAI agents"

    @classmethod
    def claims(cls, head: bytes) -> bool:
        return sniff(head)

    def timeline(self, path: Path, invocation_ids: Sequence[str]) -> list[dict[str, Any]]:
        """Each turn's spans as a waterfall (``_timeline``)."""
        from ._timeline import timeline_of

        stat = path.stat()
        with gc_paused():
            return timeline_of(_spans_of(str(path), stat.st_mtime_ns, stat.st_size), invocation_ids)

    def recorded_sessions(self, path: Path) -> dict[str, Any]:
        """The sessions the trace holds, each with its case id, first user text, turn count and
        what it lacks (``_golden.trace_sessions``): what a viewer lists to start a case from."""
        from ._golden import trace_sessions

        return trace_sessions(path)

    def session_case(self, path: Path, session_id: str, *, as_expected: bool = True) -> EvalCase:
        """One session as the case ``import-trace`` (``--as-expected``) writes for it
        (``_golden.session_case``); ``DataError`` with its findings when it lacks content."""
        from ._golden import session_case

        return session_case(path, session_id, as_expected=as_expected)

    def read_actual(self, path: Path, cases: Sequence[EvalCase]) -> EvalSet:
        """The selected cases' sessions; only the traces they may be in are kept (``_select``)."""
        with gc_paused():
            return self._read_actual(path, cases)

    def _read_actual(self, path: Path, cases: Sequence[EvalCase]) -> EvalSet:
        where = str(path)
        texts = {text for text in map(_first_message, cases) if text}
        turns, _ = read_turns(path, {case.eval_id for case in cases}, texts)
        sessions = sessions_of(turns)
        matched = _match(sessions, cases)
        missing = [case.eval_id for case in cases if case.eval_id not in matched]
        if missing:  # the message lists the sessions of the whole file
            sessions = sessions_of(read_turns(path)[0])
            found = ", ".join(sorted(sessions)[:10]) or "(none)"
            raise DataError(
                f"no session in this trace for case(s) {', '.join(map(repr, missing))}. A session matches "
                "a case when one of its spans has agenteval.case_id = the eval_id, else when its session id "
                "(gen_ai.conversation.id) is the eval_id, else when its first user message is the case's. "
                f"Sessions found: {found}. Fix: set agenteval.case_id on the agent's spans, or select "
                "only the cases this trace holds (FILE:CASE_ID); user text is recorded only with "
                f"{CAPTURE_SETTING}",
                source=where,
            )
        twice = {case_id: ids for case_id, ids in matched.items() if len(ids) > 1}
        if twice:
            detail = "; ".join(f"{case_id!r}: {', '.join(ids)}" for case_id, ids in sorted(twice.items()))
            raise DataError(
                f"more than one session matches a case ({detail}). One --actual file is one run: give each "
                "run's trace its own file, or set agenteval.case_id on the spans",
                source=where,
            )
        for case_id, ids in sorted(matched.items()):
            for number, turn in enumerate(sessions[ids[0]], start=1):
                self.warnings.extend(
                    f"case {case_id!r} turn {number}: {f.code}: {f.message}" for f in turn.findings
                )
        if self.warnings:
            self.warnings.append(
                "criteria that read what a turn lacks are NOT_EVALUATED for its case (reason code: the "
                f"finding's); record it with {CAPTURE_SETTING}"
            )
        # each case's turns stay packed until its run reads them (``Conversation``)
        cases_out = [
            EvalCase.model_construct(
                eval_id=case_id, conversation=Conversation([t.packed for t in sessions[ids[0]]])
            )
            for case_id, ids in matched.items()
        ]
        # constructed, not validated: a validation would run the cases' checks, which list (and
        # so build) every turn; these cases hold one conversation each, no rubric, no context turn
        return EvalSet.model_construct(
            eval_set_id="otel_trace",
            name=f"actual invocations read from the trace {path.name}",
            eval_cases=cases_out,
        )
