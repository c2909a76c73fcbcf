"""What an agent prints goes to its case, not into agenteval's output.

While a case runs (``capturing()``), ``sys.stdout`` and ``sys.stderr`` are routers: a
write made in that case's context (its task, and the threads an adapter starts with the
case's ``contextvars`` context) is kept in the case's ``Capture``; every other write (the
progress display, the report) goes to the real stream. Writes straight to file
descriptors 1 and 2 (C extensions, child processes) are not captured in-process; the
process isolation mode captures those too.

An agent that closes ``sys.stdout`` closes nothing; one that closes file descriptor 1 or 2
gets it reopened after its turn (``repair_std_streams``), and the case's output says so.

``detach_std_streams()`` goes further, for a process whose report must survive the agents
it runs (the CLI) and for the isolation worker: ``sys.stdout`` and ``sys.stderr`` are
rebuilt over copies of file descriptors 1 and 2, so an agent that closes, redirects or
writes to those descriptors cannot reach what Python writes. With ``fd1_to_stderr`` file
descriptor 1 itself then points at standard error: what an agent writes to it directly
(``os.write(1, ...)``, a C extension, a child process) goes there, never into the report.
"""

from __future__ import annotations

import contextvars
import io
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Optional, TextIO, overload

__all__ = [
    "OUTPUT_LIMIT",
    "Capture",
    "capturing",
    "detach_std_streams",
    "install_std_stream_routers",
    "repair_std_streams",
]

#: Characters of an agent's output kept per case; the rest is counted, not kept.
OUTPUT_LIMIT = 64_000

_CURRENT: contextvars.ContextVar[Optional[Capture]] = contextvars.ContextVar(
    "agenteval_agent_output", default=None
)
_lock = threading.Lock()
_installed = 0
_saved_fds: dict[int, int] = {}


class Capture:
    """One case's captured output (thread-safe; at most ``OUTPUT_LIMIT`` characters)."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._size = 0
        self.dropped = 0
        self._lock = threading.Lock()

    def write(self, text: str) -> None:
        with self._lock:
            room = OUTPUT_LIMIT - self._size
            if room <= 0:
                self.dropped += len(text)
                return
            kept = text[:room]
            self._parts.append(kept)
            self._size += len(kept)
            self.dropped += len(text) - len(kept)

    def note(self, text: str) -> None:
        """An agenteval remark about the agent's streams (always kept)."""
        with self._lock:
            self._parts.append(f"\n[agenteval: {text}]\n")

    def text(self) -> str:
        with self._lock:
            tail = f"\n[agenteval: {self.dropped:,} more characters not kept]" if self.dropped else ""
            return "".join(self._parts) + tail


class _Router(io.TextIOBase):
    """Stands in for ``sys.stdout`` / ``sys.stderr`` (see the module docstring)."""

    def __init__(self, stream: TextIO, fd: int) -> None:
        super().__init__()
        self._stream = stream
        self._fd = fd

    @property
    def stream(self) -> TextIO:
        if getattr(self._stream, "closed", False):  # the agent closed the real stream
            self._stream = open(os.dup(self._fd), "w", encoding="utf-8", errors="replace", closefd=True)
        return self._stream

    def write(self, text: str) -> int:
        capture = _CURRENT.get()
        if capture is not None:
            capture.write(str(text))
            return len(text)
        return self.stream.write(text)

    def flush(self) -> None:
        if _CURRENT.get() is None:
            self.stream.flush()

    def close(self) -> None:
        """Closing it closes nothing (an agent must not end agenteval's output)."""

    @property
    def closed(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return _CURRENT.get() is None and self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]  # TextIOBase's attribute, read from the stream
        return getattr(self.stream, "encoding", "utf-8")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@overload
def _descriptor(stream: Any, default: int) -> int: ...
@overload
def _descriptor(stream: Any, default: None = None) -> Optional[int]: ...
def _descriptor(stream: Any, default: Optional[int] = None) -> Optional[int]:
    """The file descriptor under ``stream`` (``default`` when it has none: a test runner's)."""
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return default


def _install() -> None:
    global _installed
    with _lock:
        _installed += 1
        if _installed > 1:
            return
        for fd in (1, 2):
            if fd not in _saved_fds:
                try:
                    _saved_fds[fd] = os.dup(fd)
                except OSError:
                    pass
        if not isinstance(sys.stdout, _Router) and sys.stdout is not None:
            sys.stdout = _Router(sys.stdout, _descriptor(sys.stdout, 1))
        if not isinstance(sys.stderr, _Router) and sys.stderr is not None:
            sys.stderr = _Router(sys.stderr, _descriptor(sys.stderr, 2))


def _uninstall() -> None:
    global _installed
    with _lock:
        _installed -= 1
        if _installed > 0:
            return
        if isinstance(sys.stdout, _Router):
            sys.stdout = sys.stdout._stream
        if isinstance(sys.stderr, _Router):
            sys.stderr = sys.stderr._stream


def install_std_stream_routers() -> None:
    """Routers for the rest of the process (the isolation worker): closing ``sys.stdout``
    or ``sys.stderr`` closes nothing."""
    _install()


@contextmanager
def capturing() -> Iterator[Capture]:
    """Capture what the current context (a case's task and its threads) prints."""
    capture = Capture()
    _install()
    token = _CURRENT.set(capture)
    try:
        yield capture
    finally:
        _CURRENT.reset(token)
        _uninstall()


def _over_copy(stream: TextIO, line_buffered: bool) -> TextIO:
    """A text stream like ``stream`` over a copy of its file descriptor."""
    copy = os.dup(stream.fileno())
    return open(
        copy,
        "w",
        encoding=getattr(stream, "encoding", None) or "utf-8",
        errors=getattr(stream, "errors", None) or "strict",
        buffering=1 if line_buffered or getattr(stream, "line_buffering", False) else -1,
        closefd=True,
    )


def detach_std_streams(*, fd1_to_stderr: bool, line_buffered: bool = False) -> Callable[[], None]:
    """Rebuild ``sys.stdout`` and ``sys.stderr`` over copies of their file descriptors (see
    the module docstring; ``line_buffered``: each line is written at once, in order with
    what is written to the descriptors directly); returns what puts them back. A stream
    that is not on file descriptor 1 (2) is left as it is (a test runner's capture)."""
    undo: list[Callable[[], None]] = []
    for name, fd in (("stdout", 1), ("stderr", 2)):
        stream = getattr(sys, name)
        if stream is None or _descriptor(stream) != fd:
            continue
        stream.flush()
        detached = _over_copy(stream, line_buffered)
        setattr(sys, name, detached)

        def put_back(name: str = name, stream: TextIO = stream, detached: TextIO = detached) -> None:
            if getattr(sys, name) is detached:
                setattr(sys, name, stream)
            try:
                detached.flush()
                detached.close()
            except (OSError, ValueError):
                pass

        undo.append(put_back)
    if fd1_to_stderr and undo and _descriptor(sys.stdout) not in (None, 1):
        real_stdout = os.dup(1)
        os.dup2(2, 1)

        def point_back() -> None:
            try:
                os.dup2(real_stdout, 1)
                os.close(real_stdout)
            except OSError:
                pass

        undo.insert(0, point_back)

    def put_all_back() -> None:
        for step in reversed(undo):
            step()

    return put_all_back


def repair_std_streams(capture: Optional[Capture] = None) -> None:
    """Reopen file descriptors 1 and 2 if the agent closed them (noted in ``capture``)."""
    for fd, name in ((1, "standard output"), (2, "standard error")):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        saved = _saved_fds.get(fd)
        if saved is None:
            continue
        try:
            os.dup2(saved, fd)
        except OSError:
            continue
        if capture is not None:
            capture.note(
                f"file descriptor {fd} ({name}) was found closed after this case's turn (closed by an "
                "agent); agenteval reopened it"
            )
