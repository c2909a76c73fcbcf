"""The run pipeline: one owner (``EvalRun``) for plan → acquire → score → record.

See ``docs/architecture.md``.
"""

from ._evalrun import DEFAULT_CONCURRENCY, SIGNAL_EXIT_CODES, EvalRun
from ._plan import AGENT_ERROR_KEY, CriteriaSpec, Plan, PlannedSet, as_config, plan_eval_sets, plan_paths
from ._progress import PlainProgress, Progress, RichProgress, SilentProgress, progress_for
from ._scoring import context_for

__all__ = [
    "AGENT_ERROR_KEY",
    "DEFAULT_CONCURRENCY",
    "SIGNAL_EXIT_CODES",
    "CriteriaSpec",
    "EvalRun",
    "Plan",
    "PlannedSet",
    "PlainProgress",
    "Progress",
    "RichProgress",
    "SilentProgress",
    "as_config",
    "context_for",
    "plan_eval_sets",
    "plan_paths",
    "progress_for",
]
