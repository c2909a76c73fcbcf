"""``assert_agent_passes``: ADK's ``AgentEvaluator.evaluate`` for hand-written tests."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

if TYPE_CHECKING:  # agenteval is imported when the functions are called
    from agenteval import CriteriaSpec, RunResult
    from agenteval.models import Invocation
    from agenteval.plugins import Agent

__all__ = ["EvalCasesFailed", "assert_agent_passes", "assert_agent_passes_async"]

Paths = Union[str, Path, Sequence[Union[str, Path]]]


class EvalCasesFailed(AssertionError):
    """Some eval cases did not pass. ``str()`` is the report (the same as a collected
    eval case's failure); ``result`` is the whole ``agenteval.RunResult``."""

    def __init__(self, message: str, result: RunResult) -> None:
        super().__init__(message)
        self.result = result


def assert_agent_passes(
    agent: Union[str, Agent],
    paths: Paths,
    *,
    num_runs: Union[int, str, None] = None,
    criteria: CriteriaSpec = None,
    **options: Any,
) -> RunResult:
    """Run the agent on eval files and fail the test unless every case passes.

    The equivalent of ADK's ``AgentEvaluator.evaluate(agent_module, path, num_runs)``,
    with ``agenteval run``'s verdicts: a case passes when it is PASSED or INFORMATIONAL.

    Args:
        agent: an ``--agent`` target (``pkg.module:function``, ``path/to/agent.py:function``,
            an agent folder, an ADK agent module...) or an ``agenteval.plugins.Agent``.
        paths: eval files, folders of them, or ``FILE:CASE,CASE``.
        num_runs: how many times each case runs (``None``: the config's
            ``statistics.num_runs``, else 1); verdicts use the mean score.
        criteria: ``None`` for the ``test_config.json`` beside each file (else ADK's
            defaults), or criteria as ``agenteval.evaluate`` takes them.
        **options: passed on to ``agenteval.evaluate_agent`` (``agent_type``,
            ``agent_concurrency``, ``agent_timeout``, ``judge``...).

    Returns:
        The ``agenteval.RunResult``, when every case passed.

    Raises:
        EvalCasesFailed: (an ``AssertionError``) some case did not pass; its message
            explains each one.
        agenteval.errors.AgentEvalError: a bad eval file, config, criterion or agent.
        RuntimeError: called inside a running event loop (use the async variant there).
    """
    from agenteval import evaluate_agent

    result = evaluate_agent(agent, paths, criteria, num_runs=num_runs, **options)
    check_passed(result)
    return result


async def assert_agent_passes_async(
    agent: Union[str, Agent],
    paths: Paths,
    *,
    num_runs: Union[int, str, None] = None,
    criteria: CriteriaSpec = None,
    **options: Any,
) -> RunResult:
    """``assert_agent_passes`` for async tests (``await`` it inside an event loop)."""
    from agenteval import evaluate_agent_async

    result = await evaluate_agent_async(agent, paths, criteria, num_runs=num_runs, **options)
    check_passed(result)
    return result


def check_passed(result: RunResult) -> None:
    """Raise ``EvalCasesFailed`` unless every case of ``result`` is PASSED or INFORMATIONAL
    (``KeyboardInterrupt`` if the run was interrupted: what it did not score is no verdict)."""
    if result.interrupted:
        raise KeyboardInterrupt
    if result.passed:
        return
    from ._report import case_report

    failed = [
        (eval_set, case) for eval_set in result.eval_sets for case in eval_set.cases if not case.status.ok
    ]
    total = len(result.cases())
    if not failed:  # nothing failed, yet the run did not pass: it ran no case at all
        raise EvalCasesFailed("no eval case ran", result)
    expected = _ExpectedTurns()
    names = ", ".join(f"{case.eval_id} ({case.status.value})" for _, case in failed)
    lines = [f"{len(failed)} of {total} eval case(s) did not pass: {names}"]
    for eval_set, case in failed:
        where = eval_set.source or eval_set.eval_set_id
        lines += [
            "",
            f"{where}::{case.eval_id}",
            case_report(case, expected.get(eval_set.source, case.eval_id)),
        ]
    raise EvalCasesFailed("\n".join(lines), result)


class _ExpectedTurns:
    """The eval files' expected conversations, read back from their sources once each."""

    def __init__(self) -> None:
        self._sets: dict[str, Any] = {}

    def get(self, source: Optional[str], eval_id: str) -> Optional[list[Invocation]]:
        if source is None:
            return None
        from agenteval import load_eval_set
        from agenteval.errors import AgentEvalError

        if source not in self._sets:
            try:
                self._sets[source] = load_eval_set(source)
            except (AgentEvalError, OSError):  # changed since the run: report without them
                self._sets[source] = None
        eval_set = self._sets[source]
        if eval_set is None:
            return None
        try:
            return eval_set.case(eval_id).conversation
        except KeyError:
            return None
