"""``--num-runs auto``: each case gets its runs look by look; the whole policy, written once.

A case first gets the runs of its first look (``AUTO_LOOKS``). At each look its tri-state
verdict is checked (``case_decided``), every look's interval at a Bonferroni share of the
confidence (``look_confidence``); an undecided case goes on to the next look, until the
last. ``runs_needed`` walks a case's looks over its records: the run (``agenteval._run``)
and every reader of its folder (``agenteval.runs.auto_runs_needed``) go through it.

``--run-budget`` caps the agent runs of the whole run: ``auto_looks`` gives the looks it
leaves room for, and while the run goes a ``RunBudget`` keeps every case not yet started
its first look and stops a case whose next look the budget cannot pay for.
``check_num_runs`` refuses the ``--num-runs`` / ``--run-budget`` pairs that cannot run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Optional, Union

from ._results import CriterionResult, Status
from ._verdicts import CALIBRATION_BASIS, JUDGE_BUDGET_BASIS
from .errors import ConfigError

__all__ = [
    "AUTO_LOOKS",
    "RunBudget",
    "auto_looks",
    "case_decided",
    "check_num_runs",
    "look_confidence",
    "runs_needed",
]

#: The planned looks of ``--num-runs auto``: the runs a case has when its verdict is checked.
AUTO_LOOKS = (3, 6, 12, 24)


def check_num_runs(num_runs: Union[int, str, None], run_budget: Optional[int], runs_agent: bool) -> None:
    """``ConfigError`` for a ``num_runs`` / ``run_budget`` pair that cannot be run (``None``:
    not decided yet, the configs' ``statistics`` block may still say auto)."""
    if num_runs is None:
        return
    auto = num_runs == "auto"
    if not auto and (isinstance(num_runs, bool) or not isinstance(num_runs, int) or num_runs < 1):
        raise ConfigError(f"--num-runs must be a whole number of at least 1, or auto, not {num_runs!r}")
    if run_budget is not None and not auto:
        raise ConfigError("--run-budget caps the runs of --num-runs auto; give --num-runs auto as well")
    if auto and not runs_agent:
        raise ConfigError("--num-runs auto runs the agent until each case is decided; it needs --agent")


def auto_looks(cases: int, run_budget: Optional[int]) -> tuple[int, ...]:
    """The looks of ``--num-runs auto`` that ``run_budget`` leaves room for (every case's
    first look, and one case going on to each later one); ``ConfigError`` when the budget
    cannot give every case its first look."""
    if run_budget is None:
        return AUTO_LOOKS
    first = AUTO_LOOKS[0]
    if run_budget < first * max(cases, 1):
        raise ConfigError(
            f"--run-budget {run_budget} is too small: --num-runs auto starts every case with {first} "
            f"runs, so {cases} case(s) need at least {first * max(cases, 1)}; raise the budget or select "
            "fewer cases"
        )
    spare = run_budget - first * max(cases - 1, 0)
    return tuple(look for look in AUTO_LOOKS if look <= spare)


def look_confidence(confidence: float, looks: int) -> float:
    """The level of each look's interval when a case may be looked at ``looks`` times:
    Bonferroni's split of the error, 1 - (1 - confidence) / looks, so that the chance of a
    wrong PASS or FAIL at any look stays at most what ``confidence`` allows at one."""
    return 1.0 - (1.0 - confidence) / max(1, looks)


#: Verdict bases more runs cannot settle: a calibration gate, an unjudged (budget-spent) result.
_NOT_SETTLED_BY_RUNS = (CALIBRATION_BASIS, JUDGE_BUDGET_BASIS)


def case_decided(results: Sequence[CriterionResult]) -> bool:
    """Whether more runs could change the case's tri-state verdict: decided when a gating
    criterion FAILs (or is NOT_EVALUATED: the case fails whatever comes), or when none is
    INCONCLUSIVE. Informational criteria and results with no verdict never keep it open."""
    verdicts = [
        r.verdict.verdict
        for r in results
        if r.verdict is not None
        and r.status is not Status.INFORMATIONAL
        and r.verdict.basis not in _NOT_SETTLED_BY_RUNS
    ]
    return any(v in ("FAIL", "NOT_EVALUATED") for v in verdicts) or "INCONCLUSIVE" not in verdicts


def runs_needed(
    records: Sequence[Optional[object]], looks: Sequence[int], decided: Callable[[int], bool]
) -> int:
    """How many runs a case needs by now, from its records in run order (``None``: not
    recorded): its first look's runs, and each next look's while ``decided(look)`` (the
    verdict over its first ``look`` runs, see ``case_decided``) says the last look left it open."""
    have = 0
    while have < len(records) and records[have] is not None:
        have += 1
    for position, look in enumerate(looks):
        if have < look or position == len(looks) - 1 or decided(look):
            return look
    return have


@dataclass
class RunBudget:
    """The agent runs of a ``--num-runs auto`` run so far against ``--run-budget``: ``used``
    (started), and ``reserved``, the first looks of the cases not started yet, which no
    other case's later look may take."""

    budget: Optional[int]
    used: int = 0
    reserved: int = 0

    def next_target(self, have: int, needed: int) -> int:
        """The runs a case that has ``have`` and needs ``needed`` is to have now: ``needed``,
        or ``have`` (the case stops) when that would break the budget."""
        if needed <= have:
            return have
        if self.budget is not None and self.used + (needed - have) + self.reserved > self.budget:
            return have
        return needed
