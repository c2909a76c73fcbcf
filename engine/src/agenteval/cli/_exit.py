"""Exit codes and the one place where ``AgentEvalError`` becomes terminal output.

Messages are printed through ``agenteval._terminal.visible``: a file name or id in them
can never act on the terminal."""

from __future__ import annotations

import enum
import errno
import functools
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from .._terminal import visible
from ..errors import AgentEvalError

__all__ = ["ExitCode", "reports_errors"]

F = TypeVar("F", bound=Callable[..., Any])


class ExitCode(enum.IntEnum):
    """``agenteval`` exit codes."""

    OK = 0  #: every case passed (or was informational)
    NOT_PASSED = 1  #: a criterion failed, errored or was not evaluated; or no case ran
    USAGE = 2  #: bad usage, data, config or plugin: nothing was evaluated
    #: With ``--fail-on-inconclusive``: every point verdict passed, but some criterion's
    #: tri-state verdict is INCONCLUSIVE (its interval contains the threshold). Precedence:
    #: 2 > 1 > 3 > 0.
    INCONCLUSIVE = 3
    INTERRUPTED = 130  #: Ctrl-C: the report shows what was scored before


def reports_errors(command: F) -> F:
    """Print an ``AgentEvalError`` as ``error: <message>`` and exit 2 (no traceback); an
    ``OSError`` about a path the command was given (a name too long, a folder that cannot
    be read) likewise, with the path, the reason and the fix."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except AgentEvalError as exc:
            _fail(str(exc))
        except OSError as exc:
            if isinstance(exc, BrokenPipeError) or (
                exc.filename is None and exc.errno not in _WRITE_FAILURES
            ):
                raise
            _fail(os_error_message(exc))

    return wrapper  # type: ignore[return-value]  # functools.wraps: the same signature as command


def _fail(message: str) -> None:
    click.echo(f"error: {visible(message, newlines=True)}", err=True)
    sys.exit(ExitCode.USAGE)


_FIXES = {
    errno.ENAMETOOLONG: "a file name is at most 255 bytes and a path at most 4,096; use a shorter one",
    errno.EACCES: "check the permissions, or name a file you can read",
    errno.ELOOP: "the path loops through symbolic links; name the file itself",
    errno.ENOTDIR: "a part of the path is a file, not a folder; check the path",
    errno.ENOSPC: "free some space, or write the output elsewhere",
    errno.EDQUOT: "the disk quota is used up; free some space, or write the output elsewhere",
}


#: A write that failed on a file already open (no path in the error: the output named by
#: an option, or standard output): said with the reason and the fix, not a traceback.
_WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def os_error_message(exc: OSError) -> str:
    """``<path>: <reason> (<fix>)`` for an ``OSError`` about a path; a long path is cut
    in the middle, with its length in bytes. A failed write with no path (a file already
    open) is said as such."""
    if exc.filename is None:
        what = _FIXES.get(exc.errno or 0, "write the output elsewhere")
        return f"an output could not be written: {exc.strerror or type(exc).__name__}; {what}"
    path = os.fsdecode(exc.filename)
    size = len(os.fsencode(path))
    shown = path if len(path) <= 120 else f"{path[:60]}…{path[-40:]} ({size:,} bytes)"
    reason = exc.strerror or type(exc).__name__
    fix = _FIXES.get(exc.errno or 0)
    return f"{shown}: {reason}" + (f"; {fix}" if fix else "")
