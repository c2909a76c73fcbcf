"""What a report shows of one case, read one case at a time: its combined result, the eval
set it belongs to, the turns expected and what the agent did in its first run.

Both sources a report can have give the same ``CaseView`` stream: a recorded run folder
(``RecordedRun``: one record in memory at a time, so a 100k-case run renders in bounded
memory) and an in-memory ``RunResult`` (the embedding API, or a run with nothing recorded).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Optional, Union

from .._results import AgentRunRecord, CaseResult, PluginInfo, RunResult, Status
from ..models import Invocation
from ..runs import CaseRecord, EvalSetEntry, RecordedRun

__all__ = ["CaseView", "Listed", "case_briefs", "case_results", "case_view", "case_views", "scored_cases"]


@dataclass(frozen=True)
class CaseView:
    """One case as a report shows it.

    Attributes:
        set_index: the eval set's position in the run.
        eval_set_id: the eval set's id; ``source`` its file, when known.
        case: the case's result (combined over its runs).
        actual: what the agent did in the first run with turns (empty when it has none).
        expected: the expected turns (``None`` for a conversation scenario, or unknown).
        agent_failure: the first run in which the agent itself failed, when one did.
        trajectory_criteria: the criteria whose info declares ``shows_trajectory``: their
            evidence is the tool calls (from the manifest for a recorded run; for a result
            in memory, from the evaluator classes the run imported).
    """

    set_index: int
    eval_set_id: str
    source: Optional[str]
    case: CaseResult
    actual: Sequence[Invocation] = ()
    expected: Optional[Sequence[Invocation]] = None
    agent_failure: Optional[AgentRunRecord] = None
    trajectory_criteria: frozenset[str] = frozenset()


def case_views(source: Union[RecordedRun, RunResult]) -> Iterator[CaseView]:
    """Every case of ``source`` in run order."""
    if isinstance(source, RecordedRun):
        yield from _from_folder(source)
    else:
        yield from _from_result(source)


def _from_folder(run: RecordedRun) -> Iterator[CaseView]:
    pending = run.in_progress
    for entry, case_id, records in run.case_records():
        yield _view(run, entry, case_id, records, pending)


def case_results(run: RecordedRun) -> Iterator[CaseResult]:
    """Every case's result in run order (``case_views``' ``case``): ``scored_cases``'."""
    for _, case in scored_cases(run):
        yield case


def scored_cases(run: RecordedRun) -> Iterator[tuple[EvalSetEntry, CaseResult]]:
    """Every case's eval set and result in run order, each record read only as far as its
    result needs (``RecordedRun.case_records(scored=True)``: no expected turns; the actual
    ones only with several runs, or read again in full for an agent's one run, whose result
    keeps them). About a seventh of the parse for a run of recorded turns: what the JSON
    document and ``cases.jsonl`` of a 100k-case run read."""
    pending = run.in_progress
    one = run.manifest.num_runs == 1
    for entry, case_id, records in run.case_records(scored=True):
        first = records[0] if one and records else None
        if first is not None and first.origin == "agent":
            records = [run.record((entry.index, case_id, 1))]
        yield entry, run.case_result(entry, case_id, records, pending=pending)


def _view(
    run: RecordedRun,
    entry: EvalSetEntry,
    case_id: str,
    records: Sequence[Optional[CaseRecord]],
    pending: bool,
) -> CaseView:
    case = run.case_result(entry, case_id, records, pending=pending)
    present = [r for r in records if r is not None]
    runs = [r.actual for r in present if r.actual is not None]
    with_turns = next((a for a in runs if a.invocations), None)
    return CaseView(
        set_index=entry.index,
        eval_set_id=entry.eval_set_id,
        source=entry.path,
        case=case,
        actual=with_turns.invocations if with_turns is not None else (),
        expected=present[0].expected if present else None,
        agent_failure=next((a for a in runs if a.error is not None), None),
        trajectory_criteria=frozenset(c.name for c in entry.criteria if c.shows_trajectory),
    )


def case_view(run: RecordedRun, entry: EvalSetEntry, case_id: str, pending: bool) -> CaseView:
    """One case of a run read from its records, one per run (what ``case_views`` gives for
    it)."""
    if run.manifest.num_runs == 1:
        return _view(run, entry, case_id, [run.record((entry.index, case_id, 1))], pending)
    return _view(run, entry, case_id, run.case_runs(entry, case_id), pending)


def case_outcome(run: RecordedRun, entry: EvalSetEntry, case_id: str, pending: bool) -> CaseView:
    """One case as far as its status and criteria, its records read only as far as they
    need (``case_runs(scored=True)``): ``actual`` is empty and ``expected`` ``None``; the
    result has no ``agent_runs`` but an agent's several runs (their turns decide whether
    the outputs were identical). What the one-line listing of a passing case shows, at a
    fraction of the parse."""
    if run.manifest.num_runs == 1:
        records = [run.record((entry.index, case_id, 1), scored=True)]
    else:
        records = run.case_runs(entry, case_id, scored=True)
    return CaseView(
        set_index=entry.index,
        eval_set_id=entry.eval_set_id,
        source=entry.path,
        case=run.case_result(entry, case_id, records, pending=pending),
    )


class Listed(NamedTuple):
    """What the table decides on for a case before it reads it (from its ``CaseBrief``)."""

    entry: EvalSetEntry
    case_id: str
    status: Status
    inconclusive: int
    unreached: bool


def case_briefs(run: RecordedRun) -> Iterator[Listed]:
    """Every planned case of a run, in plan order, as its listing decides on it
    (``RecordedRun.case_listing``: from the run's ``scores.jsonl``, its index or the briefs
    it wrote as each case finished; no record read when those cover every case)."""
    return map(Listed._make, run.case_listing())


def _declares_trajectory(plugin: PluginInfo) -> bool:
    """``shows_trajectory`` of the evaluator class ``plugin.entry_point`` names, when the
    run already imported it (a report never imports a plugin)."""
    module_name, _, attribute = plugin.entry_point.partition(":")
    module = sys.modules.get(module_name)
    info = getattr(getattr(module, attribute, None), "info", None) if attribute else None
    return bool(getattr(info, "shows_trajectory", False))


def _from_result(result: RunResult) -> Iterator[CaseView]:
    known: dict[tuple[str, str], bool] = {}
    for index, eval_set in enumerate(result.eval_sets):
        for case in eval_set.cases:
            for r in case.criteria:
                if (r.criterion, r.plugin.entry_point) not in known:
                    known[(r.criterion, r.plugin.entry_point)] = _declares_trajectory(r.plugin)
            trajectory = frozenset(
                r.criterion for r in case.criteria if known[(r.criterion, r.plugin.entry_point)]
            )
            with_turns = next((a for a in case.agent_runs if a.invocations), None)
            yield CaseView(
                set_index=index,
                eval_set_id=eval_set.eval_set_id,
                source=eval_set.source,
                case=case,
                actual=with_turns.invocations if with_turns is not None else (),
                agent_failure=next((a for a in case.agent_runs if a.error is not None), None),
                trajectory_criteria=trajectory,
            )
