"""The embedding API: evaluate eval cases against actual invocations, sync or async.

``evaluate`` / ``evaluate_async`` return the same ``RunResult`` the CLI prints. The CLI
goes through ``plan_from_paths``, which also finds a ``test_config.json`` beside each file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Optional, Union

from ._registry import AGENTS_GROUP, ProviderRegistry, Registry
from ._resolve import ResolvedCriterion, resolve_criteria
from ._runner import DEFAULT_CONCURRENCY, Job, run_jobs, run_sync
from .agents import Agent, AgentFailure, run_agent
from .criterion import Criterion
from .errors import ConfigError, DataError
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

__all__ = ["evaluate", "evaluate_async", "plan_from_paths", "CriteriaSpec", "ActualSpec"]

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

    def find(self, eval_set: EvalSet, case: EvalCase, where: str) -> Sequence[Invocation]:
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
        if len(matches) > 1:
            files = ", ".join(str(m[0].source) for m in matches)
            raise DataError(
                f"case {case.eval_id!r} has actual invocations in several files ({files})", source=where
            )
        item, actual_case = matches[0]
        if actual_case.conversation is None:
            msg = (
                f"eval_cases[{case.eval_id!r}] holds a conversation scenario, "
                "not the agent's actual conversation"
            )
            raise DataError(msg, source=str(item.source))
        return actual_case.conversation


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
) -> tuple[list[Job], list[str]]:
    """Load everything a CLI run needs and resolve its criteria; raise before any work.

    Returns the jobs and the warnings gathered while loading.
    """
    registry = registry or Registry.installed()
    warnings: list[str] = []
    targets = expand_targets(list(paths))
    load_env_files(target.path.parent for target in targets)
    shared_config = load_config(config_path) if config_path is not None else None
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
        actual = (
            {}
            if agent is not None
            else {case.eval_id: index.find(loaded.eval_set, case, str(target.path)) for case in cases}
        )
        requests.extend((c, source if config.get(c.name) else "--criteria") for c in criteria)
        planned.append((loaded, cases, actual, len(criteria)))
    resolved = resolve_criteria(requests, registry, warnings)
    preflight_judges(resolved, judge or JudgeService())
    if agent is not None:
        agent.check_ready()
    jobs, position = [], 0
    for loaded, cases, actual, count in planned:
        jobs.append(
            Job(loaded.eval_set, cases, actual, resolved[position : position + count], str(loaded.source))
        )
        position += count
    return jobs, list(dict.fromkeys(warnings))


def resolve_agent(
    target: str, agent_type: Optional[str] = None, adapters: Optional[ProviderRegistry] = None
) -> Agent:
    """The adapter for ``--agent TARGET``: the one named by ``agent_type``, else the first
    installed adapter that claims the target. ``ConfigError`` when none does."""
    adapters = adapters or ProviderRegistry(group=AGENTS_GROUP, kind="agent adapter")
    if agent_type is not None:
        return adapters.load(agent_type)(target)
    for name in adapters.names():
        klass = adapters.load(name)
        if klass.claims(target):
            return klass(target)
    kinds = ", ".join(adapters.names()) or "none installed"
    msg = (
        f"--agent {target!r}: no agent adapter recognises it. A Python agent is "
        "'package.module:function' or 'path/to/file.py:function'; name the adapter with "
        f"--agent-type (installed: {kinds})"
    )
    raise ConfigError(msg)


async def run_agent_for(jobs: Sequence[Job], agent: Agent, *, concurrency: int, timeout: float) -> None:
    """Run the agent on every case of ``jobs`` and fill in their actual invocations (or
    the failures that replace them)."""
    cases = [(job, case) for job in jobs for case in job.cases]
    try:
        outcomes = await run_agent(
            agent, [case for _, case in cases], concurrency=concurrency, timeout=timeout
        )
    finally:
        await agent.aclose()
    for (job, case), outcome in zip(cases, outcomes, strict=True):
        if isinstance(outcome, AgentFailure):
            job.failures[case.eval_id] = outcome
        else:
            job.actual[case.eval_id] = outcome


def save_actual(jobs: Sequence[Job], path: Path) -> int:
    """Write the actual invocations of ``jobs`` as an eval set that ``--actual`` accepts
    later (cases the agent could not run are left out). Returns the number of cases."""
    cases = [
        EvalCase(
            eval_id=case.eval_id,
            conversation=list(job.actual[case.eval_id]),
            session_input=case.session_input,
        )
        for job in jobs
        for case in job.cases
        if case.eval_id in job.actual
    ]
    ids = [case.eval_id for case in cases]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        shared = ", ".join(map(repr, duplicates))
        msg = f"cannot save one actual file for eval sets that share eval_ids: {shared}"
        raise DataError(msg, source=str(path))
    eval_set_id = (
        jobs[0].eval_set.eval_set_id if len({j.eval_set.eval_set_id for j in jobs}) == 1 else "actual"
    )
    eval_set = EvalSet(
        eval_set_id=eval_set_id, name="actual invocations recorded by agenteval", eval_cases=cases
    )
    path.write_text(eval_set.to_json() + "\n", encoding="utf-8")
    return len(cases)


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
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:  # checked first: asyncio.run would leave the coroutine un-awaited (a RuntimeWarning)
        raise RuntimeError(
            "agenteval.evaluate() cannot run inside a running event loop; "
            "use 'await agenteval.evaluate_async(...)' there"
        )
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
