"""The embedding API: evaluate eval cases against actual invocations, sync or async.

``evaluate`` / ``evaluate_async`` score recorded turns; ``evaluate_agent`` /
``evaluate_agent_async`` run the agent first. Each is a thin caller of the run pipeline
(``agenteval._run``: a plan, then one ``EvalRun``), as are the CLI and the pytest plugin.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Optional, TypeVar, Union

from ._jsonsafe import dump_model
from ._plugins import known_plugins
from ._registry import AGENTS_GROUP, ProviderRegistry, Registry
from ._run import (
    AGENT_ERROR_KEY,
    DEFAULT_CONCURRENCY,
    CriteriaSpec,
    Plan,
    as_config,
    plan_eval_sets,
    plan_paths,
)
from ._run._session import open_run
from .agents import Agent
from .errors import ConfigError, CriterionLoadError, DataError
from .judging import JudgeCache, JudgeService
from .models import EvalCase, EvalSet, Invocation
from .results import RunResult

__all__ = [
    "ActualSpec",
    "CriteriaSpec",
    "evaluate",
    "evaluate_agent",
    "evaluate_agent_async",
    "evaluate_async",
    "load_env_files",
    "resolve_agent",
    "run_sync",
    "save_actual",
]

ActualSpec = Union[EvalSet, Mapping[str, Sequence[Invocation]], str, Path]


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
    missing = [
        (name, hint) for name, hint in known_plugins("agent adapter").items() if name not in adapters.names()
    ]
    if missing:
        msg += ". Not installed: " + "; ".join(f"{name} ({hint})" for name, hint in missing)
    if broken:
        msg += ". Adapters that could not be loaded: " + "; ".join(broken)
    raise ConfigError(msg)


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


def load_env_files(folders: Iterable[Path], warn: Callable[[str], None] = lambda message: None) -> list[Path]:
    """Read ``.env`` files beside the eval files into the environment, as ``adk eval``
    does for an agent folder (judge keys, ``GOOGLE_CLOUD_PROJECT``...). Variables already
    set win; each folder is read once. ``warn`` is told of a ``.env`` that points an endpoint
    elsewhere while its key comes from the environment. Returns the files read."""
    from dotenv import load_dotenv

    from ._secrets import endpoint_override_warnings

    read = []
    for folder in dict.fromkeys(Path(f).resolve() for f in folders):
        candidate = folder / ".env"
        if candidate.is_file():
            for warning in endpoint_override_warnings(candidate):
                warn(warning)
            load_dotenv(candidate, override=False)
            read.append(candidate)
    return read


T = TypeVar("T")


def run_sync(awaitable: Awaitable[T]) -> T:
    """``asyncio.run`` for a result-returning coroutine, without its hidden cost.

    On Python 3.11 ``asyncio.run`` builds the repr of its finished main task, which
    includes the whole result (tens of milliseconds for a large ``RunResult``); the
    wrapper returns ``None`` to the loop and hands the result over directly.
    """
    box: list[T] = []

    async def main() -> None:
        box.append(await awaitable)

    asyncio.run(main())
    return box[0]


async def evaluate_async(
    eval_sets: Union[EvalSet, str, Path, Sequence[Union[EvalSet, str, Path]]],
    actual: ActualSpec,
    criteria: CriteriaSpec = None,
    *,
    registry: Optional[Registry] = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    strict: bool = False,
    judge: Optional[JudgeService] = None,
    runs_dir: Optional[Union[str, Path]] = None,
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
            default: the answer cache in ``.agenteval/``.
        runs_dir: record the run in a run folder there (``docs/run-folder.md``); default:
            keep no record.

    Raises:
        AgentEvalError: bad data, config or criteria, before any evaluation starts.
    """
    registry = registry or Registry.installed()
    if isinstance(eval_sets, (EvalSet, str, Path)):
        eval_sets = [eval_sets]
    plan = plan_eval_sets(list(eval_sets), actual, criteria, registry=registry, judge=None)
    if judge is None and any(c.info.requires_judge for s in plan.sets for c in s.criteria):
        judge = JudgeService(cache=JudgeCache())
    if judge is not None:
        from ._run._plan import preflight_judges

        preflight_judges([c for s in plan.sets for c in s.criteria], judge)
    return await _execute(plan, runs_dir, "evaluate", judge=judge, concurrency=concurrency, strict=strict)


def evaluate(
    eval_sets: Union[EvalSet, str, Path, Sequence[Union[EvalSet, str, Path]]],
    actual: ActualSpec,
    criteria: CriteriaSpec = None,
    **options: Any,
) -> RunResult:
    """Synchronous ``evaluate_async`` (not callable from inside a running event loop)."""
    _refuse_running_loop("evaluate")
    return run_sync(evaluate_async(eval_sets, actual, criteria, **options))


async def evaluate_agent_async(
    agent: Union[str, Agent],
    eval_paths: Union[str, Path, Sequence[Union[str, Path]]],
    criteria: CriteriaSpec = None,
    *,
    num_runs: Union[int, str] = 1,
    run_budget: Optional[int] = None,
    agent_type: Optional[str] = None,
    agent_concurrency: int = 4,
    agent_timeout: float = 300.0,
    registry: Optional[Registry] = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    strict: bool = False,
    judge: Optional[JudgeService] = None,
    runs_dir: Optional[Union[str, Path]] = None,
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
            run's result is kept (``CriterionResult.runs``). ``"auto"``: runs look by look
            (3, 6, 12, 24) while a case's verdict is undecided, as ``--num-runs auto``.
        run_budget: with ``num_runs="auto"``, the most agent runs in all (``--run-budget``).
        agent_type: the adapter to use (default: the one that claims ``agent``).
        agent_concurrency / agent_timeout: cases run at once; seconds per turn.
        registry, concurrency, strict, judge, runs_dir: as for ``evaluate``.

    The result's cases carry what the agent did in each run (``CaseResult.agent_runs``).

    Raises:
        AgentEvalError: bad data, config, criteria or agent, before the agent runs.
    """
    if isinstance(eval_paths, (str, Path)):
        eval_paths = [eval_paths]
    adapter = agent if isinstance(agent, Agent) else resolve_agent(agent, agent_type)
    if judge is None:
        judge = JudgeService(cache=JudgeCache())
    plan = plan_paths(
        [str(p) for p in eval_paths],
        config=None if criteria is None else as_config(criteria),
        registry=registry or Registry.installed(),
        judge=judge,
        agent=adapter,
        agent_target=agent
        if isinstance(agent, str)
        else f"{type(agent).__module__}:{type(agent).__qualname__}",
        num_runs=num_runs,
        run_budget=run_budget,
    )
    return await _execute(
        plan,
        runs_dir,
        "evaluate_agent",
        judge=judge,
        concurrency=concurrency,
        agent_concurrency=agent_concurrency,
        agent_timeout=agent_timeout,
        strict=strict,
    )


async def _execute(
    plan: Plan, runs_dir: Optional[Union[str, Path]], caller: str, **options: Any
) -> RunResult:
    """Run ``plan`` with one ``EvalRun``, recorded in ``runs_dir`` when one is given."""
    folder = Path(runs_dir) if runs_dir is not None else None
    return await open_run(plan, runs_dir=folder, argv=[f"agenteval.{caller}"], **options).execute()


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
