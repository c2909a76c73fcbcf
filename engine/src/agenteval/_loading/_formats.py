"""Data formats beyond ADK's eval sets: readers that turn a recorded file into actual turns.

A format is a plugin of the ``agenteval.formats`` entry-point group: a ``FormatReader``
subclass (``agenteval-otel`` provides ``otel``, OpenTelemetry traces). ADK's eval sets stay
the built-in format (``adk``), read by ``read_eval_file`` exactly as before.

Which format an ``--actual`` file is in is decided by its content, never by its name
(``choose_format``): a top-level list or an object with an ``eval_set_id`` key is ADK's,
with no plugin imported; otherwise each installed reader is asked whether it ``claims`` the
file's first bytes; none does and the file still looks like an eval set (a top-level key of
one; or no key can be read at all, so that ADK's loader explains the syntax error): ADK's,
as before; else ``DataError`` listing the installed formats. ``--format-in NAME`` skips the detection.

A format may also hold eval cases (``read_eval_set``; the reader's ``eval_file_patterns`` are
the file names a folder search finds, beside ``*.test.json`` and ``*.evalset.json``): eval
files are then read through it wherever ADK's files are (``eval_set_in_format``). Writers are
the ``agenteval.format_writers`` group: a ``FormatWriter`` turns an eval set into its files
(``format_writers`` names the installed ones, ``format_writer`` makes one).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Optional

from ..errors import AgentEvalError, DataError, PluginLoadError
from ..models import EvalCase, EvalSet

if TYPE_CHECKING:
    from .._plugins import LoadedPlugin, PluginFinder

__all__ = [
    "ADK_FORMAT",
    "FormatReader",
    "FormatWriter",
    "choose_format",
    "eval_file_patterns",
    "eval_set_in_format",
    "format_writer",
    "format_writers",
    "leading_keys",
    "read_in_format",
    "read_timeline",
    "session_formats",
]

#: The built-in format's name (``--format-in adk``).
ADK_FORMAT = "adk"
#: How much of a file a reader sees to decide whether it claims it.
HEAD_BYTES = 64 * 1024
_STARTS_AS_EVAL_SET = re.compile(rb'^(\xef\xbb\xbf)?\s*(\[|\{\s*"eval_set_id"\s*:)')
_EVAL_SET_KEYS = frozenset({"eval_set_id", "name", "description", "eval_cases", "creation_timestamp"})


class FormatReader(ABC):
    """A data format's reader: recognises its files by content and reads them as actual turns.

    ``claims`` is called with the first ``HEAD_BYTES`` of the file (possibly cut mid-value)
    and must be cheap and specific: it answers for files of its own format only, by their
    structure (e.g. the first keys, see ``leading_keys``), never by a word that could occur
    in any text. ``read_actual`` gets the run's selected cases, so that a format whose
    recordings carry no eval ids (traces) can match them to cases; it returns an ``EvalSet``
    whose cases carry the eval ids of the cases they hold turns for (a case it holds nothing
    for is left out). A case's ``conversation`` may be any ``Sequence[Invocation]`` (the case
    made with ``EvalCase.model_construct``) that builds its turns when read: a run lists it
    once, when the case's run starts, so a reader of many cases need not hold every case's
    turns as models (check them while reading: an error then is the file's). A problem with
    the file is a ``DataError`` naming the place in the file and the fix; any other exception
    is reported as the reader's bug, never a traceback.
    """

    #: Said in the list of installed formats.
    description: ClassVar[str] = ""
    #: File-name patterns (``fnmatch``) of this format's eval files that a folder search
    #: finds, e.g. ``("*-dataset.json",)``; ``()``: the format holds recorded turns only.
    eval_file_patterns: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        #: What ``read_actual`` found lacking in the file (shown as the run's warnings).
        self.warnings: list[str] = []

    @classmethod
    @abstractmethod
    def claims(cls, head: bytes) -> bool:
        """Whether the file whose first bytes are ``head`` is in this format."""

    @abstractmethod
    def read_actual(self, path: Path, cases: Sequence[EvalCase]) -> EvalSet:
        """The agent's turns recorded in ``path``, as cases of the given ``cases``' ids."""

    def timeline(self, path: Path, invocation_ids: Sequence[str]) -> Optional[list[dict[str, Any]]]:
        """What happened inside each turn (its spans), for the viewer's waterfall: one
        ``{"invocation_id", "spans": [{"name", "depth", "start_ms", "duration_ms", ...}]}``
        per given id the file holds; ``None`` (the default) for a format with no timeline."""
        return None

    def read_eval_set(self, path: Path) -> EvalSet:
        """The eval cases (expected turns) held in ``path``; ``DataError`` for a format
        that holds recorded turns only (the default)."""
        raise DataError(
            f"this file is in the {type(self).__name__} format, which holds recorded turns, not eval "
            "cases; give it as --actual",
            source=str(path),
        )

    def recorded_sessions(self, path: Path) -> Optional[dict[str, Any]]:
        """The sessions recorded in ``path`` that can each start an eval case, for a viewer's
        authoring screen: ``{"sessions": [{"session_id", "case_id", "first_user_text", "turns",
        "findings"}], "notes": [...]}`` in file order; a session with ``findings`` (what its
        turns lack) cannot start one, ``notes`` are the file's own findings. ``None`` (the
        default): the format records no sessions. ``DataError`` for a file it cannot read."""
        return None

    def session_case(self, path: Path, session_id: str, *, as_expected: bool = True) -> EvalCase:
        """Session ``session_id`` of ``path`` as an eval case (with ``as_expected`` its turns
        are the expected conversation, without the run's measurements); ``DataError`` when the
        file holds no such session or it lacks what a case needs (its findings listed), and
        (the default) for a format that records no sessions."""
        raise DataError(
            f"the {type(self).__name__} format records no sessions to start a case from", source=str(path)
        )


class FormatWriter(ABC):
    """A data format's writer (``agenteval.format_writers``): an eval set as files of the format.

    ``write`` returns the files it wrote in ``folder``; what the format cannot hold is said in
    ``warnings`` (never dropped silently); an eval set it cannot write at all is a ``DataError``.
    """

    #: Said in the list of installed writers.
    description: ClassVar[str] = ""

    def __init__(self) -> None:
        self.warnings: list[str] = []

    @abstractmethod
    def write(self, eval_set: EvalSet, folder: Path) -> list[Path]:
        """Write ``eval_set`` into ``folder``; the paths written."""


def leading_keys(head: bytes) -> tuple[str, ...]:
    """The keys of the top-level JSON object that ``head`` starts, in order, as far as it
    goes (a key whose value is cut off is the last one); ``()`` when it is not an object."""
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if not text.startswith("{"):
        return ()
    decoder = json.JSONDecoder()
    keys: list[str] = []
    index = 1
    while True:
        index = _skip_space(text, index)
        if index >= len(text) or text[index] != '"':
            return tuple(keys)
        try:
            key, index = json.decoder.scanstring(text, index + 1)  # type: ignore[attr-defined]  # CPython has it; typeshed leaves it out
        except ValueError:
            return tuple(keys)
        keys.append(key)
        index = _skip_space(text, index)
        if index >= len(text) or text[index] != ":":
            return tuple(keys)
        try:
            _, index = decoder.raw_decode(text, _skip_space(text, index + 1))
        except (ValueError, RecursionError):  # cut off, or nested deeper than the parser goes
            return tuple(keys)
        index = _skip_space(text, index)
        if index >= len(text) or text[index] != ",":
            return tuple(keys)
        index += 1


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read(HEAD_BYTES)
    except OSError as exc:
        raise DataError(f"cannot read the file: {exc.strerror or exc}", source=str(path)) from None


def _finder() -> PluginFinder:
    from .._plugins import KINDS, PluginFinder
    from .._registry import FORMATS_GROUP

    return PluginFinder(KINDS[FORMATS_GROUP])


def _writer_finder() -> PluginFinder:
    from .._plugins import KINDS, PluginFinder
    from .._registry import FORMAT_WRITERS_GROUP

    return PluginFinder(KINDS[FORMAT_WRITERS_GROUP])


def format_writers() -> list[str]:
    """The names of the installed format writers (``agenteval.format_writers``), sorted;
    none of them is imported."""
    return _writer_finder().names()


def format_writer(name: str) -> FormatWriter:
    """A new writer of the installed format ``name``; ``PluginLoadError`` when no writer is
    installed under that name (the message lists those that are) or it does not load."""
    writer: FormatWriter = _writer_finder().load_one(name)()
    return writer


def _installed(finder: PluginFinder) -> str:
    return ", ".join([f"{ADK_FORMAT} (built in: ADK eval sets)", *finder.names()])


def _is_adk(head: bytes, keys: tuple[str, ...]) -> bool:
    """A file that is ADK's by its shape: a top-level list, or an ``eval_set_id`` key."""
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"[") or "eval_set_id" in keys


def _claims(loaded: LoadedPlugin, head: bytes, path: Path) -> bool:
    reader: type[FormatReader] = loaded.obj
    try:
        return bool(reader.claims(head))
    except Exception as exc:  # noqa: BLE001 - a reader's bug must not hide the other formats
        raise PluginLoadError(
            f"the data format {loaded.ref.display} failed while looking at {path}: "
            f"{type(exc).__name__}: {exc}; report it to the maintainers of {loaded.ref.distribution}"
        ) from None


def choose_format(
    path: Path, format_in: Optional[str] = None, finder: Optional[PluginFinder] = None
) -> Optional[type[FormatReader]]:
    """The reader of ``path`` (see the module docstring); ``None`` for ADK's built-in format.
    ``PluginLoadError`` for an unknown ``format_in``; ``DataError`` for a file no format claims."""
    finder = finder or _finder()
    if format_in is not None:
        if format_in == ADK_FORMAT:
            return None
        if format_in not in finder.names():
            raise PluginLoadError(
                f"--format-in {format_in!r} is not an installed data format; installed: {_installed(finder)}"
            )
        chosen: type[FormatReader] = finder.load_one(format_in)  # the finder checked the subclass
        return chosen
    head = _head(path)
    keys = leading_keys(head)
    if _is_adk(head, keys):
        return None
    names = finder.names()
    if names:
        for loaded in finder.load_many(names).values():
            if _claims(loaded, head, path):
                claimed: type[FormatReader] = loaded.obj  # the finder checked the subclass
                return claimed
    if not keys or _EVAL_SET_KEYS.intersection(keys):
        return None
    raise DataError(
        f"not an ADK eval set (its top-level keys are {', '.join(map(repr, keys))}) and no installed data "
        f"format claims it. Installed formats: {_installed(finder)}. Give --format-in NAME to choose one, "
        "or install the distribution that reads this format (OpenTelemetry traces: agenteval-otel)",
        source=str(path),
    )


def _eval_formats() -> dict[str, LoadedPlugin]:
    """The installed formats that hold eval cases (their readers are imported; with no format
    installed, nothing is)."""
    finder = _finder()
    names = finder.names()
    if not names:
        return {}
    return {name: p for name, p in finder.load_many(names).items() if p.obj.eval_file_patterns}


def session_formats(finder: Optional[PluginFinder] = None) -> list[type[FormatReader]]:
    """The installed formats whose files record sessions an eval case can start from (their
    readers implement ``FormatReader.recorded_sessions``), imported, by name. A format that
    does not load is left out: a run that reads its files says why."""
    finder = finder or _finder()
    found = []
    for name in finder.names():
        try:
            reader: type[FormatReader] = finder.load_one(name)
        except PluginLoadError:
            continue
        if reader.recorded_sessions is not FormatReader.recorded_sessions:
            found.append(reader)
    return found


def eval_file_patterns() -> tuple[str, ...]:
    """The file-name patterns of eval files in the installed formats (see ``_eval_formats``)."""
    patterns: dict[str, None] = {}
    for loaded in _eval_formats().values():
        patterns.update(dict.fromkeys(loaded.obj.eval_file_patterns))
    return tuple(patterns)


def starts_as_eval_set(path: Path) -> bool:
    """Whether ``path`` starts as ADK's eval files do (an eval set object led by
    ``eval_set_id``, or a legacy list), told from its head alone: no format is asked about
    it; ``False`` when it cannot be read."""
    try:
        return _STARTS_AS_EVAL_SET.match(_head(path)) is not None
    except DataError:
        return False


def eval_set_in_format(path: Path, head: bytes) -> Optional[tuple[EvalSet, str, list[str]]]:
    """The eval set of ``path`` (whose first bytes are ``head``) read by the installed format
    that claims it, with the format's name and the reader's warnings; ``None`` when the file
    is ADK's (or no format that holds eval cases claims it)."""
    if _STARTS_AS_EVAL_SET.match(head):  # ADK's own files: nothing parsed, no plugin looked up
        return None
    if _is_adk(head, leading_keys(head)):
        return None
    for name, loaded in _eval_formats().items():
        if _claims(loaded, head, path):
            eval_set, warnings = _read_with(loaded.obj, path, lambda reader: reader.read_eval_set(path))
            return eval_set, name, warnings
    return None


def read_in_format(
    reader: type[FormatReader], path: Path, cases: Sequence[EvalCase]
) -> tuple[EvalSet, str, list[str]]:
    """``reader``'s actual turns from ``path`` for ``cases``, with the file's sha256 and the
    reader's warnings (errors as ``_read_with``)."""
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise DataError(f"cannot read the file: {exc.strerror or exc}", source=str(path)) from None
    eval_set, warnings = _read_with(reader, path, lambda instance: instance.read_actual(path, cases))
    return eval_set, digest, warnings


def _read_with(
    reader: type[FormatReader], path: Path, read: Callable[[FormatReader], EvalSet]
) -> tuple[EvalSet, list[str]]:
    """``read`` called with a new ``reader`` for ``path``, and its warnings. A reader's own
    ``DataError`` is kept (with the file as its source); anything else it raises becomes one
    ``DataError`` naming the reader: never a traceback."""
    where = str(path)
    try:
        instance = reader()
        eval_set = read(instance)
    except AgentEvalError as exc:
        if exc.source is None:
            raise type(exc)(exc.message, source=where) from None
        raise
    except OSError as exc:
        raise DataError(f"cannot read the file: {exc.strerror or exc}", source=where) from None
    except Exception as exc:  # noqa: BLE001 - a reader's bug is a data error naming it
        raise DataError(
            f"the data format reader {reader.__name__} ({reader.__module__}) failed on this file: "
            f"{type(exc).__name__}: {exc}; report it to the reader's maintainers",
            source=where,
        ) from None
    if not isinstance(eval_set, EvalSet):
        raise DataError(
            f"the data format reader {reader.__name__} returned {type(eval_set).__name__}, not an EvalSet",
            source=where,
        )
    return eval_set, [f"{where}: {w}" for w in getattr(instance, "warnings", ())]


#: The files whose format (``_timeline_format``) and digest (``_digest``) are kept while they
#: are unchanged: a run may name a hundred ``--actual`` files, and a viewer asks of each one
#: for every case it shows (a run of 100 files of 1,000 cases read every file's head 100 times
#: a case with 8). A few bytes each.
_FILES_TOLD = 4096


def read_timeline(
    path: Path, invocation_ids: Sequence[str], sha256: Optional[str] = None
) -> Optional[list[dict[str, Any]]]:
    """The timeline (``FormatReader.timeline``) of the turns ``invocation_ids`` recorded in
    ``path``; ``None`` when the file is gone, changed since (its ``sha256`` differs), in ADK's
    format or a format with no timeline, or cannot be read: a viewer shows nothing then. No
    ids: ``[]`` for a file that has timelines, found from its head and digest alone (the
    turns are not read: a viewer asks so which of a run's files to look in)."""
    try:
        stat = path.stat()
        reader = _timeline_format(str(path), stat.st_mtime_ns, stat.st_size)
        if reader is None or reader.timeline is FormatReader.timeline:
            return None
        if sha256 is not None and _digest(str(path), stat.st_mtime_ns, stat.st_size) != sha256:
            return None
        if not invocation_ids:
            return []
        return reader().timeline(path, invocation_ids)
    except (AgentEvalError, OSError):
        return None


@functools.lru_cache(maxsize=_FILES_TOLD)
def _timeline_format(path: str, mtime_ns: int, size: int) -> Optional[type[FormatReader]]:
    """``choose_format`` of a file, told once while it is unchanged (a viewer or a report asks
    case by case; the choice reads and parses the file's head); ``None`` also for a file no
    format claims."""
    try:
        return choose_format(Path(path))  # reads the file's head only: an ADK file costs no more
    except (AgentEvalError, OSError):
        return None


@functools.lru_cache(maxsize=_FILES_TOLD)
def _digest(path: str, mtime_ns: int, size: int) -> str:
    """A file's sha256, computed once while it is unchanged (a viewer asks case by case)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
