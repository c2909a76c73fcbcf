"""A content-addressed, on-disk cache of judge answers (SQLite) that never fails a run.

The key is a SHA-256 over the provider's identity (provider, model, endpoint), the whole
request (prompt, system instruction, schema, generation settings) and the sample index,
so the N samples of one question stay N distinct answers and any change to a prompt or a
setting misses. Only successful answers are stored; errors never are. An answer is
stored with the credential values in use (the environment's keys, a ``judge_model_config``
key: ``agenteval._secrets``) replaced by ``[redacted]``, so a judge or an agent that echoes
a key leaves none on disk; the key, a hash of the question, is unchanged, so the cache
stays content-addressed (a hit serves the redacted answer).

Each row carries a checksum of its key and answer: a row whose bytes were damaged is a
miss (the question is asked again and the row replaced), never served.

The cache is an optimisation, so its failures are not the run's: a file that cannot be
opened, is not a database, has another schema, or cannot be written (read-only, disk full)
gives one warning (``warnings`` holds it, ``on_warning`` is called with it) and the run
goes on without the cache (or without storing, when reading still works). A database
briefly locked by another run is skipped for that one access, silently.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

from pydantic import ValidationError

from .._secrets import Scrubber
from ._types import JudgeRequest, JudgeResponse

__all__ = ["DEFAULT_CACHE_DIR", "JudgeCache", "cache_key"]

DEFAULT_CACHE_DIR = Path(".agenteval")
_FILE_NAME = "judge-cache.sqlite3"
_COLUMNS = ("key", "response", "checksum", "created")
_CREATE = (
    "CREATE TABLE IF NOT EXISTS answers "
    "(key TEXT PRIMARY KEY, response TEXT NOT NULL, checksum TEXT, created REAL)"
)
#: Errors a damaged, foreign, read-only or full database (or folder) can raise.
_CACHE_ERRORS = (sqlite3.Error, OSError, ValueError, MemoryError)
_logger = logging.getLogger("agenteval.judging")


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


def row_checksum(key: str, response: str) -> str:
    """What a row's ``checksum`` column holds: SHA-256 over its key and answer."""
    return hashlib.sha256(f"{key}\x00{response}".encode("utf-8", "surrogatepass")).hexdigest()


def _busy(exc: BaseException) -> bool:
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


class JudgeCache:
    """``get`` / ``put`` judge answers in ``<folder>/judge-cache.sqlite3``.

    Attributes:
        warnings: what went wrong with the cache, one message per problem (at most two:
            reading and writing), each saying what the run does instead.
        damaged: rows found damaged (checksum or content) and treated as misses.
        readable / writable: whether the cache is still used for hits / for storing.
    """

    def __init__(
        self,
        folder: Path = DEFAULT_CACHE_DIR,
        *,
        on_warning: Optional[Callable[[str], None]] = None,
    ) -> None:
        self.folder = Path(folder)
        self.path = self.folder / _FILE_NAME
        self.on_warning = on_warning
        self.warnings: list[str] = []
        self.damaged = 0
        self.readable = self.writable = True
        self._connection: Optional[sqlite3.Connection] = None
        self._scrub = Scrubber()

    # -- degrading --------------------------------------------------------------------
    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        if self.on_warning is not None:
            self.on_warning(message)
        else:
            _logger.warning("%s", message)

    def _give_up(self, doing: str, exc: BaseException) -> None:
        """Stop using the cache at all (one warning)."""
        if self.readable:
            self._warn(
                f"judge cache {self.path}: {doing} failed ({type(exc).__name__}: {exc}); this run "
                f"goes on without the cache (fix: delete the file, choose another --cache-dir, "
                f"or --no-cache)"
            )
        self.readable = self.writable = False
        self._drop_connection()

    def _stop_writing(self, exc: BaseException) -> None:
        """Keep serving hits, stop storing (one warning)."""
        if self.writable:
            self._warn(
                f"judge cache {self.path}: storing an answer failed ({type(exc).__name__}: {exc}); "
                f"answers of this run are used but not kept (fix: free disk space or make the "
                f"folder writable, choose another --cache-dir, or --no-cache)"
            )
        self.writable = False

    def _drop_connection(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                connection.close()
            except _CACHE_ERRORS:
                pass

    # -- the database -----------------------------------------------------------------
    def _db(self) -> Optional[sqlite3.Connection]:
        """The open database, opened on first use (a run without judge criteria creates no
        file); ``None`` once the cache was given up."""
        if not self.readable:
            return None
        if self._connection is not None:
            return self._connection
        try:
            self._connection = self._open()
        except _CACHE_ERRORS as exc:
            self._give_up("opening it", exc)
            return None
        return self._connection

    def _open(self) -> sqlite3.Connection:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            if not self.path.is_file():
                raise
        connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=2.0)
        try:
            columns = [row[1] for row in connection.execute("PRAGMA table_info(answers)")]
            if not columns:
                connection.execute(_CREATE)
            elif "checksum" not in columns and set(columns) == set(_COLUMNS) - {"checksum"}:
                # A cache of the first version: its rows have no checksum and are misses.
                try:
                    connection.execute("ALTER TABLE answers ADD COLUMN checksum TEXT")
                except sqlite3.Error:
                    self.writable = False
            elif set(columns) != set(_COLUMNS):
                raise sqlite3.DatabaseError(
                    f"its answers table has columns {columns}, not {list(_COLUMNS)} (another program's "
                    "file, or another agenteval version's)"
                )
            try:
                connection.execute("PRAGMA journal_mode=WAL")
            except sqlite3.Error:  # a read-only file: reading still works
                pass
        except BaseException:
            connection.close()
            raise
        return connection

    # -- the cache --------------------------------------------------------------------
    def get(self, key: str) -> Optional[JudgeResponse]:
        """The stored answer for ``key`` (marked ``cached``), or ``None``: not stored,
        damaged, or the cache is unusable."""
        db = self._db()
        if db is None:
            return None
        try:
            row = db.execute("SELECT response, checksum FROM answers WHERE key = ?", (key,)).fetchone()
        except _CACHE_ERRORS as exc:
            if not _busy(exc):
                self._give_up("reading it", exc)
            return None
        if row is None:
            return None
        response, checksum = row
        if not isinstance(response, str) or checksum != row_checksum(key, response):
            self.damaged += checksum is not None  # a first-version row is merely unchecked
            return None
        try:
            answer = JudgeResponse.model_validate_json(response)
        except ValidationError:
            self.damaged += 1
            return None
        return answer.model_copy(update={"cached": True})

    def put(self, key: str, response: JudgeResponse) -> None:
        """Store a successful answer, credentials redacted (a failure to store only warns, once)."""
        db = self._db()
        if db is None or not self.writable:
            return
        kept = {"cached": False, "text": self._scrub(response.text)}
        if response.model_version is not None:
            kept["model_version"] = self._scrub(response.model_version)
        text = response.model_copy(update=kept).model_dump_json()
        try:
            db.execute(
                "INSERT OR REPLACE INTO answers (key, response, checksum, created) "
                "VALUES (?, ?, ?, julianday('now'))",
                (key, text, row_checksum(key, text)),
            )
        except _CACHE_ERRORS as exc:
            if not _busy(exc):
                self._stop_writing(exc)

    def close(self) -> None:
        """Close the database (it reopens on next use)."""
        self._drop_connection()
