"""Running reporter plugins over a recorded run: resolved before any work (an unknown or
broken reporter is exit 2 before the agent runs), written after the run."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Optional

from ..runs import RecordedRun
from ._contract import ReportContext, Reporter

__all__ = ["REPORTERS_GROUP", "resolve_reporters", "write_reports"]

REPORTERS_GROUP = "agenteval.reporters"


def resolve_reporters(names: Sequence[str]) -> dict[str, type[Reporter]]:
    """The reporter classes named (``PluginLoadError`` naming every problem at once)."""
    from .._plugins import KINDS, PluginFinder

    finder = PluginFinder(KINDS[REPORTERS_GROUP])
    return {name: item.obj for name, item in finder.load_many(names).items()}


def write_reports(
    reporters: dict[str, type[Reporter]],
    run: RecordedRun,
    folder: Optional[Path] = None,
    *,
    stream: Optional[IO[str]] = None,
) -> dict[str, list[Path]]:
    """Run each reporter over ``run``; files go to ``folder`` (default: the run folder's
    ``reports/``). Returns the files each reporter wrote."""
    target = folder or run.folder / "reports"
    target.mkdir(parents=True, exist_ok=True)
    context = ReportContext(run=run, folder=target, stream=stream or sys.stdout, environ=dict(os.environ))
    return {name: list(klass().write(context)) for name, klass in reporters.items()}
