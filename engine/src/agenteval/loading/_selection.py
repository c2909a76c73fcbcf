"""Turning command-line PATH arguments into eval files, case selections and configs.

``PATH`` is a file, a folder (searched recursively for ``*.test.json`` and
``*.evalset.json``), or ``file.json:case_1,case_2`` (ADK's selection syntax; an unknown
case id is an error here, where ADK skips it silently).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..errors import DataError

__all__ = ["EvalTarget", "expand_targets", "CONFIG_FILE_NAME"]

CONFIG_FILE_NAME = "test_config.json"
_EVAL_FILE = re.compile(r".*\.(test|evalset)\.json$", re.IGNORECASE)
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


@dataclass(frozen=True)
class EvalTarget:
    """One eval file, the case ids selected in it (``None`` = all), and its config."""

    path: Path
    case_ids: Optional[tuple[str, ...]] = None

    def beside_config(self) -> Optional[Path]:
        """``test_config.json`` in the file's folder, if there is one."""
        candidate = self.path.parent / CONFIG_FILE_NAME
        return candidate if candidate.is_file() else None


_SKIPPED_FOLDERS = {"node_modules", "__pycache__", "site-packages", "venv"}


def _eval_files_under(folder: Path) -> list[Path]:
    """Eval files below ``folder``, skipping hidden folders (``.venv``, ``.git``,
    ``.adk``...) and dependency folders."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIPPED_FOLDERS]
        found.extend(Path(root) / name for name in files if _EVAL_FILE.match(name))
    return sorted(found)


def _split(argument: str) -> tuple[str, Optional[tuple[str, ...]]]:
    if Path(argument).exists():
        return argument, None
    start = 2 if _DRIVE.match(argument) else 0
    colon = argument.find(":", start)
    if colon < 0:
        return argument, None
    ids = tuple(i.strip() for i in argument[colon + 1 :].split(",") if i.strip())
    return argument[:colon], ids or None


def expand_targets(arguments: list[str]) -> list[EvalTarget]:
    """Resolve PATH arguments; the same file named twice has its selections merged."""
    merged: dict[Path, Optional[list[str]]] = {}
    for argument in arguments:
        path_text, ids = _split(argument)
        path = Path(path_text)
        if not path.exists():
            raise DataError("no such file or folder", source=path_text)
        if path.is_dir():
            if ids:
                raise DataError(
                    "a case selection (':case_id') applies to a file, not a folder", source=argument
                )
            files = _eval_files_under(path)
            if not files:
                msg = "the folder has no *.test.json or *.evalset.json files; name a file directly"
                raise DataError(msg, source=path_text)
            for file in files:
                merged[file] = None
            continue
        if path in merged and (merged[path] is None or ids is None):
            merged[path] = None
        elif path in merged:
            merged[path] = [*merged[path], *[i for i in ids if i not in merged[path]]]
        else:
            merged[path] = list(ids) if ids else None
    return [EvalTarget(path=p, case_ids=tuple(ids) if ids else None) for p, ids in merged.items()]
