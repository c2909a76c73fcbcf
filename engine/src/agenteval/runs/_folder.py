"""Writing a run folder as the run goes: ``manifest.json`` replaced atomically,
``results.jsonl`` appended and flushed one record at a time (and its ``index.jsonl`` line
right after it), ``summary.json`` at the end.

Each run has a folder of its own (``<runs dir>/<run_id>``), so two runs at once never
share a file; a resumed run takes an exclusive lock on its folder, so two processes can
never append to the same ``results.jsonl``.
"""

from __future__ import annotations

import datetime
import errno
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, Optional

import pydantic_core

from .._jsonsafe import writable
from .._results import CaseResult
from .._secrets import Scrubber, scrubbed_bytes
from .._verdicts import verdict_hints
from ..errors import ConfigError, RecordingError
from ._briefs import BRIEFS, CaseBrief, brief_line
from ._index import INDEX, INDEX_VERSION, criterion_arrays, index_entry, read_index
from ._records import CaseRecord, Manifest, SummaryDocument, record_line
from ._scores import ScoresFile, score_data

__all__ = [
    "RUNS_DIR_ENV",
    "RecordingError",
    "RunWriter",
    "default_runs_dir",
    "new_run_id",
    "utc_now",
]

#: The environment variable that moves the runs folder (``--runs-dir`` wins over it).
RUNS_DIR_ENV = "AGENTEVAL_RUNS_DIR"
MANIFEST = "manifest.json"
RESULTS = "results.jsonl"
SUMMARY = "summary.json"
#: what each finished eval set adds to the summary, a line per set as it finishes
SET_SUMMARIES = "set_summaries.jsonl"
#: The judge calibration cards of the run (``agenteval calibrate``; ``agenteval.calibration``).
CALIBRATION = "calibration.json"
_LOCK = ".lock"


def utc_now() -> str:
    """The current time as ISO 8601 UTC with microseconds."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")


def new_run_id() -> str:
    """A run id that sorts by start time and is unique even for runs started in the same
    microsecond (a random suffix; the folder is also created exclusively)."""
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.strftime("%Y%m%dT%H%M%S") + f"{now.microsecond:06d}Z-{secrets.token_hex(3)}"


def default_runs_dir() -> Path:
    """``$AGENTEVAL_RUNS_DIR``, else ``.agenteval/runs`` under the current directory."""
    return Path(os.environ.get(RUNS_DIR_ENV) or Path(".agenteval") / "runs")


def _unwritable(folder: Path, exc: OSError) -> ConfigError:
    why = exc.strerror or str(exc)
    return ConfigError(
        f"cannot write the run folder {str(folder)!r}: {why}. Give a writable folder with "
        f"--runs-dir DIR (or ${RUNS_DIR_ENV}), or run with --no-record to keep no record"
    )


class RunWriter:
    """Owns one run folder while a run writes it (see the module docstring)."""

    def __init__(
        self,
        folder: Path,
        manifest: Manifest,
        results: IO[bytes],
        lock: Optional[IO[str]],
        index: Optional[IO[bytes]] = None,
    ) -> None:
        self.folder = folder
        self.manifest = manifest
        self._results = results
        self._index = index
        self._lock = lock
        self._briefs: Optional[IO[bytes]] = None
        self._set_summaries: Optional[IO[bytes]] = None
        #: ``scores.jsonl`` (``agenteval.runs._scores``), written beside the index
        self._scores: Optional[ScoresFile] = None
        self.records_written = 0
        #: several runs per case: where each run of a case not yet briefed was written
        #: (``append_brief`` writes them in the case's brief, so a reader seeks there)
        self._places: dict[tuple[int, str], dict[int, tuple[int, int]]] = {}
        #: credential values are read once per run (records are bulk text)
        self._scrub = Scrubber()

    @property
    def run_id(self) -> str:
        return self.manifest.run_id

    def scrub(self, text: str) -> str:
        """``text`` with the credentials this writer keeps out of the folder hidden."""
        return self._scrub(text)

    @classmethod
    def create(cls, runs_dir: Path, manifest: Manifest) -> RunWriter:
        """Make ``runs_dir/<run_id>`` and write the manifest; ``ConfigError`` (exit 2,
        before any work) when the folder cannot be made or written."""
        runs_dir = runs_dir.resolve()
        folder = runs_dir / manifest.run_id
        try:
            runs_dir.mkdir(parents=True, exist_ok=True)
            folder.mkdir()  # exclusive: never two runs in one folder
            lock = _lock(folder)
            results = open(folder / RESULTS, "ab")
            index = open(folder / INDEX, "ab")
        except OSError as exc:
            raise _unwritable(folder, exc) from exc
        manifest.index_version = INDEX_VERSION
        writer = cls(folder, manifest, results, lock, index)
        try:
            writer._scores = ScoresFile.create(folder)
            writer.write_manifest()
        except RecordingError as exc:
            cause = exc.__cause__  # the OSError _replace met
            raise _unwritable(folder, cause if isinstance(cause, OSError) else OSError(str(exc))) from exc
        return writer

    @classmethod
    def reopen(cls, folder: Path, manifest: Manifest) -> RunWriter:
        """Continue writing an existing run folder (``--resume``): a truncated last line
        (a killed process) is cut off first, so new records start on a line of their own.
        The index keeps only the lines that match their records (``_revalidate_index``), so
        the lines the resumed run appends are never covered by stale ones."""
        try:
            lock = _lock(folder)
            path = folder / RESULTS
            _drop_partial_line(path)
            _drop_partial_line(folder / INDEX)
            _revalidate_index(folder)
            # the briefs of an earlier session are not sealed by the next summary: readers
            # combine the cases they lack from the records
            (folder / BRIEFS).unlink(missing_ok=True)
            (folder / SET_SUMMARIES).unlink(missing_ok=True)
            results = open(path, "ab")
            index = open(folder / INDEX, "ab")
            scores = ScoresFile.reopen(folder, results.tell())
        except OSError as exc:
            raise _unwritable(folder, exc) from exc
        manifest.index_version = INDEX_VERSION  # every line left matches its record
        writer = cls(folder, manifest, results, lock, index)
        writer._scores = scores
        writer.write_manifest()
        return writer

    def write_manifest(self) -> None:
        """Replace ``manifest.json`` atomically (a reader sees the old or the new one)."""
        self._replace(MANIFEST, self.manifest.dump())

    def write_summary(self, summary: SummaryDocument) -> None:
        """Replace ``summary.json`` with ``summary``, sealed (``SummaryDocument.sealed``) with
        the sizes of the records it sums up."""
        sizes = {
            "results_bytes": self._results.tell(),
            "index_bytes": self._index.tell() if self._index is not None else None,
            "briefs_bytes": self._briefs.tell() if self._briefs is not None else None,
            **(self._scores.seal() if self._scores is not None else {}),
        }
        self._replace(SUMMARY, summary.model_copy(update=sizes).sealed())

    def append(
        self, record: CaseRecord, line: Optional[bytes] = None, preview: Optional[dict[str, str]] = None
    ) -> None:
        """Append one record and flush it, then its index line: a killed process loses only
        the cases in flight (a record whose index line was lost is still read). ``line``:
        the record's ``record_line``, when it was encoded already (by a helper process);
        ``preview``: its index line's ``preview_of``, made there too (the record's actual turns
        are then not read here)."""
        # the criteria's arrays are the same in the index line and the scores line: made once
        criteria = criterion_arrays(record)
        self.append_lines(
            (record.eval_set_index, record.case_id, record.run_index),
            record_line(record) if line is None else line,
            lambda offset, length: _json_bytes(index_entry(record, offset, length, criteria, preview)),
            lambda offset, length: score_data(record, offset, length, criteria),
        )

    def append_lines(
        self,
        key: tuple[int, str, int],
        record: bytes,
        index_line: Callable[[int, int], bytes],
        scores_line: Callable[[int, int], bytes],
    ) -> None:
        """Append the record ``key`` as its lines: ``record`` its ``results.jsonl`` line,
        ``index_line`` and ``scores_line`` its index and scores lines' JSON for the offset and
        length it is written at; each scrubbed and flushed in turn. ``append`` gives a
        record's own lines; ``agenteval merge`` those a shard's writer wrote, copied (the
        same bytes, without parsing and encoding the record again)."""
        line = scrubbed_bytes(record, self._scrub)
        try:
            offset = self._results.tell()  # append mode: the end of the file
            self._results.write(line)
            self._results.flush()
        except OSError as exc:
            raise _recording_failed(self.folder, exc) from exc
        self.records_written += 1
        length = len(line)
        if self.manifest.num_runs != 1:
            self._places.setdefault(key[:2], {})[key[2]] = (offset, length)
        if self._index is not None:
            try:
                self._index.write(scrubbed_bytes(index_line(offset, length), self._scrub) + b"\n")
                self._index.flush()
            except OSError as exc:
                raise _recording_failed(self.folder, exc) from exc
        if self._scores is not None:
            try:
                self._scores.append_data(scores_line(offset, length), self._scrub)
            except OSError as exc:
                raise _recording_failed(self.folder, exc) from exc

    def append_brief(self, brief: CaseBrief, case: Optional[CaseResult] = None) -> None:
        """Append a finished case's combined brief to ``briefs.jsonl`` (a run of several
        runs per case; what readers list without combining the case's runs again), with
        where this writer wrote each of its runs (when it wrote them all: not a case resumed
        from an earlier session's records) and, given the ``case`` result, its verdicts'
        hints."""
        written = self._places.pop((brief.entry.index, brief.case_id), {})
        runs = range(1, max(written, default=0) + 1)
        places = [written[run] for run in runs] if all(run in written for run in runs) else None
        hints = verdict_hints(case) if case is not None else None
        line = brief_line(brief, places, hints)
        self._briefs = self._append_line(BRIEFS, self._briefs, line)

    def append_set_summary(self, index: int, state: dict) -> None:
        """Append what finished eval set ``index`` adds to the summary (``state``:
        ``SummaryBuilder.set_state``) to ``set_summaries.jsonl``, with the size of the records
        it sums up: a reader of a run that stopped without its summary reads the records of
        the other sets only (``RecordedRun.result_summary``)."""
        line = {
            "run_id": self.run_id,
            "eval_set_index": index,
            "results_bytes": self._results.tell(),
            "state": state,
        }
        self._set_summaries = self._append_line(SET_SUMMARIES, self._set_summaries, line)

    def _append_line(self, name: str, handle: Optional[IO[bytes]], value: dict) -> IO[bytes]:
        """Append ``value`` as a line of the folder's file ``name`` (scrubbed, flushed),
        through ``handle`` once it is open; the handle."""
        line = self._scrub(_json(value)).encode("utf-8", "surrogatepass") + b"\n"
        try:
            if handle is None:
                handle = open(self.folder / name, "ab")
            handle.write(line)
            handle.flush()
        except OSError as exc:
            raise _recording_failed(self.folder, exc) from exc
        return handle

    def close(self) -> None:
        if self._scores is not None:
            self._scores.close()
        for handle in (self._results, self._index, self._briefs, self._set_summaries, self._lock):
            if handle is not None:
                try:
                    if handle is self._results:
                        handle.flush()
                        os.fsync(handle.fileno())
                    handle.close()
                except OSError:
                    pass

    def _replace(self, name: str, text: str) -> None:
        target = self.folder / name
        temporary = self.folder / f".{name}.{os.getpid()}.tmp"
        try:
            with open(temporary, "w", encoding="utf-8", errors="surrogatepass") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, target)
        except OSError as exc:
            try:
                temporary.unlink(missing_ok=True)
            except OSError:
                pass
            raise _recording_failed(self.folder, exc) from exc


def _recording_failed(folder: Path, exc: OSError) -> RecordingError:
    full = exc.errno in (errno.ENOSPC, errno.EDQUOT)
    why = "the disk is full" if full else (exc.strerror or str(exc))
    return RecordingError(f"could not write to the run folder {str(folder)!r}: {why}")


#: How far back from the end of a file a line end is looked for at a time (``complete_end``).
_TAIL_STEP = 64 * 1024


def complete_end(path: Path) -> int:
    """The byte offset just past the last complete line of ``path``, one of the run folder's
    line files (a line its writer is still writing, or a killed writer cut, is not complete;
    its reader stops there): read back from the file's end a block at a time; 0 when it has
    no complete line or cannot be read."""
    try:
        with open(path, "rb") as handle:
            end = handle.seek(0, os.SEEK_END)
            while end > 0:
                start = max(0, end - _TAIL_STEP)
                handle.seek(start)
                found = handle.read(end - start).rfind(b"\n")
                if found >= 0:
                    return start + found + 1
                end = start
    except OSError:
        pass
    return 0


def writer_alive(folder: Path) -> Optional[bool]:
    """Whether a process is writing this run folder now (it holds the folder's lock): a
    manifest that still says ``running`` after a ``kill -9`` belongs to no live writer.
    ``None`` where it cannot be told (no advisory locks, no lock file)."""
    try:
        import fcntl
    except ImportError:
        return None
    try:
        fd = os.open(folder / _LOCK, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True  # held exclusively: the writer is alive
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def _lock(folder: Path) -> Optional[IO[str]]:
    """An exclusive, non-blocking lock on the folder (POSIX); released when the process ends."""
    handle = open(folder / _LOCK, "a", encoding="utf-8")
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks; one folder per run still holds
        return handle
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise ConfigError(
            f"the run folder {str(folder)!r} is in use by another agenteval process; "
            "wait for it to finish, or start a new run"
        ) from None
    return handle


def _json(value: dict) -> str:
    return _json_bytes(value).decode("utf-8")


def _json_bytes(value: Any) -> bytes:
    """``value`` (plain data) as compact JSON, UTF-8 (``writable`` first when pydantic's
    encoder refuses it)."""
    try:
        return pydantic_core.to_json(value)
    except pydantic_core.PydanticSerializationError:  # a lone surrogate, an odd rubric value
        return pydantic_core.to_json(writable(value))


def _revalidate_index(folder: Path) -> None:
    """Rewrite the index with only the lines that match their records (``read_index``), when
    any does not: lines left from a ``results.jsonl`` that was lost or cut, or from a writer
    killed in the middle of a record, would otherwise stand before the lines the resumed run
    appends, and cover them."""
    index = folder / INDEX
    if not index.exists():
        return
    with open(index, "rb") as handle:
        lines = sum(1 for _ in handle)
    kept = [line for *_, line in read_index(folder, RESULTS, verify=True) or ()]
    if len(kept) == lines:
        return
    temporary = folder / f".{INDEX}.{os.getpid()}.tmp"
    temporary.write_bytes(b"".join(kept))
    os.replace(temporary, index)


def _drop_partial_line(path: Path) -> None:
    if not path.exists():
        return
    size = path.stat().st_size
    if size == 0:
        return
    with open(path, "rb+") as handle:
        handle.seek(max(0, size - 1))
        if handle.read(1) == b"\n":
            return
        # Walk back to the last complete line.
        position = size
        chunk = 65536
        while position > 0:
            start = max(0, position - chunk)
            handle.seek(start)
            block = handle.read(position - start)
            cut = block.rfind(b"\n")
            if cut != -1:
                handle.truncate(start + cut + 1)
                return
            position = start
        handle.truncate(0)
