"""An eval file that is its own ``--actual``: every case it selects carries the agent's
recorded turns (an Agent Platform dataset whose cases have ``responses``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Optional

from ..errors import AgentEvalError
from ._formats import _read_with, choose_format
from ._selection import expand_targets

__all__ = ["recorded_eval_file"]


def recorded_eval_file(arguments: Sequence[str]) -> Optional[Path]:
    """The one eval file ``arguments`` name (a file, a selection in it, or a folder holding
    only it) when its format holds eval cases and every selected case carries recorded turns;
    ``None`` otherwise: no such file, several files (each ``--actual`` file is a run), ADK's
    format, or a case without a recording. A file of such a format that cannot be read
    raises its ``AgentEvalError``: what is wrong with it, not that the run lacks ``--actual``."""
    try:
        targets = expand_targets(list(arguments))
        if len(targets) != 1:
            return None
        [target] = targets
        reader = choose_format(target.path)
    except AgentEvalError:  # the run says why, with the others
        return None
    if reader is None or not reader.eval_file_patterns:
        return None
    eval_set, _ = _read_with(reader, target.path, lambda r: r.read_eval_set(target.path))
    wanted = set(target.case_ids or (c.eval_id for c in eval_set.eval_cases))
    cases = [c for c in eval_set.eval_cases if c.eval_id in wanted]
    recorded, _ = _read_with(reader, target.path, lambda r: r.read_actual(target.path, cases))
    found = {c.eval_id for c in recorded.eval_cases if c.conversation}
    return target.path if cases and wanted <= found else None
