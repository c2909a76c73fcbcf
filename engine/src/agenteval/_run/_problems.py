"""Input problems gathered across files, so that one run reports them all before any work."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ..errors import AgentEvalError

__all__ = ["InputProblems"]


class InputProblems:
    """Input problems gathered across files, so one run reports them all (up to ``CAP``)."""

    CAP = 20

    def __init__(self) -> None:
        self.found: list[AgentEvalError] = []

    @contextlib.contextmanager
    def collect(self) -> Iterator[None]:
        try:
            yield
        except AgentEvalError as exc:
            if str(exc) not in {str(found) for found in self.found}:  # one file read twice: said once
                self.found.append(exc)

    def raise_any(self) -> None:
        """Raise the one problem as it is, or every problem in one error of the first's kind."""
        if not self.found:
            return
        if len(self.found) == 1:
            raise self.found[0]
        shown = self.found[: self.CAP]
        lines = [f"{len(self.found)} problems stop this run (fix them all, then run again):"]
        lines += [f"  - {problem}" for problem in shown]
        if len(self.found) > len(shown):
            lines.append(f"  ... and {len(self.found) - len(shown)} more")
        raise type(self.found[0])("\n".join(lines))
