"""Exit codes and the one place where ``AgentEvalError`` becomes terminal output."""

from __future__ import annotations

import enum
import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..errors import AgentEvalError

__all__ = ["ExitCode", "reports_errors"]

F = TypeVar("F", bound=Callable[..., Any])


class ExitCode(enum.IntEnum):
    """``agenteval`` exit codes."""

    OK = 0  #: every case passed (or was informational)
    NOT_PASSED = 1  #: a criterion failed, errored or was not evaluated; or no case ran
    USAGE = 2  #: bad usage, data, config or plugin: nothing was evaluated
    INTERRUPTED = 130  #: Ctrl-C: the report shows what was scored before


def reports_errors(command: F) -> F:
    """Print an ``AgentEvalError`` as ``error: <message>`` and exit 2 (no traceback)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except AgentEvalError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(ExitCode.USAGE)

    return wrapper  # type: ignore[return-value]
