"""What a Ray worker runs for one unit: the run assembled again (once per worker process),
then the unit, on the worker's own event loop; the record goes back as JSON."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from typing import Any, Optional

__all__ = ["run_unit"]

#: The run this worker process serves, by run token and inputs fingerprint, and its loop.
_RUNS: dict[str, Any] = {}
_LOOP: Optional[asyncio.AbstractEventLoop] = None


def run_unit(payload: tuple[Any, str, Optional[str], str], unit: Any) -> str:
    """The unit's record (``CaseRecord`` JSON). ``payload``: the run's request, its plan's
    fingerprint, the driver's folder when the worker shares its machine (``None``: the
    driver's folder was shipped as the working directory) and the run's token (naming its
    shared limits, whose rates are the request's settings, as on the driver)."""
    global _LOOP
    request, fingerprint, folder, run_token = payload
    if folder is not None and os.path.isdir(folder) and os.getcwd() != folder:
        os.chdir(folder)
    if _LOOP is None:
        _LOOP = asyncio.new_event_loop()
    evaluation = _RUNS.get(run_token + fingerprint)
    if evaluation is None:
        evaluation = _RUNS[run_token + fingerprint] = _assembled(request, fingerprint)
        if evaluation.judge is not None:
            from ._limits import shared_limits

            evaluation.judge.limits = shared_limits(run_token)
    record = _LOOP.run_until_complete(evaluation.run_unit(unit))
    return record.dump()


def _assembled(request: Any, fingerprint: str) -> Any:
    """The driver's run, assembled here: no judge cache (one writer: the driver), run locally."""
    from agenteval import assemble

    options = dataclasses.replace(request.options, cache_dir=None, executor="local")
    assembled = assemble(dataclasses.replace(request, options=options))
    if assembled.plan.fingerprint() != fingerprint:
        raise RuntimeError(
            "this Ray worker's inputs differ from the driver's (its eval files, config or agent are "
            f"not the same in {os.getcwd()}); give every node the same files"
        )
    return assembled.open(runs_dir=None)
