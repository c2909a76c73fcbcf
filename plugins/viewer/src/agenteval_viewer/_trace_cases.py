"""A recorded trace as the start of a case, for the authoring screen (``--allow-write``).

The trace is read by an installed data format whose reader records sessions
(``agenteval.plugins.session_formats``: ``FormatReader.recorded_sessions`` and
``session_case``; agenteval-otel's ``OtelReader`` reads OTLP JSON/JSONL, Tempo, Jaeger). The
viewer never imports such a package by name: with none installed, ``missing`` says what to
install and the screen shows it instead of the option.

* ``files``: the JSON and JSONL files under the eval-set folders that such a reader claims
  (by their first bytes, as ``--actual`` decides a file's format); eval sets are not listed.
* ``sessions``: the sessions a trace holds (id, case id, first user text, turn count, and
  the findings that make one unusable as expected: ``import-trace`` refuses them too).
* ``case``: one session's case, exactly as ``agenteval import-trace --as-expected`` writes
  it (the reader's own conversion), in snake_case JSON for the editor; nothing is written.

A trace that cannot be read, a reader that fails, a session that lacks content: ``TraceRefused``
(HTTP 400, or 422 with the session's ``findings``) with the file and the reason, never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from ._authoring_guard import PathRefused, WriteGuard

__all__ = ["INSTALL_HINT", "TraceCases", "TraceRefused"]

#: What the screen says when no installed format reads traces.
INSTALL_HINT = (
    "Starting a case from a trace needs agenteval-otel: pip install agenteval-otel "
    "(or, from the agenteval repository, pip install -e plugins/otel)"
)
_HEAD_BYTES = 64 * 1024
_SUFFIXES = (".json", ".jsonl")
_NOT_TRACES = (".evalset.json", ".test.json", "test_config.json")
_MAX_LOOKED = 2000
_MAX_LISTED = 200


class TraceRefused(Exception):
    """A trace or session that cannot start a case (HTTP 400; 422 with ``findings``)."""

    def __init__(self, message: str, *, file: str, findings: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.file = file
        self.findings = list(findings)
        self.status = 422 if self.findings else 400


def trace_readers() -> list[type]:
    """The installed format readers that list a file's recorded sessions
    (``session_formats``: a format that does not load is left out)."""
    from agenteval.plugins import session_formats

    return list(session_formats())


class TraceCases:
    """Trace files under ``guard``'s folders, read by ``readers`` (default: the installed ones)."""

    def __init__(self, guard: WriteGuard, readers: Optional[Sequence[type]] = None) -> None:
        self.guard = guard
        self._readers = list(readers) if readers is not None else None

    @property
    def readers(self) -> list[type]:
        if self._readers is None:
            self._readers = trace_readers()
        return self._readers

    def missing(self) -> Optional[str]:
        """``INSTALL_HINT`` when no installed format reads traces, else ``None``."""
        return None if self.readers else INSTALL_HINT

    # ------------------------------------------------------------------ listing

    def files(self) -> list[dict[str, Any]]:
        """The trace files under the folders (see the module docstring), at most 200."""
        from ._evalset_files import _walk

        found: list[dict[str, Any]] = []
        looked = 0
        if not self.readers:
            return found
        for root in self.guard.roots:
            for folder, names in _walk(root.folder):
                for name in sorted(names):
                    if not name.endswith(_SUFFIXES) or name.endswith(_NOT_TRACES):
                        continue
                    looked += 1
                    if looked > _MAX_LOOKED or len(found) >= _MAX_LISTED:
                        return found
                    path = Path(folder) / name
                    try:
                        resolved = path.resolve()
                        if not resolved.is_relative_to(root.folder):
                            continue  # a symbolic link out of the folder
                        with resolved.open("rb") as handle:
                            head = handle.read(_HEAD_BYTES)
                        size = resolved.stat().st_size
                    except OSError:
                        continue
                    if self._claimed(head) is not None:
                        shown = path.relative_to(root.folder).as_posix()
                        found.append({"root": root.index, "path": shown, "size": size})
        return found

    def _claimed(self, head: bytes) -> Optional[type]:
        for reader in self.readers:
            try:
                if reader.claims(head):  # type: ignore[attr-defined]
                    return reader
            except Exception:  # noqa: BLE001 - a reader's bug: the next one is asked
                continue
        return None

    # ------------------------------------------------------------------ one trace

    def _open(self, root: object, relative: object) -> tuple[Path, str, Any]:
        """The file, its name as shown, and a reader that claims it."""
        path = self.guard.resolve(root, relative, must_exist=False)
        shown = str(relative)
        if not path.is_file():
            raise PathRefused(f"there is no file {shown[:200]!r} in {self.guard.root(root).label!r}")
        if not self.readers:
            raise TraceRefused(INSTALL_HINT, file=shown)
        try:
            with path.open("rb") as handle:
                head = handle.read(_HEAD_BYTES)
        except OSError as exc:
            raise TraceRefused(f"{shown}: cannot read the file: {exc.strerror or exc}", file=shown) from None
        reader = self._claimed(head)
        if reader is None:
            kinds = "; ".join(getattr(r, "description", "") or r.__name__ for r in self.readers)
            raise TraceRefused(
                f"{shown}: not a trace file an installed format reads ({kinds}): its first bytes are "
                "none of those formats' (an eval set opens in the list of eval sets instead)",
                file=shown,
            )
        return path, shown, reader()

    def sessions(self, root: object, relative: object) -> dict[str, Any]:
        """The sessions the trace holds (see the module docstring)."""
        path, shown, reader = self._open(root, relative)
        found = _call(lambda: reader.recorded_sessions(path), path, shown, reader)
        return {
            "root": self.guard.root(root).index,
            "path": shown,
            "format": getattr(reader, "description", "") or type(reader).__name__,
            "sessions": found.get("sessions", []),
            "notes": found.get("notes", []),
        }

    def case(self, root: object, relative: object, session_id: object) -> dict[str, Any]:
        """Session ``session_id``'s case, as ``import-trace --as-expected`` writes it (JSON)."""
        if not isinstance(session_id, str) or not session_id:
            raise TraceRefused("give the id of the session to start the case from", file=str(relative))
        path, shown, reader = self._open(root, relative)
        try:
            case = _call(lambda: reader.session_case(path, session_id, as_expected=True), path, shown, reader)
        except TraceRefused as refused:  # the session's findings, when it lacks content
            try:
                listed = reader.recorded_sessions(path).get("sessions", [])
            except Exception:  # noqa: BLE001 - the refusal above says it already
                listed = []
            found = [f for s in listed if s.get("session_id") == session_id for f in s.get("findings") or []]
            raise TraceRefused(str(refused), file=shown, findings=found) from None
        return json.loads(case.model_dump_json(exclude_none=True))


def _call(read: Any, path: Path, shown: str, reader: Any) -> Any:
    """``read()``, its errors as ``TraceRefused`` naming the file (its full path said as shown)."""
    from agenteval.errors import AgentEvalError

    try:
        return read()
    except AgentEvalError as exc:
        message = getattr(exc, "message", None) or str(exc)
        raise TraceRefused(f"{shown}: {message.replace(str(path), shown)}", file=shown) from None
    except OSError as exc:
        raise TraceRefused(f"{shown}: cannot read the file: {exc.strerror or exc}", file=shown) from None
    except Exception as exc:  # noqa: BLE001 - a reader's bug is said, never a traceback
        name = type(reader).__name__
        raise TraceRefused(
            f"{shown}: the trace reader {name} failed on this file: {type(exc).__name__}: {exc}; report it "
            "to the reader's maintainers",
            file=shown,
        ) from None
