"""The embedding API: evaluate eval cases against actual invocations, sync or async.

``evaluate`` / ``evaluate_async`` score recorded turns; ``evaluate_agent`` /
``evaluate_agent_async`` run the agent first. Each is a thin caller of the run assembler
(``agenteval._run.assemble``: settings, a plan, then one ``EvalRun``), as are the CLI, the
pytest plugin and the viewer's runs, so a config's ``statistics`` block applies here as it
does to ``agenteval run``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional, Union

from ._agents import Agent
from ._judging import JudgeService
from ._registry import Registry
from ._results import RunResult
from ._run import (
    DEFAULT_CONCURRENCY,
    CriteriaSpec,
    RunOptions,
    RunRequest,
    as_config,
    assemble,
    run_sync,
)
from ._run._executor import DEFAULT_EXECUTOR
from .models import EvalSet, Invocation

__all__ = [
    "ActualSpec",
    "CriteriaSpec",
    "evaluate",
    "evaluate_agent",
    "evaluate_agent_async",
    "evaluate_async",
]

ActualSpec = Union[EvalSet, Mapping[str, Sequence[Invocation]], str, Path]


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
    executor: str = DEFAULT_EXECUTOR,
) -> RunResult:
    """Score eval cases against the agent's actual invocations.

    Args:
        eval_sets: one or more ``EvalSet`` objects or eval-file paths (any ADK format).
        actual: the actual invocations: an ``EvalSet`` (or its path) whose cases carry the
            same ``eval_id`` s, the path of a file in an installed data format (e.g. an
            OpenTelemetry trace with agenteval-otel), or a mapping ``eval_id -> [Invocation, ...]``.
        criteria: ``None`` for ADK's defaults; a mapping like a config's ``criteria``
            (``{"response_match_score": 0.7, "tool_trajectory_avg_score": {"threshold": 1,
            "match_type": "IN_ORDER"}}``); a list of names or ``Criterion`` objects; or an
            ``EvalConfig`` (``load_config(path)``), whose ``statistics`` block then sets the
            confidence, judge budget and sampling, and ``fail_on_inconclusive``.
        registry: where criteria come from (default: installed entry points).
        concurrency: how many evaluations may run at once.
        strict: re-raise evaluator exceptions instead of recording ERRORED results.
        judge: the judge service for LLM-judge criteria (its concurrency limit and cache);
            default: the answer cache in ``.agenteval/``.
        runs_dir: record the run in a run folder there (``docs/run-folder.md``); default:
            keep no record.
        executor: what runs the units of work (``--executor``; default ``local``, this process).

    Raises:
        AgentEvalError: bad data, config or criteria, before any evaluation starts.
    """
    if isinstance(eval_sets, (EvalSet, str, Path)):
        eval_sets = [eval_sets]
    request = RunRequest(
        eval_sets=tuple(eval_sets),
        actual_turns=actual,
        config=as_config(criteria),
        options=RunOptions(concurrency=concurrency, strict=strict, executor=executor),
    )
    return await _execute(request, registry, judge, runs_dir, "evaluate")


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
    num_runs: Union[int, str, None] = None,
    run_budget: Optional[int] = None,
    agent_type: Optional[str] = None,
    agent_concurrency: int = 4,
    agent_timeout: float = 300.0,
    registry: Optional[Registry] = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    strict: bool = False,
    judge: Optional[JudgeService] = None,
    runs_dir: Optional[Union[str, Path]] = None,
    executor: str = DEFAULT_EXECUTOR,
) -> RunResult:
    """Run the agent under test on eval files and score what it did (ADK's
    ``AgentEvaluator.evaluate``, with the CLI's verdicts).

    Args:
        agent: an ``--agent`` target (``pkg.module:function``, ``path/agent.py:function``,
            an ADK agent folder or module, ``http://host/v1?model=m``...) or an ``Agent``.
        eval_paths: eval files (any ADK format), folders of them, or ``FILE:CASE,CASE``.
        criteria: as for ``evaluate``; ``None`` uses the ``test_config.json`` beside each
            file, else ADK's defaults. The config's ``statistics`` block applies as it does
            to ``agenteval run``.
        num_runs: how many times each case is run (``None``: the config's
            ``statistics.num_runs``, else 1); verdicts use the mean score and each
            run's result is kept (``CriterionResult.runs``). ``"auto"``: runs look by look
            (3, 6, 12, 24) while a case's verdict is undecided, as ``--num-runs auto``.
        run_budget: with ``num_runs="auto"``, the most agent runs in all (``--run-budget``).
        agent_type: the adapter to use (default: the one that claims ``agent``).
        agent_concurrency / agent_timeout: cases run at once; seconds per turn.
        registry, concurrency, strict, judge, runs_dir, executor: as for ``evaluate``.

    The result's cases carry what the agent did in each run (``CaseResult.agent_runs``).

    Raises:
        AgentEvalError: bad data, config, criteria or agent, before the agent runs.
    """
    if isinstance(eval_paths, (str, Path)):
        eval_paths = [eval_paths]
    request = RunRequest(
        paths=tuple(str(p) for p in eval_paths),
        agent=agent,
        agent_type=agent_type,
        config=None if criteria is None else as_config(criteria),
        options=RunOptions(
            num_runs=num_runs,
            run_budget=run_budget,
            concurrency=concurrency,
            agent_concurrency=agent_concurrency,
            agent_timeout=agent_timeout,
            strict=strict,
            executor=executor,
        ),
    )
    return await _execute(request, registry, judge, runs_dir, "evaluate_agent")


async def _execute(
    request: RunRequest,
    registry: Optional[Registry],
    judge: Optional[JudgeService],
    runs_dir: Optional[Union[str, Path]],
    caller: str,
) -> RunResult:
    """Assemble ``request`` and run it with one ``EvalRun``, recorded in ``runs_dir`` when
    one is given."""
    assembled = assemble(request, registry=registry, judge=judge)
    folder = Path(runs_dir) if runs_dir is not None else None
    return await assembled.open(runs_dir=folder, argv=[f"agenteval.{caller}"]).execute()


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
