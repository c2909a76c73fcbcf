"""A content-addressed, on-disk cache of judge answers (SQLite).

The key is a SHA-256 over the provider's identity (provider, model, endpoint), the whole
request (prompt, system instruction, schema, generation settings) and the sample index,
so the N samples of one question stay N distinct answers and any change to a prompt or a
setting misses. Only successful answers are stored; errors never are.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any, Optional

from ._types import JudgeRequest, JudgeResponse

__all__ = ["DEFAULT_CACHE_DIR", "JudgeCache", "cache_key"]

DEFAULT_CACHE_DIR = Path(".agenteval")
_SCHEMA = "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, response TEXT NOT NULL, created REAL)"


def cache_key(identity: dict[str, Any], request: JudgeRequest, sample_index: int) -> str:
    """The cache key of one sample of one question to one model."""
    material = {
        "v": 1,
        "model": identity,
        "request": request.model_dump(mode="json"),
        "sample": sample_index,
    }
    blob = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class JudgeCache:
    """``get`` / ``put`` judge answers in ``<folder>/judge-cache.sqlite3``."""

    def __init__(self, folder: Path = DEFAULT_CACHE_DIR) -> None:
        self.folder = Path(folder)
        self.path = self.folder / "judge-cache.sqlite3"
        self._connection: Optional[sqlite3.Connection] = None

    @property
    def _db(self) -> sqlite3.Connection:
        # Opened on first use: a run without judge criteria creates no file.
        if self._connection is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.execute(_SCHEMA)
        return self._connection

    def get(self, key: str) -> Optional[JudgeResponse]:
        """The stored answer for ``key`` (marked ``cached``), or ``None``."""
        row = self._db.execute("SELECT response FROM answers WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return JudgeResponse.model_validate_json(row[0]).model_copy(update={"cached": True})

    def put(self, key: str, response: JudgeResponse) -> None:
        """Store a successful answer."""
        self._db.execute(
            "INSERT OR REPLACE INTO answers (key, response, created) VALUES (?, ?, julianday('now'))",
            (key, response.model_copy(update={"cached": False}).model_dump_json()),
        )

    def close(self) -> None:
        """Close the database (it reopens on next use)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None
