"""The executor contract: who runs a run's units of work.

A unit is one case × run (acquire its turns → score them, judge calls inside). ``EvalRun``
(the driver) decides which units run, in which order and how many at once, and is the only
writer of the run folder: it hands each unit to the executor's ``run`` and appends the
``CaseRecord`` that comes back, once per unit (a unit the executor retries still writes one
record), so ``--resume``, ``agenteval runs``, ``compare``, the viewer and every reporter read
the folder as they always did, whatever ran the units.

An executor plugin is a subclass of ``Executor`` registered under the entry-point group
``agenteval.executors`` and chosen with ``--executor NAME``; the engine's own ``local`` runs
every unit in the driver's event loop, under the run's limits (what a run always did).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from ..runs import CaseRecord
    from ._assemble import RunRequest
    from ._plan import Plan

__all__ = [
    "DEFAULT_EXECUTOR",
    "EXECUTORS_GROUP",
    "Executor",
    "ExecutorContext",
    "LocalExecutor",
    "UnitRunner",
    "WorkUnit",
]

#: The executor of a run that names none.
DEFAULT_EXECUTOR = "local"
#: The entry-point group of executor plugins.
EXECUTORS_GROUP = "agenteval.executors"


@dataclass(frozen=True)
class WorkUnit:
    """One case × run of the plan: the eval set's index in the plan, the case's id, the run
    (from 1); ``recorded`` holds the run's recorded turns when they come from files (``None``
    when the agent runs)."""

    eval_set_index: int
    case_id: str
    run_index: int
    recorded: Any = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> tuple[int, str, int]:
        """The key of the record the unit gives (``CaseRecord.key``)."""
        return (self.eval_set_index, self.case_id, self.run_index)


#: The driver's own way to run a unit in this process (acquire → score → the record).
UnitRunner = Callable[[WorkUnit], Awaitable["CaseRecord"]]


@dataclass(frozen=True)
class ExecutorContext:
    """What an executor may need to run units elsewhere: the plan, and the request it was
    assembled from (``None`` for a plan made without one), which a worker assembles again
    (its plan must have the same ``fingerprint()``)."""

    plan: Plan
    request: Optional[RunRequest] = None


class Executor(ABC):
    """Runs the units of one run and hands their records back to the driver.

    ``start`` is awaited once before the first unit, ``aclose`` once after the last (also
    when the run is interrupted). ``run`` may be awaited for many units at once; cancelling
    it (Ctrl-C, ``--timeout``) must cancel the unit wherever it runs. A unit that fails
    inside the executor (a lost worker) is retried by the executor or raised; a unit whose
    agent or criteria fail is not a failure here: its record says so (ERRORED)."""

    #: How many workers run units (recorded in the manifest).
    workers: int = 1

    async def start(self, context: ExecutorContext) -> None:  # noqa: B027 - optional hook
        """Get ready to run units (start or join a cluster)."""

    @abstractmethod
    async def run(self, unit: WorkUnit, local: UnitRunner) -> CaseRecord:
        """The unit's record; ``local`` runs it in this process, as the ``local`` executor does."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Let go of whatever ``start`` took."""

    def report(self) -> dict[str, Any]:
        """What the manifest records of the run beyond ``workers`` (e.g. shared limits' end
        state), asked once after ``aclose``; JSON values only."""
        return {}


class LocalExecutor(Executor):
    """Every unit in the driver's event loop, under the run's limits (``--concurrency``,
    ``--agent-concurrency``, the judge's own limit): one process, as agenteval always ran."""

    async def run(self, unit: WorkUnit, local: UnitRunner) -> CaseRecord:
        return await local(unit)
