"""The runs a viewer server serves: each run opened once, its payloads encoded once.

A run is looked up by id in the served runs folder only (never by path). Its
``RecordedRun`` is kept while its files are unchanged, so the byte-offset index of
``results.jsonl`` is built once and every ``/cases/<row>`` is one seek. The summary and the
columnar case index are encoded to JSON (and gzip) once per state of the run's files; the
case index of at most ``keep_runs`` runs is kept.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import pydantic_core
from agenteval.plugins import gc_paused
from agenteval.runs import complete_end

from ._disk_cache import DiskCache
from ._index_patch import index_patch
from ._summary_patch import summary_patch

__all__ = ["Encoded", "NotFound", "RunStore", "encode_json"]

_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")
_MANIFEST = "manifest.json"
_RESULTS = "results.jsonl"
_SUMMARY = "summary.json"
_INDEX = "index.jsonl"


#: How many of a running run's last summaries are kept to patch from.
_SUMMARIES_KEPT = 8


def _version(stamp: tuple[int, ...]) -> str:
    """A summary's ``version``: the state of the run's files it was built from."""
    return "_".join(map(str, stamp))


class NotFound(Exception):
    """No such run, or no such row in it: the message says which."""


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def encode_json(value: Any) -> bytes:
    """Compact UTF-8 JSON a browser's ``JSON.parse`` accepts: NaN and infinities become
    ``null``, a lone surrogate is written as its ``\\u`` escape. pydantic-core's encoder
    first (four times faster than ``json``: a 100k-case index is 25 MB)."""
    try:
        return pydantic_core.to_json(value, inf_nan_mode="null")
    except (pydantic_core.PydanticSerializationError, TypeError, ValueError):
        pass  # a lone surrogate, or a value only ``json`` takes
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        text = json.dumps(_clean(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(json.loads(text), ensure_ascii=True, separators=(",", ":")).encode("ascii")


#: Payloads larger than this are kept gzipped only once gzipped (a 100k-case index: 25 MB
#: plain, 7.7 MB gzipped).
_PLAIN_LIMIT = 64 * 1024


class Encoded:
    """A JSON payload and its ETag, plain and (made on first demand, at level 1) gzipped.
    Once a payload over 64 KB is gzipped only that form is kept, and ``plain()`` unpacks it.
    A loopback client is sent the plain form until the gzip one exists, so a fresh payload
    goes out without waiting for gzip; the first answer of a payload built here
    (``first_answer``) is plain whatever the disk-cache writer gzipped meanwhile."""

    __slots__ = ("_fresh", "_gzipped", "_plain", "etag")

    def __init__(self, plain: Optional[bytes], etag: Optional[str], gzipped: Optional[bytes] = None) -> None:
        self._plain = None if gzipped is not None and (plain is None or len(plain) > _PLAIN_LIMIT) else plain
        self._gzipped = gzipped
        self._fresh = gzipped is None
        self.etag = etag

    def first_answer(self) -> bool:
        """True once: for the first answer of a payload built here (not read from the disk
        cache), which goes out plain to a loopback client whether or not the disk-cache
        writer, running beside the answer, has gzipped it yet."""
        fresh, self._fresh = self._fresh, False
        return fresh

    def plain(self) -> bytes:
        found = self._plain
        if found is not None:
            return found
        assert self._gzipped is not None
        return gzip.decompress(self._gzipped)

    def gzipped(self) -> bytes:
        if self._gzipped is None:
            plain = self._plain
            assert plain is not None
            self._gzipped = gzip.compress(plain, compresslevel=1, mtime=0)  # 3x faster than 5, 10% bigger
            if len(plain) > _PLAIN_LIMIT:
                self._plain = None
        return self._gzipped

    @property
    def has_gzip(self) -> bool:
        return self._gzipped is not None

    @property
    def worth_gzip(self) -> bool:
        """Kept gzipped, or plain and over 1 KB."""
        return self._plain is None or len(self._plain) > 1024


def file_stamp(path: Path) -> tuple[int, int]:
    """A file's (modification time in ns, size), ``(-1, -1)`` when it is not there: what a
    cache entry built from the file is keyed on."""
    try:
        info = os.stat(path)
    except OSError:
        return (-1, -1)
    return (info.st_mtime_ns, info.st_size)


@dataclass
class _Open:
    stamp: tuple[int, ...]
    run: Any  # agenteval.runs.RecordedRun
    rows: int
    #: whether the run's byte-offset index is built (``_offsets``: once, not per case)
    offsets: bool = False


class RunStore:
    """Open runs of ``runs_dir`` and their encoded payloads, safe across request threads.

    ``bundle`` provides ``run_summary(run[, scanned])``, ``case_index(run[, scanned])``,
    ``case_detail(run, row)`` (the front end's data shapes) and optionally ``scan(run)``,
    one pass over the records that the first two share; by default
    ``agenteval_viewer._bundle``.
    """

    def __init__(
        self, runs_dir: Path, bundle: Any = None, keep_runs: int = 4, disk: Optional[DiskCache] = None
    ) -> None:
        self.runs_dir = Path(runs_dir)
        self._bundle = bundle
        self._disk = disk
        self._keep = keep_runs
        self._lock = threading.Lock()
        self._run_locks: dict[str, threading.Lock] = {}
        self._open: OrderedDict[str, _Open] = OrderedDict()
        self._payloads: OrderedDict[tuple[str, str], tuple[tuple[int, ...], Encoded]] = OrderedDict()
        #: The last case index built of each running run, as built (what ``index_since`` cuts).
        self._live_index: dict[str, tuple[Encoded, dict[str, Any]]] = {}
        #: The last summaries built of each running run, by ``version`` (what ``summary_since``
        #: diffs), the newest last, with the encoded form of the newest.
        self._live_summaries: dict[str, tuple[Encoded, OrderedDict[str, dict[str, Any]]]] = {}
        #: How many times each payload kind was built (not served from the cache): for tests.
        self.builds: dict[str, int] = {}
        #: threads writing payloads to the disk cache (``flush`` waits for them)
        self._writers: list[threading.Thread] = []

    def flush(self, timeout: float = 30.0) -> None:
        """Wait for the disk cache writes under way (the server does when it stops)."""
        with self._lock:
            writers = list(self._writers)
        for writer in writers:
            writer.join(timeout)

    @property
    def bundle(self) -> Any:
        if self._bundle is None:
            from . import _bundle

            self._bundle = _bundle
        return self._bundle

    def folder(self, run_id: str) -> Path:
        """The folder of run ``run_id``; ``NotFound`` when there is no such run here."""
        if not _RUN_ID.fullmatch(run_id) or run_id in (".", ".."):
            raise NotFound(f"no run {run_id!r} in this runs folder")
        folder = self.runs_dir / run_id
        if not (folder / _MANIFEST).is_file():
            raise NotFound(f"no run {run_id!r} in this runs folder")
        return folder

    def stamp(self, run_id: str) -> tuple[int, ...]:
        """Changes whenever the run's manifest, results, index, summary or calibration cards
        (``agenteval calibrate``) change, and when
        its writing process goes away (a run killed outright: its manifest still says
        ``running``, its missing cases turn from pending to interrupted)."""
        from agenteval.calibration import CALIBRATION_FILE
        from agenteval.runs import writer_alive

        folder = self.folder(run_id)
        return (
            *file_stamp(folder / _MANIFEST),
            *file_stamp(folder / _RESULTS),
            *file_stamp(folder / _INDEX),
            *file_stamp(folder / _SUMMARY),
            *file_stamp(folder / CALIBRATION_FILE),
            int(writer_alive(folder) is not False),
        )

    def _lock_for(self, run_id: str) -> threading.Lock:
        with self._lock:
            return self._run_locks.setdefault(run_id, threading.Lock())

    def run(self, run_id: str) -> Any:
        """The run's ``RecordedRun``, reopened only when its files changed."""
        return self._opened(run_id).run

    def _opened(self, run_id: str) -> _Open:
        stamp = self.stamp(run_id)
        with self._lock:
            found = self._open.get(run_id)
            if found is not None and found.stamp == stamp:
                self._open.move_to_end(run_id)
                return found
        from agenteval.errors import ConfigError
        from agenteval.runs import RecordedRun

        try:
            run = RecordedRun.open(self.runs_dir / run_id)
        except ConfigError as exc:
            raise NotFound(str(exc)) from None
        opened = _Open(stamp, run, sum(len(s.case_ids) for s in run.manifest.eval_sets))
        with self._lock:
            self._open[run_id] = opened
            self._open.move_to_end(run_id)
            while len(self._open) > self._keep:
                self._open.popitem(last=False)
        return opened

    def _payload(self, run_id: str, kind: str) -> Encoded:
        """The run's ``summary`` or ``index``, built with the other one from a single scan of
        the run when the bundle offers ``scan`` (one pass over the records for both)."""
        with self._lock_for(run_id):
            opened = self._opened(run_id)
            with self._lock:
                cached = self._payloads.get((run_id, kind))
                if cached is not None and cached[0] == opened.stamp:
                    self._payloads.move_to_end((run_id, kind))
                    return cached[1]
            bundle = self.bundle
            builders = {"summary": bundle.run_summary, "index": bundle.case_index}
            scan = getattr(bundle, "scan", None)
            kinds = list(builders) if scan is not None else [kind]
            built = self._from_disk(opened, kinds)
            if not built:
                cursor = complete_end(opened.run.folder / _RESULTS)  # taken before the records are read
                with gc_paused():
                    scanned = (scan(opened.run),) if scan is not None else ()
                    for name in kinds:
                        self.builds[name] = self.builds.get(name, 0) + 1
                        etag = '"' + "-".join(map(str, opened.stamp)) + f'-{name}"'
                        document = builders[name](opened.run, *scanned)
                        if name == "index":
                            document = {**document, "cursor": cursor}
                        elif self._running(opened):  # a live run's summary: what a patch starts from
                            document = {**document, "version": _version(opened.stamp)}
                        built[name] = Encoded(encode_json(document), etag)
                        if name == "index":
                            self._keep_live(run_id, opened, built[name], document)
                        else:
                            self._keep_live_summary(run_id, opened, built[name], document)
                        del document
                    del scanned
                # gzipped and written after this request is answered (a loopback client gets
                # the plain payload at once)
                # started before ``flush`` can see it: joining a thread not yet started raises
                writer = threading.Thread(target=self._to_disk, args=(opened, dict(built)), daemon=True)
                with self._lock:
                    writer.start()
                    self._writers = [w for w in self._writers if w.is_alive()] + [writer]
            with self._lock:
                for name, encoded in built.items():
                    self._payloads[(run_id, name)] = (opened.stamp, encoded)
                    self._payloads.move_to_end((run_id, name))
                while len(self._payloads) > 2 * self._keep:
                    self._payloads.popitem(last=False)
            return built[kind]

    def _keep_live(self, run_id: str, opened: _Open, encoded: Encoded, document: dict[str, Any]) -> None:
        """Keep a running run's index as built (at most ``keep_runs`` runs); forget a finished one's."""
        with self._lock:
            self._live_index.pop(run_id, None)
            if self._running(opened):
                self._live_index[run_id] = (encoded, document)
                while len(self._live_index) > self._keep:
                    self._live_index.pop(next(iter(self._live_index)))

    def _keep_live_summary(
        self, run_id: str, opened: _Open, encoded: Encoded, document: dict[str, Any]
    ) -> None:
        """Keep the last ``_SUMMARIES_KEPT`` summaries of a running run (at most
        ``keep_runs`` runs); forget a finished one's."""
        with self._lock:
            if not self._running(opened):
                self._live_summaries.pop(run_id, None)
                return
            kept = self._live_summaries.pop(run_id, (encoded, OrderedDict()))[1]
            kept[document["version"]] = document
            while len(kept) > _SUMMARIES_KEPT:
                kept.popitem(last=False)
            self._live_summaries[run_id] = (encoded, kept)
            while len(self._live_summaries) > self._keep:
                self._live_summaries.pop(next(iter(self._live_summaries)))

    @staticmethod
    def _running(opened: _Open) -> bool:
        from agenteval.runs import RunState

        return opened.run.manifest.state is RunState.RUNNING

    def _disk_keys(self, opened: _Open, kinds: list[str]) -> Optional[dict[str, str]]:
        if self._disk is None or self._running(opened):
            return None  # a running run changes all the time
        return {k: self._disk.key(opened.run.folder, opened.stamp, self.bundle, k) for k in kinds}

    def _from_disk(self, opened: _Open, kinds: list[str]) -> dict[str, Encoded]:
        keys = self._disk_keys(opened, kinds)
        if keys is None or self._disk is None:
            return {}
        found = {}
        for name, key in keys.items():
            gzipped = self._disk.get(key)
            if gzipped is None:
                return {}
            try:
                plain = gzip.decompress(gzipped)  # checked whole: a damaged entry is built again
            except (OSError, EOFError):
                return {}
            etag = '"' + "-".join(map(str, opened.stamp)) + f'-{name}"'
            found[name] = Encoded(plain, etag, gzipped)
            del plain
        return found

    def _to_disk(self, opened: _Open, built: dict[str, Encoded]) -> None:
        keys = self._disk_keys(opened, list(built))
        if keys is None or self._disk is None:
            return
        for name, key in keys.items():
            self._disk.put(key, built[name].gzipped())

    def summary(self, run_id: str) -> Encoded:
        """``bundle.run_summary(run)``, encoded."""
        return self._payload(run_id, "summary")

    def summary_since(self, run_id: str, since: str) -> Encoded:
        """What changed in a running run's summary since the one of version ``since``
        (``_summary_patch``); the whole summary when the run is not running or that version
        is no longer kept."""
        whole = self.summary(run_id)  # built from the files as they are now
        with self._lock:
            live = self._live_summaries.get(run_id)
        if live is None or live[0] is not whole or since not in live[1]:
            return whole
        latest = next(reversed(live[1].values()))
        self.builds["summary patch"] = self.builds.get("summary patch", 0) + 1
        return Encoded(encode_json(summary_patch(live[1][since], latest, since)), None)

    def index(self, run_id: str) -> Encoded:
        """``bundle.case_index(run)``: one row per planned case, encoded."""
        return self._payload(run_id, "index")

    def index_since(self, run_id: str, since: int) -> Encoded:
        """The rows of a running run's case index whose records were appended after byte
        ``since`` of its results (``_index_patch``); the whole index when the run is not
        running or ``since`` is past the end of its results (the file got shorter)."""
        from ._live import RunTail

        folder = self.folder(run_id)
        if since > complete_end(folder / _RESULTS):
            return self.index(run_id)
        tail = RunTail(folder, self.rows_by_key(run_id), since)
        rows = tail.new_rows()
        whole = self.index(run_id)  # built from the files as they are now: every row read above
        with self._lock:
            live = self._live_index.get(run_id)
        if live is None or live[0] is not whole:
            return whole
        self.builds["patch"] = self.builds.get("patch", 0) + 1
        return Encoded(encode_json(index_patch(live[1], sorted(rows), since, tail.offset)), None)

    def head(self, run_id: str) -> Encoded:
        """``bundle.head_index(run)``: the first rows of a big run, read at once while its
        whole index is built; the whole index itself once it is built (or when the bundle
        has no head)."""
        opened = self._opened(run_id)
        with self._lock:
            cached = self._payloads.get((run_id, "index"))
        if cached is not None and cached[0] == opened.stamp:
            return cached[1]
        build = getattr(self.bundle, "head_index", None)
        with gc_paused():
            head = build(opened.run) if build is not None else None
        if head is None:
            return self.index(run_id)
        self.builds["head"] = self.builds.get("head", 0) + 1
        return Encoded(encode_json(head), None)

    def case(self, run_id: str, row: int) -> Encoded:
        """``bundle.case_detail(run, row)``; ``NotFound`` for a row the run does not have."""
        opened = self._opened(run_id)
        if not 0 <= row < opened.rows:
            raise NotFound(f"run {run_id!r} has no row {row} (it has {opened.rows})")
        self._offsets(run_id, opened)
        detail = self.bundle.case_detail(opened.run, row)
        if detail is None:
            raise NotFound(f"run {run_id!r} has no row {row}")
        etag = '"' + "-".join(map(str, opened.stamp)) + f'-case{row}"'
        return Encoded(encode_json(detail), etag)

    def _offsets(self, run_id: str, opened: _Open) -> None:
        """Build the run's byte-offset index once, whichever thread asks first (the others
        wait for it rather than scanning ``results.jsonl`` too); then nothing (``keys()``
        copies the keys: 18 ms a case at 100k cases)."""
        if opened.offsets:
            return
        with self._lock:
            lock = self._run_locks.setdefault(run_id + "\0offsets", threading.Lock())
        with lock:
            if not opened.offsets:
                opened.run.keys()
                opened.offsets = True

    def rows_by_key(self, run_id: str) -> dict[tuple[int, str], int]:
        """(eval set index, case id) -> row, in plan order (the rows of the case index)."""
        manifest = self.run(run_id).manifest
        rows: dict[tuple[int, str], int] = {}
        row = 0
        for entry in manifest.eval_sets:
            for case_id in entry.case_ids:
                rows.setdefault((entry.index, case_id), row)
                row += 1
        return rows

    def warm(self, run_id: str) -> None:
        """Build the run's summary, case index and record offsets now (in the background at
        start-up), so the first page load and the first case opened find them ready. Never
        raises."""
        try:
            self.summary(run_id)
            self.index(run_id)
            self._offsets(run_id, self._opened(run_id))  # for the first case opened
        except Exception:  # noqa: BLE001 - the request that needs it reports the problem
            pass
