"""The embedding API: evaluate eval cases against actual invocations, sync or async.

``evaluate`` / ``evaluate_async`` return the same ``RunResult`` the CLI prints. The CLI
goes through ``plan_from_paths``, which also finds a ``test_config.json`` beside each file.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Optional, Union

from ._registry import AGENTS_GROUP, ProviderRegistry, Registry
from ._resolve import ResolvedCriterion, resolve_criteria
from ._runner import DEFAULT_CONCURRENCY, AgentRun, Job, run_jobs, run_sync, start_preparing
from .agents import Agent, AgentFailure, prepare_user_simulators, run_agent
from .criterion import Criterion
from .errors import ConfigError, CriterionLoadError, DataError
from .judging import JudgeCache, JudgeService
from .loading import (
    EvalConfig,
    EvalTarget,
    LoadedEvalSet,
    config_from_data,
    expand_targets,
    load_config,
    read_eval_file,
)
from .loading._eval_files import check_unique_ids
from .models import EvalCase, EvalSet, Invocation
from .results import RunResult

__all__ = [
    "ActualSpec",
    "CriteriaSpec",
    "evaluate",
    "evaluate_agent",
    "evaluate_agent_async",
    "evaluate_async",
    "plan_from_paths",
]

CriteriaSpec = Union[None, EvalConfig, Mapping[str, Any], Sequence[Union[str, Criterion]]]
ActualSpec = Union[EvalSet, Mapping[str, Sequence[Invocation]], str, Path]


def _as_config(criteria: CriteriaSpec) -> EvalConfig:
    if criteria is None:
        return EvalConfig.default()
    if isinstance(criteria, EvalConfig):
        return criteria
    if isinstance(criteria, Mapping):
        return config_from_data({"criteria": dict(criteria)})
    items = [c if isinstance(c, Criterion) else Criterion(name=c) for c in criteria]
    return EvalConfig(criteria=items)


def _criteria_for(config: EvalConfig, names: Optional[Sequence[str]], registry: Registry) -> list[Criterion]:
    """``--criteria`` picks names; configured thresholds and params are kept."""
    chosen = list(config.criteria) if not names else [config.get(n) or Criterion(name=n) for n in names]
    for criterion in chosen:
        custom = config.custom_metrics.get(criterion.name)
        if custom is not None and criterion.name not in registry.names():
            target = (custom.get("code_config") or {}).get("name") if isinstance(custom, dict) else None
            msg = (
                f"criteria.{criterion.name} is an ADK custom metric (custom_metrics.{criterion.name}"
                f"{f' -> {target!r}' if target else ''}). agenteval loads every criterion from a "
                "plugin instead: wrap the function in an Evaluator and register it under the "
                "'agenteval.criteria' entry points (docs/writing-a-criterion.md)"
            )
            raise ConfigError(msg, source=str(config.source) if config.source else "<config>")
    return chosen


class _ActualIndex:
    """Finds a case's actual invocations among one or more actual eval sets."""

    def __init__(self, loaded: Sequence[LoadedEvalSet]) -> None:
        self._loaded = loaded

    def find(self, eval_set: EvalSet, case: EvalCase, where: str) -> list[Sequence[Invocation]]:
        """The case's actual conversations, one per file that holds it (each file is one
        run of the agent; files of the case's own eval set win over others)."""
        matches = [
            (item, item.eval_set.case(case.eval_id))
            for item in self._loaded
            if any(c.eval_id == case.eval_id for c in item.eval_set.eval_cases)
        ]
        same_set = [m for m in matches if m[0].eval_set.eval_set_id == eval_set.eval_set_id]
        matches = same_set or matches
        if not matches:
            files = ", ".join(str(item.source) for item in self._loaded)
            msg = (
                f"case {case.eval_id!r} has no actual invocations: no case with that eval_id in "
                f"{files}. Add it there (an eval set whose cases carry the same eval_ids), or "
                f"select only the cases you have, e.g. {where}:<case_id>"
            )
            raise DataError(msg, source=where)
        for item, actual_case in matches:
            if actual_case.conversation is None:
                msg = (
                    f"eval_cases[{case.eval_id!r}] holds a conversation scenario, "
                    "not the agent's actual conversation"
                )
                raise DataError(msg, source=str(item.source))
        return [actual_case.conversation for _, actual_case in matches]


def _select(loaded: LoadedEvalSet, target: EvalTarget) -> list[EvalCase]:
    cases = loaded.eval_set.eval_cases
    if target.case_ids is None:
        return list(cases)
    known = {c.eval_id for c in cases}
    unknown = [i for i in target.case_ids if i not in known]
    if unknown:
        msg = (
            f"no case with eval_id {', '.join(map(repr, unknown))} in this file; "
            f"its cases are: {', '.join(sorted(known)) or '(none)'}"
        )
        raise DataError(msg, source=str(target.path))
    return [c for c in cases if c.eval_id in target.case_ids]


def plan_from_paths(
    paths: Sequence[str],
    actual_paths: Sequence[Union[str, Path]],
    *,
    criteria_names: Optional[Sequence[str]] = None,
    config_path: Optional[Union[str, Path]] = None,
    registry: Optional[Registry] = None,
    judge: Optional[JudgeService] = None,
    agent: Optional[Agent] = None,
    config: Optional[EvalConfig] = None,
) -> tuple[list[Job], list[str]]:
    """Load everything a CLI run needs and resolve its criteria; raise before any work.

    ``config`` (or the file ``config_path``) applies to every eval file; without either,
    each file uses the ``test_config.json`` beside it, else ADK's defaults. When the same
    case is in several ``actual_paths`` files, each file is one run of the agent.
    Returns the jobs and the warnings gathered while loading.
    """
    registry = registry or Registry.installed()
    judge = judge or JudgeService()
    warnings: list[str] = []
    targets = expand_targets(list(paths))
    load_env_files(target.path.parent for target in targets)
    shared_config = config if config is not None else load_config(config_path) if config_path else None
    actual_sets = [read_eval_file(Path(p)) for p in actual_paths]
    for item in actual_sets:
        warnings.extend(item.warnings)
    index = _ActualIndex(actual_sets)
    configs: dict[Optional[Path], EvalConfig] = {}
    planned = []
    requests: list[tuple[Criterion, str]] = []
    for target in targets:
        loaded = read_eval_file(target.path)
        warnings.extend(loaded.warnings)
        cases = _select(loaded, target)
        config_file = None if shared_config is not None else target.beside_config()
        if shared_config is not None:
            config = shared_config
        elif config_file not in configs:
            config = configs[config_file] = load_config(config_file) if config_file else EvalConfig.default()
        else:
            config = configs[config_file]
        warnings.extend(config.warnings)
        source = str(config.source) if config.source else "default criteria"
        criteria = _criteria_for(config, criteria_names, registry)
        # With an agent, the actual invocations come from running it (``run_agent_for``).
        found = (
            {}
            if agent is not None
            else {case.eval_id: index.find(loaded.eval_set, case, str(target.path)) for case in cases}
        )
        requests.extend((c, source if config.get(c.name) else "--criteria") for c in criteria)
        planned.append((loaded, cases, _runs_from(found), config, len(criteria)))
    resolved = resolve_criteria(requests, registry, warnings)
    preflight_judges(resolved, judge)
    if agent is not None:
        agent.check_ready()
    jobs, position = [], 0
    for loaded, cases, runs, job_config, count in planned:
        criteria = resolved[position : position + count]
        position += count
        jobs.append(
            Job(
                loaded.eval_set,
                cases,
                runs[0].actual,
                criteria,
                str(loaded.source),
                more_runs=runs[1:],
                config=job_config,
            )
        )
    if agent is not None:
        # Conversation scenarios need a user simulator: load and check it before any work.
        groups = [(job.config.user_simulator if job.config else None, job.cases) for job in jobs]
        for job, factory in zip(jobs, prepare_user_simulators(groups, judge), strict=True):
            job.user_simulator = factory
    return jobs, list(dict.fromkeys(warnings))


def _runs_from(found: Mapping[str, Sequence[Sequence[Invocation]]]) -> list[AgentRun]:
    """Per-case lists of conversations (one per ``--actual`` file) as runs: run k holds
    each case's k-th conversation; a case with fewer files is missing from later runs."""
    count = max((len(conversations) for conversations in found.values()), default=1)
    runs = [AgentRun() for _ in range(count)]
    for eval_id, conversations in found.items():
        for run, conversation in zip(runs, conversations, strict=False):  # fewer files: later runs lack it
            run.actual[eval_id] = conversation
    return runs


def resolve_agent(
    target: str, agent_type: Optional[str] = None, adapters: Optional[ProviderRegistry] = None
) -> Agent:
    """The adapter for ``--agent TARGET``: the one named by ``agent_type``, else the first
    installed adapter that claims the target. ``ConfigError`` when none does."""
    adapters = adapters or ProviderRegistry(group=AGENTS_GROUP, kind="agent adapter")
    if agent_type is not None:
        return adapters.load(agent_type)(target)
    broken: list[str] = []
    for name in adapters.names():
        try:
            klass = adapters.load(name)
        except CriterionLoadError as exc:  # an adapter nobody named must not break the others
            broken.append(str(exc))
            continue
        if klass.claims(target):
            return klass(target)
    kinds = ", ".join(adapters.names()) or "none installed"
    msg = (
        f"--agent {target!r}: no agent adapter recognises it. A Python agent is "
        "'package.module:function', 'path/to/file.py:function' or a folder whose agent.py "
        f"defines respond(); name the adapter with --agent-type (installed: {kinds})"
    )
    if broken:
        msg += ". Adapters that could not be loaded: " + "; ".join(broken)
    raise ConfigError(msg)


async def run_agent_for(
    jobs: Sequence[Job],
    agent: Agent,
    *,
    concurrency: int,
    timeout: float,
    num_runs: int = 1,
    user_simulator: Optional[Callable[[Job], Any]] = None,
    judge: Optional[JudgeService] = None,
) -> None:
    """Run the agent ``num_runs`` times on every case of ``jobs`` and fill in their actual
    invocations (or the failures that replace them), one ``AgentRun`` per run.

    All runs of all cases share one concurrency bound. ``user_simulator(job)`` gives the
    simulator factory for a job's conversation scenarios (default: the one
    ``plan_from_paths`` prepared; ``None``: they are NOT_EVALUATED ``no_user_simulator``).
    ``judge`` is the service the simulators call through: it is closed at the end, so
    that scoring (in another event loop) can use it again.
    """
    if num_runs < 1:
        raise ConfigError(f"--num-runs must be at least 1, not {num_runs}")
    user_simulator = user_simulator or (lambda job: job.user_simulator)
    if judge is not None:
        judge.begin_run()  # the simulator's calls count towards this run
    start_preparing(jobs)  # the criteria's heavy setup overlaps with the agent's turns
    for job in jobs:
        job.agent_ran = True
        job.actual, job.failures = {}, {}
        job.more_runs = [AgentRun() for _ in range(num_runs - 1)]
    pairs = [(job, case) for job in jobs for case in job.cases]
    try:
        outcomes = await _run_cases(agent, pairs, num_runs, concurrency, timeout, user_simulator)
    finally:
        await agent.aclose()
        if judge is not None:
            await judge.aclose()
    runs = {id(job): job.runs() for job in jobs}  # run 1 shares job.actual / job.failures
    for run_index, run_outcomes in enumerate(outcomes):
        for (job, case), outcome in zip(pairs, run_outcomes, strict=True):
            run = runs[id(job)][run_index]
            if isinstance(outcome, AgentFailure):
                run.failures[case.eval_id] = outcome
            else:
                run.actual[case.eval_id] = outcome


async def _run_cases(
    agent: Agent,
    pairs: Sequence[tuple[Job, EvalCase]],
    num_runs: int,
    concurrency: int,
    timeout: float,
    user_simulator: Optional[Callable[[Job], Any]],
) -> list[list[Union[list[Invocation], AgentFailure]]]:
    """Each run's outcomes, in the order of ``pairs``; one shared bound for everything."""
    options: dict[str, Any] = {}
    if user_simulator is not None:
        per_job = {id(job): user_simulator(job) for job, _ in pairs}
        factories = {id(case): per_job[id(job)] for job, case in pairs}
        if any(factory is not None for factory in factories.values()):
            # A case whose job has no simulator gets None: it stays ``no_user_simulator``.
            options["user_simulator"] = lambda case: (factories.get(id(case)) or _no_simulator)(case)
    flat = await run_agent(
        agent,
        [case for _ in range(num_runs) for _, case in pairs],
        concurrency=concurrency,
        timeout=timeout,
        **options,
    )
    return [flat[i * len(pairs) : (i + 1) * len(pairs)] for i in range(num_runs)]


def _no_simulator(case: EvalCase) -> None:
    return None


def save_actual(jobs: Sequence[Job], path: Path) -> list[tuple[Path, int]]:
    """Write the actual invocations of ``jobs`` as eval sets that ``--actual`` accepts
    later: ``path`` itself for one run; for several runs one file per run
    (``NAME.run1.json``, ``NAME.run2.json``...), which ``--actual`` takes back together
    as runs. Cases the agent could not run are left out. Returns each file written with
    its number of cases."""
    job_runs = [(job, job.runs()) for job in jobs]
    runs = max((len(r) for _, r in job_runs), default=1)
    counts = Counter(case.eval_id for job in jobs for case in job.cases)
    duplicates = sorted(i for i, n in counts.items() if n > 1)
    if duplicates:
        shared = ", ".join(map(repr, duplicates))
        msg = f"cannot save one actual file for eval sets that share eval_ids: {shared}"
        raise DataError(msg, source=str(path))
    eval_set_id = (
        jobs[0].eval_set.eval_set_id if len({j.eval_set.eval_set_id for j in jobs}) == 1 else "actual"
    )
    written = []
    for run_index in range(runs):
        cases = [
            EvalCase(
                eval_id=case.eval_id,
                conversation=list(runs_of_job[run_index].actual[case.eval_id]),
                session_input=case.session_input,
            )
            for job, runs_of_job in job_runs
            for case in job.cases
            if run_index < len(runs_of_job) and case.eval_id in runs_of_job[run_index].actual
        ]
        name = "actual invocations recorded by agenteval" + (f" (run {run_index + 1})" if runs > 1 else "")
        eval_set = EvalSet(eval_set_id=eval_set_id, name=name, eval_cases=cases)
        target = path if runs == 1 else path.with_name(f"{_stem(path)}.run{run_index + 1}{path.suffix}")
        target.write_text(eval_set.to_json() + "\n", encoding="utf-8")
        written.append((target, len(cases)))
    return written


def _stem(path: Path) -> str:
    return path.name[: -len(path.suffix)] if path.suffix else path.name


def load_env_files(folders: Iterable[Path]) -> list[Path]:
    """Read ``.env`` files beside the eval files into the environment, as ``adk eval``
    does for an agent folder (judge keys, ``GOOGLE_CLOUD_PROJECT``...). Variables already
    set win; each folder is read once. Returns the files read."""
    from dotenv import load_dotenv

    read = []
    for folder in dict.fromkeys(Path(f).resolve() for f in folders):
        candidate = folder / ".env"
        if candidate.is_file():
            load_dotenv(candidate, override=False)
            read.append(candidate)
    return read


def preflight_judges(resolved: Sequence[ResolvedCriterion], judge: JudgeService) -> None:
    """Resolve and check every judge model the criteria will call, before any work."""
    specs = [spec for r in resolved if r.info.requires_judge for spec in r.evaluator.judge_models()]
    if specs:
        judge.preflight(specs)


def _actual_map(actual: ActualSpec) -> Mapping[str, Sequence[Invocation]]:
    if isinstance(actual, (str, Path)):
        actual = read_eval_file(Path(actual)).eval_set
    if isinstance(actual, EvalSet):
        scenarios = [c.eval_id for c in actual.eval_cases if c.conversation is None]
        if scenarios:
            msg = (
                f"actual case(s) {', '.join(map(repr, scenarios))} hold a conversation scenario, "
                "not the agent's actual conversation"
            )
            raise DataError(msg)
        return {c.eval_id: c.conversation for c in actual.eval_cases}
    return actual


async def evaluate_async(
    eval_sets: Union[EvalSet, str, Path, Sequence[Union[EvalSet, str, Path]]],
    actual: ActualSpec,
    criteria: CriteriaSpec = None,
    *,
    registry: Optional[Registry] = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    strict: bool = False,
    judge: Optional[JudgeService] = None,
) -> RunResult:
    """Score eval cases against the agent's actual invocations.

    Args:
        eval_sets: one or more ``EvalSet`` objects or eval-file paths (any ADK format).
        actual: the actual invocations: an ``EvalSet`` (or its path) whose cases carry the
            same ``eval_id`` s, or a mapping ``eval_id -> [Invocation, ...]``.
        criteria: ``None`` for ADK's defaults; a mapping like a config's ``criteria``
            (``{"response_match_score": 0.7, "tool_trajectory_avg_score": {"threshold": 1,
            "match_type": "IN_ORDER"}}``); a list of names or ``Criterion`` objects; or an
            ``EvalConfig``.
        registry: where criteria come from (default: installed entry points).
        concurrency: how many evaluations may run at once.
        strict: re-raise evaluator exceptions instead of recording ERRORED results.
        judge: the judge service for LLM-judge criteria (its concurrency limit and cache);
            default: 8 concurrent calls and the answer cache in ``.agenteval/``.

    Raises:
        AgentEvalError: bad data, config or criteria, before any evaluation starts.
    """
    registry = registry or Registry.installed()
    if isinstance(eval_sets, (EvalSet, str, Path)):
        eval_sets = [eval_sets]
    warnings: list[str] = []
    loaded = []
    for item in eval_sets:
        if isinstance(item, EvalSet):
            check_unique_ids(item, f"<eval set {item.eval_set_id!r}>")
            loaded.append(LoadedEvalSet(item, None, "evalset"))
        else:
            loaded.append(read_eval_file(Path(item)))
            warnings.extend(loaded[-1].warnings)
    config = _as_config(criteria)
    actual_map = _actual_map(actual)
    chosen = _criteria_for(config, None, registry)
    resolved = resolve_criteria([(c, "criteria") for c in chosen], registry, warnings)
    if judge is None and any(r.info.requires_judge for r in resolved):
        judge = JudgeService(cache=JudgeCache())
    if judge is not None:
        preflight_judges(resolved, judge)
    jobs = []
    for item in loaded:
        cases = list(item.eval_set.eval_cases)
        missing = [c.eval_id for c in cases if c.eval_id not in actual_map]
        if missing:
            raise DataError(f"no actual invocations for case(s) {', '.join(map(repr, missing))}")
        actual_cases = {c.eval_id: actual_map[c.eval_id] for c in cases}
        jobs.append(
            Job(item.eval_set, cases, actual_cases, resolved, str(item.source) if item.source else None)
        )
    return await run_jobs(
        jobs, concurrency=concurrency, strict=strict, warnings=[*warnings, *config.warnings], judge=judge
    )


def evaluate(
    eval_sets: Union[EvalSet, str, Path, Sequence[Union[EvalSet, str, Path]]],
    actual: ActualSpec,
    criteria: CriteriaSpec = None,
    *,
    registry: Optional[Registry] = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    strict: bool = False,
    judge: Optional[JudgeService] = None,
) -> RunResult:
    """Synchronous ``evaluate_async`` (not callable from inside a running event loop)."""
    _refuse_running_loop("evaluate")
    return run_sync(
        evaluate_async(
            eval_sets,
            actual,
            criteria,
            registry=registry,
            concurrency=concurrency,
            strict=strict,
            judge=judge,
        )
    )


async def evaluate_agent_async(
    agent: Union[str, Agent],
    eval_paths: Union[str, Path, Sequence[Union[str, Path]]],
    criteria: CriteriaSpec = None,
    *,
    num_runs: int = 1,
    agent_type: Optional[str] = None,
    agent_concurrency: int = 4,
    agent_timeout: float = 300.0,
    registry: Optional[Registry] = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    strict: bool = False,
    judge: Optional[JudgeService] = None,
) -> RunResult:
    """Run the agent under test on eval files and score what it did (ADK's
    ``AgentEvaluator.evaluate``, with the CLI's verdicts).

    Args:
        agent: an ``--agent`` target (``pkg.module:function``, ``path/agent.py:function``,
            an ADK agent folder or module, ``http://host/v1?model=m``...) or an ``Agent``.
        eval_paths: eval files (any ADK format), folders of them, or ``FILE:CASE,CASE``.
        criteria: as for ``evaluate``; ``None`` uses the ``test_config.json`` beside each
            file, else ADK's defaults.
        num_runs: how many times each case is run; verdicts use the mean score and each
            run's result is kept (``CriterionResult.runs``).
        agent_type: the adapter to use (default: the one that claims ``agent``).
        agent_concurrency / agent_timeout: cases run at once; seconds per turn.
        registry, concurrency, strict, judge: as for ``evaluate``.

    The result's cases carry what the agent did in each run (``CaseResult.agent_runs``).

    Raises:
        AgentEvalError: bad data, config, criteria or agent, before the agent runs.
    """
    if isinstance(eval_paths, (str, Path)):
        eval_paths = [eval_paths]
    adapter = agent if isinstance(agent, Agent) else resolve_agent(agent, agent_type)
    if judge is None:
        judge = JudgeService(cache=JudgeCache())
    jobs, warnings = plan_from_paths(
        [str(p) for p in eval_paths],
        [],
        config=None if criteria is None else _as_config(criteria),
        registry=registry,
        judge=judge,
        agent=adapter,
    )
    await run_agent_for(
        jobs, adapter, concurrency=agent_concurrency, timeout=agent_timeout, num_runs=num_runs, judge=judge
    )
    return await run_jobs(jobs, concurrency=concurrency, strict=strict, warnings=warnings, judge=judge)


def evaluate_agent(
    agent: Union[str, Agent],
    eval_paths: Union[str, Path, Sequence[Union[str, Path]]],
    criteria: CriteriaSpec = None,
    **options: Any,
) -> RunResult:
    """Synchronous ``evaluate_agent_async`` (not callable from inside a running event loop)."""
    _refuse_running_loop("evaluate_agent")
    return run_sync(evaluate_agent_async(agent, eval_paths, criteria, **options))


def _refuse_running_loop(name: str) -> None:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    # Checked first: asyncio.run would leave the coroutine un-awaited (a RuntimeWarning).
    raise RuntimeError(
        f"agenteval.{name}() cannot run inside a running event loop; "
        f"use 'await agenteval.{name}_async(...)' there"
    )
