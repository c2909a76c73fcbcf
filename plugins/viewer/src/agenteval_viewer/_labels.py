"""Human labels given in the case drawer, kept in the labels file of ``agenteval calibrate``.

The file is the engine's (``agenteval.calibration``): JSONL, one label a line, each line made
by ``HumanLabel.to_json`` and the whole file checked by ``read_labels`` before it replaces the
old one. A label is keyed by (case, criterion, invocation): giving one again replaces its line
in place, a new one is appended, ``None`` removes it; every other line stays byte for byte.

Writes are safe against each other: one at a time in this process (a lock per file) and
across processes (``flock`` on the file's folder where the platform has it), each written to
a temporary file in the same folder and moved over the old one. A folder that cannot be
written is refused with ``LabelRefused`` (HTTP 403) naming it and the way out; a labels file
someone broke by hand is refused (409) with the engine's ``file:line:column`` message, never
overwritten.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

from agenteval.calibration import HumanLabel, read_labels
from agenteval.errors import DataError

__all__ = ["LABELS_FILE", "LabelRefused", "LabelsFile"]

#: The labels file of a run when ``agenteval view`` has no ``--labels FILE``: in its folder.
LABELS_FILE = "labels.jsonl"

_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


class LabelRefused(Exception):
    """A label that cannot be written: ``status`` is the HTTP status, the message says why."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with _LOCKS_GUARD:
        lock = _LOCKS.setdefault(path, threading.Lock())
    with lock:
        try:
            import fcntl
        except ImportError:  # Windows: one process at a time is the user's part
            yield
            return
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            fcntl.flock(folder, fcntl.LOCK_EX)
            yield
        finally:
            os.close(folder)  # releases the lock


class LabelsFile:
    """The labels file at ``path`` (it need not exist yet)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path).absolute()

    def read(self) -> list[HumanLabel]:
        """Every label of the file (none when it is missing or blank); ``LabelRefused``
        (409) with the engine's message for a file ``agenteval calibrate`` would refuse."""
        return self._read()[1]

    def _read(self) -> tuple[list[str], list[HumanLabel]]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return [], []
        except (OSError, UnicodeDecodeError) as exc:
            raise LabelRefused(f"cannot read the labels file {str(self.path)!r}: {exc}", 409) from None
        if not text.strip():
            return text.splitlines(), []
        try:
            return text.splitlines(), read_labels(self.path)
        except DataError as exc:
            raise LabelRefused(f"{exc}; fix the labels file by hand before labelling here", 409) from None

    def writable(self) -> Optional[str]:
        """Why no label can be written here, or ``None`` when one can."""
        folder = self.path.parent
        if not folder.is_dir():
            return f"the folder {str(folder)!r} of the labels file does not exist"
        if not os.access(folder, os.W_OK | os.X_OK) or (
            self.path.exists() and not os.access(self.path, os.W_OK)
        ):
            return (
                f"{str(folder)!r} is read-only: the labels cannot be written to {self.path.name}. "
                "Start agenteval view with --labels FILE in a folder you can write"
            )
        return None

    def put(self, key: tuple[str, str, Optional[str]], label: Optional[HumanLabel]) -> list[HumanLabel]:
        """Give ``key`` (case id, criterion, invocation id or ``None``) the ``label`` (its
        line replaced, or appended), or remove it (``None``); every label afterwards."""
        refused = self.writable()
        if refused:
            raise LabelRefused(refused, 403)
        with _locked(self.path):
            lines, labels = self._read()
            found = next((item for item in labels if item.key == key), None)
            text = None if label is None else json.dumps(label.to_json(), ensure_ascii=False)
            if found is not None:
                lines[found.line - 1 : found.line] = [] if text is None else [text]
            elif text is not None:
                lines.append(text)
            self._replace("".join(line + "\n" for line in lines))
            return self._read()[1]

    def _replace(self, text: str) -> None:
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            if text.strip():
                read_labels(temporary)  # what calibrate will read: checked before it replaces the file
            if self.path.exists():
                os.chmod(temporary, self.path.stat().st_mode & 0o777)
            os.replace(temporary, self.path)
        except PermissionError as exc:
            raise LabelRefused(f"cannot write {str(self.path)!r}: {exc.strerror or exc}", 403) from None
        except DataError as exc:
            raise LabelRefused(str(exc), 400) from None
        finally:
            with contextlib.suppress(OSError):
                temporary.unlink()
