"""ADK's log records, kept with the conversation they belong to instead of on stderr.

While a turn runs (``captured(log, turn)``), records of the ``google_adk`` loggers at
WARNING and above that the turn's task (and the tasks it starts) emits are appended to
that conversation's ``log`` as ``{"turn", "level", "logger", "message"}`` (the message
formatted, with the exception's type and message when there is one, never a traceback).
Cases run concurrently in one event loop, so the record is routed by the context of the
task that emitted it. Records emitted outside any turn take the usual way (stderr).
Installed once per process as a handler of the ``google_adk`` logger; handlers the user
has configured (on the root logger, say) still receive every record.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import threading
from collections.abc import Iterator
from typing import Any, Optional

__all__ = ["ADK_LOGGER", "captured"]

#: The logger every ADK module logs under (``google_adk.google.adk...``).
ADK_LOGGER = "google_adk"

_current: contextvars.ContextVar[Optional[tuple[list[dict[str, Any]], int]]] = contextvars.ContextVar(
    "agenteval_adk_log", default=None
)
_install_lock = threading.Lock()


class _CaseHandler(logging.Handler):
    """Keeps a WARNING+ record in the current turn's log. Outside a turn, a record is
    written to stderr as Python would without this handler (``logging.lastResort``) when
    no other handler is configured."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        target = _current.get()
        if target is None:
            last = logging.lastResort
            if last is not None and not logging.getLogger().handlers and record.levelno >= last.level:
                last.handle(record)
            return
        log, turn = target
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            message = f"{message} ({type(exc).__name__}: {exc})"
        log.append({"turn": turn, "level": record.levelname, "logger": record.name, "message": message})


_HANDLER = _CaseHandler()


def _install() -> None:
    logger = logging.getLogger(ADK_LOGGER)
    with _install_lock:
        if _HANDLER not in logger.handlers:
            logger.addHandler(_HANDLER)


@contextlib.contextmanager
def captured(log: list[dict[str, Any]], turn: int) -> Iterator[None]:
    """Route ADK's records emitted in this context to ``log`` (see the module docstring)."""
    _install()
    token = _current.set((log, turn))
    try:
        yield
    finally:
        _current.reset(token)
