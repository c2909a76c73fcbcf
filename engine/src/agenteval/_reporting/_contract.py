"""The reporter contract (entry-point group ``agenteval.reporters``).

A reporter turns a recorded run (``agenteval.runs.RecordedRun``: its manifest, records and
summary) into an output for people or tools: a JUnit file for CI, a Markdown page, a GitHub
job summary... Reporters only ever read the run folder, so any recorded run, finished or
interrupted, can be reported again later (``agenteval runs report``).

    [project.entry-points."agenteval.reporters"]
    junit = "my_package.junit:JUnitReporter"
"""

from __future__ import annotations

import functools
import sys
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, ClassVar

from .._results import RunSummary
from ..runs import RecordedRun

__all__ = ["ReportContext", "Reporter"]


@dataclass
class ReportContext:
    """What a reporter is given.

    Attributes:
        run: the recorded run to report.
        folder: where the reporter writes its files (it exists).
        stream: where lines meant for the CI log go (e.g. GitHub annotations).
        environ: the environment (``GITHUB_STEP_SUMMARY`` and the like).
        summary: the run's summary, computed on first use and shared by the reporters.
    """

    run: RecordedRun
    folder: Path
    stream: IO[str] = field(default_factory=lambda: sys.stdout)
    environ: Mapping[str, str] = field(default_factory=dict)

    @functools.cached_property
    def summary(self) -> RunSummary:
        """The run's summary recomputed from its records (``RecordedRun.result_summary``:
        one pass over them), once for all the reporters of one report."""
        return self.run.result_summary()


class Reporter(ABC):
    """One output format. Instances are made with no arguments, once per report."""

    #: One line saying what the reporter writes (shown by ``agenteval reporters list``).
    description: ClassVar[str] = ""

    @abstractmethod
    def write(self, context: ReportContext) -> list[Path]:
        """Write the report; return the files written (may be empty, e.g. when the
        reporter only prints to ``context.stream``). Raise ``OSError`` if a file cannot be
        written; never raise for odd content (escape it)."""
