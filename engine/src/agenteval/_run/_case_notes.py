"""What planning notes of each case of an eval file as it reads it, in a form another
process can note for it (``EvalFiles.read``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..models import EvalCase

__all__ = ["CaseNotes"]


class CaseNotes:
    """Planning's callback for each case of the file at ``path``: ``note`` what it needs of a
    case (a static method, so that another process can run it, and a result it can send
    back), then ``add`` the note here, in file order. A problem ``note`` raises makes the
    case be read here, where ``__call__`` handles it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @staticmethod
    def note(path: Path, index: int, case: EvalCase) -> Any:
        return None

    def add(self, index: int, note: Any) -> None:
        """The note of case ``index``."""

    def __call__(self, index: int, case: EvalCase) -> None:
        self.add(index, self.note(self.path, index, case))
