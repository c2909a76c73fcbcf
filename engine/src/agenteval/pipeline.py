"""The run pipeline, public, for tools that embed agenteval and need the run itself: its id
and folder before it ends, its progress, a run they can stop (the viewer's eval authoring
does). ``agenteval.evaluate*`` cover the common case and call the same pieces.

* ``assemble(RunRequest(paths=..., agent=..., options=RunOptions(...)))``: what
  ``agenteval run``, ``agenteval.evaluate*``, the pytest plugin and the viewer call: the
  settings merged (default, then the config's ``statistics`` block, then the options) and
  the plan, as an ``AssembledRun`` whose ``open(runs_dir=...)`` is the ``EvalRun``;
  ``run_command(request)`` is the ``agenteval run`` argv that runs the request again;
* ``resolve_agent(target, agent_type=None)``: the adapter for an ``--agent`` target;
* ``plan_paths(paths, actual, *, registry, judge, criteria_names, config_path, agent, ...)``:
  load and check everything before any work (``agenteval.ConfigError`` / ``DataError`` /
  ``agenteval.errors.PluginLoadError`` name the problem; nothing has run);
* ``open_run(plan, *, runs_dir, resume=None, **options)``: the ``EvalRun`` that owns the
  stages, recording into a new run folder of ``runs_dir`` (``None``: none);
* ``EvalRun.execute()`` (a coroutine): acquire → score → record every case × run, returning
  the ``RunResult``; ``EvalRun.run_id`` and ``EvalRun.writer.folder`` are known from the start.

See ``docs/embedding.md`` and ``docs/architecture.md``.
"""

from ._run import AssembledRun, EvalRun, Plan, RunOptions, RunRequest, assemble, plan_paths, run_command
from ._run._executor import Executor, ExecutorContext, LocalExecutor, UnitRunner, WorkUnit  # noqa: F401
from ._run._session import open_run
from .agents._resolve import resolve_agent

__all__ = [
    "AssembledRun",
    "EvalRun",
    "Plan",
    "RunOptions",
    "RunRequest",
    "assemble",
    "open_run",
    "plan_paths",
    "resolve_agent",
    "run_command",
]
