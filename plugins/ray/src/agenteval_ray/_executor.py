"""``RayExecutor``: each unit of work (one case × run) as a Ray task.

Where: the cluster ``RAY_ADDRESS`` names (``ray start --head`` prints it; KubeRay sets it),
else a local Ray started for the run (no dashboard, no usage-stats prompt) and stopped after
it. A local Ray's workers start in the driver's folder; a remote cluster gets the driver's
folder as the tasks' working directory (Ray's ``runtime_env``; ``.git``, ``.venv`` and
``.agenteval`` left out), so eval files and a Python agent file given by relative path are
found there. Packages the agent needs must be installed on the workers (in the cluster's
image, or ``RAY_RUNTIME_ENV``-style ``pip`` in your own ``ray.init``).

Each task assembles the run's request again on its worker, once per worker process, and
refuses to run when that plan's inputs fingerprint is not the driver's (the files differ
there). Workers judge without the judge cache (the driver's cache file has one writer, the
driver). Their judge limits are shared (``agenteval_ray._limits``): one actor per judge
(provider, model, endpoint) holds the adaptive window every worker draws from (ceiling:
``--judge-concurrency``) and the run's requests and tokens per minute (``--judge-rpm``,
``--judge-tpm``); the manifest's ``executor.limits`` records each one's end state (window,
halvings). A task whose worker
dies is retried by Ray (``max_retries``); the driver writes the record it returns, once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import uuid
from typing import Any

from agenteval.errors import ConfigError
from agenteval.plugins import Executor, ExecutorContext, UnitRunner, WorkUnit
from agenteval.runs import CaseRecord

__all__ = ["RATE_VARIABLE", "RayExecutor"]

#: The environment variable agenteval-ray 0.1 read for the judge requests per minute, replaced
#: by the run's ``--judge-rpm`` (``statistics.judge_rpm``): a run that still sets it stops.
RATE_VARIABLE = "AGENTEVAL_RAY_JUDGE_RPM"

#: How many times Ray runs a unit again when its worker is lost.
MAX_RETRIES = 3
_NOT_SHIPPED = [".git", ".venv", ".agenteval", "node_modules", "__pycache__"]


class RayExecutor(Executor):
    """Units as Ray tasks on ``RAY_ADDRESS``'s cluster, else on a local Ray (see the module)."""

    def __init__(self) -> None:
        self.workers = 0
        self._started_here = False
        self._task: Any = None
        self._payload: Any = None
        self._run_token = uuid.uuid4().hex[:12]
        self._report: dict[str, Any] = {}

    async def start(self, context: ExecutorContext) -> None:
        request = context.request
        if request is None or request.eval_sets or not isinstance(request.agent, (str, type(None))):
            raise ConfigError(
                "--executor ray runs a run given by paths and an --agent target or --actual files "
                "(its workers assemble it again); an Agent or EvalSet object cannot be sent to them"
            )
        if os.environ.get(RATE_VARIABLE, "").strip():
            raise ConfigError(
                f"{RATE_VARIABLE} is replaced by the run's setting: give --judge-rpm N (or "
                f'"judge_rpm": N in the config\'s statistics block) and unset {RATE_VARIABLE}'
            )
        import ray

        address = os.environ.get("RAY_ADDRESS") or None
        if not ray.is_initialized():
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            options: dict[str, Any] = {
                "address": address,
                "include_dashboard": False,
                "log_to_driver": False,
                "logging_level": "WARNING",
            }
            if address is not None:
                options["runtime_env"] = {"working_dir": os.getcwd(), "excludes": _NOT_SHIPPED}
            try:  # in this thread: nothing else runs before the first unit
                _init(ray, options, retries=0 if address is not None else 1)
            except Exception as exc:  # noqa: BLE001 - Ray raises bare Exception when a node fails to start
                where = f"the Ray cluster at {address}" if address else "a local Ray"
                raise ConfigError(
                    f"--executor ray could not start {where}: {type(exc).__name__}: {exc} "
                    "(check `ray status`, or run with --executor local)"
                ) from None
            self._started_here = True
        self.workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        from ._worker import run_unit

        folder = None if address is not None else os.getcwd()
        self._payload = ray.put((request, context.plan.fingerprint(), folder, self._run_token))
        self._task = ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)(run_unit)

    async def run(self, unit: WorkUnit, local: UnitRunner) -> CaseRecord:
        import ray

        reference = self._task.remote(self._payload, dataclasses.replace(unit, recorded=None))
        try:
            document = await reference
        except asyncio.CancelledError:
            ray.cancel(reference, force=True)
            raise
        return CaseRecord.model_validate_json(document)

    async def aclose(self) -> None:
        import ray

        try:
            if self._payload is not None and ray.is_initialized():
                from ._limits import kill_limits, limit_states

                try:
                    self._report["limits"] = await asyncio.to_thread(limit_states, self._run_token)
                finally:
                    await asyncio.to_thread(kill_limits, self._run_token)
        finally:  # a local Ray is stopped even when its limits could not be read
            if self._started_here:
                self._started_here = False
                await asyncio.to_thread(ray.shutdown)

    def report(self) -> dict[str, Any]:
        """Each judge endpoint's shared limit at the end: window, halvings, most in flight."""
        return dict(self._report)


def _init(ray: Any, options: dict[str, Any], *, retries: int) -> None:
    """``ray.init(**options)``, tried again ``retries`` times after a failure: a local head
    node on a loaded machine can miss Ray's own start-up deadline once and start the next
    time."""
    for attempt in range(retries + 1):
        try:
            ray.init(**options)
            return
        except Exception:  # Ray raises a bare Exception when a node fails to start (re-raised)
            ray.shutdown()
            if attempt == retries:
                raise
