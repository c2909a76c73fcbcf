"""``--save-actual``: what the agent did, written as eval sets that ``--actual`` reads back."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from .._jsonsafe import dump_model
from .._loading._eval_files import AGENT_ERROR_KEY
from .._results import RunResult
from ..errors import DataError
from ..models import EvalCase, EvalSet
from ._plan import Plan

__all__ = ["save_actual"]


def save_actual(result: RunResult, path: Path, plan: Optional[Plan] = None) -> list[tuple[Path, int]]:
    """Write what the agent did as eval sets that ``--actual`` accepts later: ``path``
    itself for one run; for several runs one file per run (``NAME.run1.json``...), which
    ``--actual`` takes back together as runs. A case the agent could not run is kept with
    its error (``agenteval_agent_error``), so re-scoring the file reports it again. With the
    run's ``plan``, each case keeps its ``session_input``. Returns each file written with its
    number of cases."""
    cases = [case for eval_set in result.eval_sets for case in eval_set.cases]
    seen: dict[str, int] = {}
    for case in cases:
        seen[case.eval_id] = seen.get(case.eval_id, 0) + 1
    duplicates = sorted(i for i, n in seen.items() if n > 1)
    if duplicates:
        shared = ", ".join(map(repr, duplicates))
        raise DataError(
            f"cannot save one actual file for eval sets that share eval_ids: {shared}", source=str(path)
        )
    sessions = {case.eval_id: case.session_input for s in (plan.sets if plan else ()) for case in s.cases}
    ids = {eval_set.eval_set_id for eval_set in result.eval_sets}
    eval_set_id = next(iter(ids)) if len(ids) == 1 else "actual"
    runs = max((len(case.agent_runs) for case in cases), default=1)
    written = []
    for run_index in range(runs):
        saved = []
        for case in cases:
            if run_index >= len(case.agent_runs):
                continue
            record = case.agent_runs[run_index]
            extra: dict[str, Any] = {}
            if record.error is not None:
                extra[AGENT_ERROR_KEY] = {
                    "code": record.error_code or "agent_error",
                    "message": record.error.message,
                }
            saved.append(
                EvalCase(
                    eval_id=case.eval_id,
                    conversation=list(record.invocations),
                    session_input=sessions.get(case.eval_id),
                    **extra,
                )
            )
        name = "actual invocations recorded by agenteval" + (f" (run {run_index + 1})" if runs > 1 else "")
        eval_set = EvalSet(eval_set_id=eval_set_id, name=name, eval_cases=saved)
        target = path if runs == 1 else path.with_name(f"{_stem(path)}.run{run_index + 1}{path.suffix}")
        target.write_text(dump_model(eval_set, indent=2, exclude_unset=True) + "\n", encoding="utf-8")
        written.append((target, len(saved)))
    return written


def _stem(path: Path) -> str:
    return path.name[: -len(path.suffix)] if path.suffix else path.name
