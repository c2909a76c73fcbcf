"""What a report shows of one case, read one case at a time: its combined result, the eval
set it belongs to, the turns expected and what the agent did in its first run.

Both sources a report can have give the same ``CaseView`` stream: a recorded run folder
(``RecordedRun``: one record in memory at a time, so a 100k-case run renders in bounded
memory) and an in-memory ``RunResult`` (the embedding API, or a run with nothing recorded).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Optional, Union

from ..models import Invocation
from ..results import AgentRunRecord, CaseResult, RunResult
from ..runs import RecordedRun

__all__ = ["CaseView", "case_views"]


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
    """

    set_index: int
    eval_set_id: str
    source: Optional[str]
    case: CaseResult
    actual: Sequence[Invocation] = ()
    expected: Optional[Sequence[Invocation]] = None
    agent_failure: Optional[AgentRunRecord] = None


def case_views(source: Union[RecordedRun, RunResult]) -> Iterator[CaseView]:
    """Every case of ``source`` in run order."""
    if isinstance(source, RecordedRun):
        yield from _from_folder(source)
    else:
        yield from _from_result(source)


def _from_folder(run: RecordedRun) -> Iterator[CaseView]:
    pending = run.in_progress
    for entry, case_id, records in run.case_records():
        case = run.case_result(entry, case_id, records, pending=pending)
        present = [r for r in records if r is not None]
        runs = [r.actual for r in present if r.actual is not None]
        with_turns = next((a for a in runs if a.invocations), None)
        yield CaseView(
            set_index=entry.index,
            eval_set_id=entry.eval_set_id,
            source=entry.path,
            case=case,
            actual=with_turns.invocations if with_turns is not None else (),
            expected=present[0].expected if present else None,
            agent_failure=next((a for a in runs if a.error is not None), None),
        )


def _from_result(result: RunResult) -> Iterator[CaseView]:
    for index, eval_set in enumerate(result.eval_sets):
        for case in eval_set.cases:
            with_turns = next((a for a in case.agent_runs if a.invocations), None)
            yield CaseView(
                set_index=index,
                eval_set_id=eval_set.eval_set_id,
                source=eval_set.source,
                case=case,
                actual=with_turns.invocations if with_turns is not None else (),
                agent_failure=next((a for a in case.agent_runs if a.error is not None), None),
            )
