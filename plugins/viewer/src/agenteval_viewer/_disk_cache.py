"""The summaries and case indexes of finished runs, kept on disk between ``agenteval view``
sessions (gzip JSON under ``$AGENTEVAL_VIEWER_CACHE``, else ``$XDG_CACHE_HOME/agenteval/viewer``,
else ``~/.cache/agenteval/viewer``).

Building a run's index reads every record (seconds at 100k cases); a finished run never
changes, so the second ``agenteval view`` of it serves the index from here at once. An entry's
name is a hash of the run folder's path, its files' modification times and sizes, and the
viewer's data code (its version and the files of ``_bundle`` and of its payload modules), so
a changed run or a new viewer never gets an old entry. The runs folder itself is never
written. Any problem with the cache (unwritable, full, damaged) only means building again: it
never fails a request.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Optional

__all__ = ["DiskCache", "default_cache_dir"]

_KEEP = 40


def default_cache_dir() -> Path:
    """``$AGENTEVAL_VIEWER_CACHE``, else ``$XDG_CACHE_HOME/agenteval/viewer``, else
    ``~/.cache/agenteval/viewer``."""
    explicit = os.environ.get("AGENTEVAL_VIEWER_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "agenteval" / "viewer"


def _file_stamp(source: Optional[str]) -> str:
    try:
        info = os.stat(source) if source else None
    except OSError:
        info = None
    return f"{source}:{info.st_mtime_ns if info else ''}:{info.st_size if info else ''}"


def _code_stamp(bundle: Any) -> str:
    """The viewer's version and the stamp of the bundle's file and of each module it builds
    the payloads with (``PAYLOAD_MODULES``)."""
    from . import __version__

    modules = [bundle, *getattr(bundle, "PAYLOAD_MODULES", ())]
    return ":".join([__version__, *(_file_stamp(getattr(m, "__file__", None)) for m in modules)])


class DiskCache:
    """Gzipped payloads by key in ``folder`` (the newest ``_KEEP`` entries are kept)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def key(self, run_folder: Path, stamp: tuple[int, ...], bundle: Any, kind: str) -> str:
        text = "\0".join([str(Path(run_folder).resolve()), repr(stamp), _code_stamp(bundle), kind])
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def get(self, key: str) -> Optional[bytes]:
        """The gzipped payload, or ``None`` when absent (the caller checks it unpacks)."""
        path = self.folder / f"{key}.json.gz"
        try:
            gzipped = path.read_bytes()
        except OSError:
            return None
        try:
            os.utime(path)  # recently used: kept longest
        except OSError:
            pass
        return gzipped

    def put(self, key: str, gzipped: bytes) -> None:
        """Store (atomically); then drop the least recently used entries past ``_KEEP``."""
        path = self.folder / f"{key}.json.gz"
        temporary = self.folder / f".{key}.{os.getpid()}.tmp"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(gzipped)
            os.replace(temporary, path)
        except OSError:
            try:
                temporary.unlink(missing_ok=True)
            except OSError:
                pass
            return
        self._prune()

    def _prune(self) -> None:
        try:
            entries = sorted(self.folder.glob("*.json.gz"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
            for old in entries[_KEEP:]:
                old.unlink(missing_ok=True)
        except OSError:
            pass
