"""The run pipeline: one owner (``EvalRun``) for plan → acquire → score → record.

See ``docs/architecture.md``.
"""

from .._loading._eval_files import AGENT_ERROR_KEY
from ._actual import save_actual
from ._assemble import AssembledRun, RunRequest, assemble, run_command
from ._evalrun import DEFAULT_CONCURRENCY, SIGNAL_EXIT_CODES, EvalRun
from ._plan import Plan, PlannedSet
from ._planners import CriteriaSpec, as_config, plan_eval_sets, plan_paths
from ._progress import PlainProgress, Progress, RichProgress, SilentProgress, progress_for
from ._scoring import context_for
from ._settings import RunOptions, RunSettings, merge_settings
from ._sync import run_sync

__all__ = [
    "AGENT_ERROR_KEY",
    "AssembledRun",
    "DEFAULT_CONCURRENCY",
    "SIGNAL_EXIT_CODES",
    "CriteriaSpec",
    "EvalRun",
    "Plan",
    "PlannedSet",
    "PlainProgress",
    "Progress",
    "RichProgress",
    "RunOptions",
    "RunRequest",
    "RunSettings",
    "SilentProgress",
    "as_config",
    "assemble",
    "context_for",
    "merge_settings",
    "plan_eval_sets",
    "plan_paths",
    "progress_for",
    "run_command",
    "run_sync",
    "save_actual",
]
