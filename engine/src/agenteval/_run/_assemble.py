"""One place that assembles a run: a request → settings → plan → ``EvalRun``.

``agenteval run``, ``agenteval.evaluate*``, the pytest plugin and the viewer's runs all
call ``assemble`` (then ``AssembledRun.open``), so the same inputs give the same plan, the
same settings (``merge_settings``: default, then the config's ``statistics`` block, then
the caller's option) and the same recorded manifest, whoever asked. ``run_command`` spells
a request as the ``agenteval run`` command that runs it again.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from .._agents import Agent, ProcessIsolatedAgent
from .._agents._resolve import resolve_agent
from .._judging import JudgeCache, JudgeService
from .._loading import EvalConfig
from .._plugins import KINDS, PluginFinder
from .._registry import Registry
from ..models import EvalSet
from ._evalrun import EvalRun
from ._executor import EXECUTORS_GROUP, Executor, ExecutorContext
from ._plan import Plan
from ._planners import as_config, plan_eval_sets, plan_paths, preflight_judges
from ._progress import Progress
from ._session import open_run
from ._settings import RunOptions, RunSettings, merge_settings
from ._shards import parse_shard, shard_plan

__all__ = ["AssembledRun", "RunRequest", "assemble", "run_command"]


@dataclass(frozen=True)
class RunRequest:
    """What to run, as a caller gives it.

    The cases come from ``paths`` (what ``agenteval run PATH...`` takes: files, folders,
    ``FILE:CASE,CASE``) or from ``eval_sets`` (``EvalSet`` objects or files, as
    ``evaluate``). Their turns come from ``agent`` (an ``--agent`` target or an ``Agent``),
    from ``actual`` (``--actual`` files or run folders) or, with ``eval_sets``, from
    ``actual_turns`` (an ``EvalSet``, its path, or ``{eval_id: [Invocation]}``).

    ``config`` (or the file ``config_path``) applies to every eval file; without either,
    each file in ``paths`` uses the ``test_config.json`` beside it, else ADK's defaults
    (``eval_sets``: ADK's defaults). ``criteria_names`` keeps only those criteria, with
    their configured thresholds and params."""

    paths: tuple[str, ...] = ()
    eval_sets: tuple[Union[EvalSet, str, Path], ...] = ()
    actual: tuple[Union[str, Path], ...] = ()
    #: The data format of every ``actual`` file (``--format-in``); ``None``: by content.
    format_in: Optional[str] = None
    actual_turns: Any = None
    agent: Union[str, Agent, None] = None
    agent_type: Optional[str] = None
    criteria_names: Optional[tuple[str, ...]] = None
    config: Optional[EvalConfig] = None
    config_path: Optional[Path] = None
    #: Add ADK's informational efficiency criteria (``--efficiency``).
    efficiency: bool = False
    options: RunOptions = field(default_factory=RunOptions)


@dataclass
class AssembledRun:
    """A checked plan with its settings and judge service, ready to open as an ``EvalRun``."""

    request: RunRequest
    plan: Plan
    settings: RunSettings
    judge: Optional[JudgeService]
    #: The executor class (``--executor``) and its name, distribution and version.
    executor: type[Executor]
    executor_info: dict[str, str]

    def open(
        self,
        *,
        runs_dir: Optional[Path],
        resume: Optional[str] = None,
        argv: Optional[Sequence[str]] = None,
        run_id: Optional[str] = None,
        progress: Optional[Progress] = None,
        adk_history: Optional[Path] = None,
        keep_results: bool = True,
    ) -> EvalRun:
        """The ``EvalRun``, recording into a new run folder of ``runs_dir`` (``None``: no
        record) or continuing the one ``resume`` names (see ``open_run``)."""
        options = self.request.options
        extra = {} if options.concurrency is None else {"concurrency": options.concurrency}
        return open_run(
            self.plan,
            runs_dir=runs_dir,
            resume=resume,
            argv=argv,
            run_id=run_id,
            judge=self.judge,
            agent_concurrency=options.agent_concurrency,
            agent_timeout=options.agent_timeout,
            strict=options.strict,
            confidence=self.settings.confidence,
            fail_on_inconclusive=self.settings.fail_on_inconclusive,
            set_verdict=self.settings.set_verdict,
            progress=progress,
            adk_history=adk_history,
            keep_results=keep_results,
            executor=self.executor(),
            executor_info=self.executor_info,
            context=ExecutorContext(self.plan, self.request),
            **extra,
        )


def assemble(
    request: RunRequest,
    *,
    registry: Optional[Registry] = None,
    judge: Optional[JudgeService] = None,
    on_warning: Optional[Callable[[str], None]] = None,
) -> AssembledRun:
    """Load and check everything ``request`` needs, before any work; ``AgentEvalError``
    (``ConfigError``, ``DataError``, ``PluginLoadError``) names the first problem.

    ``judge`` is the caller's judge service (default: one made from the options, warning
    through ``on_warning``); the settings fill in the budget and sampling it leaves open."""
    options = request.options
    if judge is not None:
        options = dataclasses.replace(
            options,
            judge_budget=_given(options.judge_budget, judge.budget),
            max_judge_tokens=_given(options.max_judge_tokens, judge.max_tokens),
            judge_sampling=_given(options.judge_sampling, judge.sampling),
            judge_rpm=_given(options.judge_rpm, judge.rates.requests_per_minute),
            judge_tpm=_given(options.judge_tpm, judge.rates.tokens_per_minute),
        )
    registry = registry or Registry.installed()
    if request.eval_sets:
        plan = plan_eval_sets(
            list(request.eval_sets),
            request.actual_turns,
            as_config(request.config),
            registry=registry,
            judge=None,
        )
        settings = merge_settings(options, plan.statistics, runs_agent=False)
        if judge is None and any(c.info.requires_judge for s in plan.sets for c in s.criteria):
            judge = _judge_service(options, on_warning)
        if judge is not None:
            preflight_judges([c for s in plan.sets for c in s.criteria], judge)
    else:
        agent, target = _agent(request)
        judge = judge or _judge_service(options, on_warning)
        plan = plan_paths(
            request.paths,
            request.actual,
            registry=registry,
            judge=judge,
            criteria_names=request.criteria_names,
            config_path=request.config_path,
            config=request.config,
            agent=agent,
            agent_target=target,
            num_runs=options.num_runs,
            efficiency=request.efficiency,
            run_budget=options.run_budget,
            format_in=request.format_in,
        )
        settings = merge_settings(options, plan.statistics, runs_agent=agent is not None)
    if options.shard is not None:
        index, count = parse_shard(options.shard)
        plan = shard_plan(plan, index, count, fail_on_inconclusive=settings.fail_on_inconclusive)
    if settings.judge_prices:
        plan = dataclasses.replace(plan, judge_prices=settings.judge_prices)
    if settings.calibration is not None:
        plan = _calibrated(plan, settings.calibration, settings.min_kappa)
    executor, executor_info = _executor(options.executor)
    if judge is not None:
        judge.budget = settings.judge_budget
        judge.max_tokens = settings.max_judge_tokens
        judge.sampling = settings.judge_sampling
        judge.rates = settings.judge_rates
    return AssembledRun(
        request=request,
        plan=plan,
        settings=settings,
        judge=judge,
        executor=executor,
        executor_info=executor_info,
    )


def _calibrated(plan: Plan, cards_file: Path, min_kappa: Optional[float]) -> Plan:
    """``plan`` with each criterion's calibration gate (``agenteval.calibration.gate_for``)
    recorded in its entry; ``ConfigError`` when the cards cannot be read."""
    from ..calibration import gate_for, read_cards_file

    cards = read_cards_file(cards_file)
    sets = tuple(
        dataclasses.replace(
            planned,
            entries=tuple(
                entry.model_copy(update={"calibration": gate_for(entry, cards, cards_file, min_kappa)})
                for entry in planned.entries
            ),
        )
        for planned in plan.sets
    )
    return dataclasses.replace(plan, sets=sets)


@functools.lru_cache(maxsize=1)
def _executors() -> PluginFinder:
    """The installed executors, discovered once per process (as ``Registry.installed``)."""
    return PluginFinder(KINDS[EXECUTORS_GROUP])


def _executor(name: str) -> tuple[type[Executor], dict[str, str]]:
    """The executor plugin ``name`` and what the manifest records of it (``PluginLoadError``
    names an unknown or broken one, with the installed executors)."""
    loaded = _executors().load_many([name])[name]
    return loaded.obj, {"name": name, "distribution": loaded.ref.distribution, "version": loaded.ref.version}


def _given(option: Any, held: Any) -> Any:
    return option if option is not None else held


def _agent(request: RunRequest) -> tuple[Optional[Agent], Optional[str]]:
    """The adapter (isolated in worker processes when asked) and the target the manifest names."""
    if request.agent is None:
        return None, None
    if isinstance(request.agent, Agent):
        agent = request.agent
        target = f"{type(agent).__module__}:{type(agent).__qualname__}"
    else:
        target = request.agent
        agent = resolve_agent(target, request.agent_type)
    if request.options.agent_isolation == "process":
        agent = ProcessIsolatedAgent(agent)
    return agent, target


def _judge_service(options: RunOptions, on_warning: Optional[Callable[[str], None]]) -> JudgeService:
    return JudgeService(
        concurrency=options.judge_concurrency,
        cache=None if options.cache_dir is None else JudgeCache(options.cache_dir),
        on_warning=on_warning,
        budget=options.judge_budget,
        max_tokens=options.max_judge_tokens,
        sampling=options.judge_sampling,
    )


_DEFAULTS = RunOptions()

#: Each option ``agenteval run`` takes as a flag: the field and its flag (a flag with no
#: value when the field is a bool).
_FLAGS = (
    ("num_runs", "--num-runs"),
    ("run_budget", "--run-budget"),
    ("confidence", "--confidence"),
    ("fail_on_inconclusive", "--fail-on-inconclusive"),
    ("judge_budget", "--judge-budget"),
    ("max_judge_tokens", "--max-judge-tokens"),
    ("judge_rpm", "--judge-rpm"),
    ("judge_tpm", "--judge-tpm"),
    ("judge_sampling", "--judge-sampling"),
    ("set_verdict", "--set-verdict"),
    ("calibration", "--calibration"),
    ("min_kappa", "--min-kappa"),
    ("concurrency", "--concurrency"),
    ("judge_concurrency", "--judge-concurrency"),
    ("agent_concurrency", "--agent-concurrency"),
    ("agent_timeout", "--agent-timeout"),
    ("agent_isolation", "--agent-isolation"),
    ("strict", "--raise-errors"),
    ("executor", "--executor"),
    ("shard", "--shard"),
)


def run_command(request: RunRequest) -> list[str]:
    """The ``agenteval run`` argv that runs ``request`` again: its paths, inputs and every
    option that differs from the default. ``ValueError`` for what a command line cannot
    carry (an ``Agent`` or ``EvalSet`` object, an in-memory config: write it to a file
    and give ``config_path``)."""
    if request.eval_sets or request.actual_turns is not None:
        raise ValueError("eval sets given as objects have no command line; give paths")
    if request.config is not None:
        raise ValueError("an in-memory config has no command line; write it to a file (config_path)")
    if request.agent is not None and not isinstance(request.agent, str):
        raise ValueError("an Agent object has no command line; give its --agent target")
    argv = ["agenteval", "run", *request.paths]
    for path in request.actual:
        argv += ["--actual", str(path)]
    if request.format_in is not None:
        argv += ["--format-in", request.format_in]
    if request.agent is not None:
        argv += ["--agent", request.agent]
    if request.agent_type is not None:
        argv += ["--agent-type", request.agent_type]
    if request.criteria_names:
        argv += ["--criteria", ",".join(request.criteria_names)]
    if request.config_path is not None:
        argv += ["--config", str(request.config_path)]
    if request.efficiency:
        argv.append("--efficiency")
    options = request.options
    for name, flag in _FLAGS:
        value = getattr(options, name)
        if value is None or value == getattr(_DEFAULTS, name) or value is False:
            continue
        argv += [flag] if value is True else [flag, str(value)]
    if not options.statistics:
        argv.append("--no-stats")
    if options.cache_dir is None:
        argv.append("--no-cache")
    elif Path(options.cache_dir) != Path(_DEFAULTS.cache_dir or ""):
        argv += ["--cache-dir", str(options.cache_dir)]
    return argv
