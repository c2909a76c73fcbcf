"""Turning command-line PATH arguments into eval files, case selections and configs.

``PATH`` is a file, a folder (searched recursively for ``*.test.json``,
``*.evalset.json`` and the eval files of installed data formats, e.g. ``*-dataset.json``), or
``file.json:case_1,case_2`` (ADK's selection syntax; an unknown
case id is an error here, where ADK skips it silently). A path the system cannot take (a
name over 255 bytes) and, in a folder, an eval file whose name holds a line break or
another control character are errors, never skipped.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .._terminal import visible
from ..errors import DataError

__all__ = ["EvalTarget", "expand_targets", "CONFIG_FILE_NAME"]

CONFIG_FILE_NAME = "test_config.json"
_EVAL_FILE = re.compile(r".*\.(test|evalset)\.json", re.IGNORECASE | re.DOTALL)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: The longest file name (one path component) most file systems take, in bytes.
MAX_NAME_BYTES = 255
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


def _eval_files_under(folder: Path, patterns: tuple[str, ...] = ()) -> list[Path]:
    """Eval files below ``folder`` (ADK's names, and the installed formats' ``patterns``),
    skipping hidden folders (``.venv``, ``.git``, ``.adk``...) and dependency folders.
    ``DataError`` for an eval file whose name has a control character (a line break...): no
    tool or log could name it unambiguously."""
    found = []
    for root, dirs, files in os.walk(folder, onerror=_raise):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIPPED_FOLDERS]
        for name in files:
            if not _EVAL_FILE.fullmatch(name) and not any(fnmatch.fnmatch(name, p) for p in patterns):
                continue
            if _CONTROL.search(name):
                msg = (
                    f"the eval file {visible(name)!r} has a control character (a line break, tab or "
                    "escape) in its name; rename it"
                )
                raise DataError(msg, source=visible(root))
            found.append(Path(root) / name)
    return sorted(found)


def _raise(error: OSError) -> None:
    raise error


def _check_length(text: str) -> None:
    """``DataError`` when a part of the path is longer than a file system takes."""
    for part in Path(text).parts:
        size = len(os.fsencode(part))
        if size > MAX_NAME_BYTES:
            shown = part if len(part) <= 60 else f"{part[:40]}…{part[-12:]}"
            msg = (
                f"a file or folder name of {size:,} bytes ({shown!r}); a name is at most "
                f"{MAX_NAME_BYTES} bytes: give a shorter path"
            )
            raise DataError(msg, source="PATH argument")


def _exists(text: str, *, strict: bool = False) -> bool:
    """Whether ``text`` names something; a path too long for the system is ``False``, or
    with ``strict`` a ``DataError`` saying so."""
    if "\x00" in text:
        raise DataError("the path has a NUL character, which no file name can hold", source=visible(text))
    try:
        return Path(text).exists()
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            raise
        if strict:
            size = len(os.fsencode(text))
            msg = f"the path is {size:,} bytes, longer than the system takes; give a shorter path"
            raise DataError(msg, source="PATH argument") from None
        return False


def _split(argument: str) -> tuple[str, Optional[tuple[str, ...]]]:
    if _exists(argument):
        return argument, None
    start = 2 if _DRIVE.match(argument) else 0
    colon = argument.find(":", start)
    if colon < 0:
        return argument, None
    ids = tuple(i.strip() for i in argument[colon + 1 :].split(",") if i.strip())
    return argument[:colon], ids or None


def check_named(arguments: Sequence[str]) -> None:
    """``DataError`` for a PATH argument that names no file (``""``, blanks, ``":case"``):
    ``Path("")`` is the current folder, never what an empty argument (an unset shell
    variable) meant."""
    for argument in arguments:
        if not _split(argument)[0].strip():
            raise DataError(
                f"{argument!r} names no file: give an eval file or folder (is a shell variable unset?)",
                source="PATH argument",
            )


def expand_targets(arguments: list[str]) -> list[EvalTarget]:
    """Resolve PATH arguments; the same file named twice has its selections merged."""
    check_named(arguments)
    merged: dict[Path, Optional[list[str]]] = {}
    for argument in arguments:
        path_text, ids = _split(argument)
        _check_length(path_text)
        path = Path(path_text)
        if not _exists(path_text, strict=True):
            raise DataError("no such file or folder", source=path_text)
        if path.is_dir():
            if ids:
                raise DataError(
                    "a case selection (':case_id') applies to a file, not a folder", source=argument
                )
            from ._formats import eval_file_patterns

            patterns = eval_file_patterns()
            files = _eval_files_under(path, patterns)
            if not files:
                names = ", ".join(("*.test.json", "*.evalset.json", *patterns))
                msg = f"the folder has no eval files ({names}); name a file directly"
                raise DataError(msg, source=path_text)
            for file in files:
                merged[file] = None
            continue
        if path in merged:
            known = merged[path]
            merged[path] = (
                None if known is None or ids is None else [*known, *[i for i in ids if i not in known]]
            )
        else:
            merged[path] = list(ids) if ids else None
    return [EvalTarget(path=p, case_ids=tuple(ids) if ids else None) for p, ids in merged.items()]
