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
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Optional

from ..errors import AgentEvalError, DataError, PluginLoadError
from ..models import EvalCase, EvalSet

if TYPE_CHECKING:
    from .._plugins import PluginFinder

__all__ = [
    "ADK_FORMAT",
    "FormatReader",
    "choose_format",
    "leading_keys",
    "read_in_format",
]

#: The built-in format's name (``--format-in adk``).
ADK_FORMAT = "adk"
#: How much of a file a reader sees to decide whether it claims it.
HEAD_BYTES = 64 * 1024
_EVAL_SET_KEYS = frozenset({"eval_set_id", "name", "description", "eval_cases", "creation_timestamp"})


class FormatReader(ABC):
    """A data format's reader: recognises its files by content and reads them as actual turns.

    ``claims`` is called with the first ``HEAD_BYTES`` of the file (possibly cut mid-value)
    and must be cheap and specific: it answers for files of its own format only, by their
    structure (e.g. the first keys, see ``leading_keys``), never by a word that could occur
    in any text. ``read_actual`` gets the run's selected cases, so that a format whose
    recordings carry no eval ids (traces) can match them to cases; it returns an ``EvalSet``
    whose cases carry the eval ids of the cases they hold turns for (a case it holds nothing
    for is left out). A problem with the file is a ``DataError`` naming the place in the file
    and the fix; any other exception is reported as the reader's bug, never a traceback.
    """

    #: Said in the list of installed formats.
    description: ClassVar[str] = ""

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
            key, index = json.decoder.scanstring(text, index + 1)  # type: ignore[attr-defined]
        except ValueError:
            return tuple(keys)
        keys.append(key)
        index = _skip_space(text, index)
        if index >= len(text) or text[index] != ":":
            return tuple(keys)
        try:
            _, index = decoder.raw_decode(text, _skip_space(text, index + 1))
        except ValueError:
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


def _installed(finder: PluginFinder) -> str:
    return ", ".join([f"{ADK_FORMAT} (built in: ADK eval sets)", *finder.names()])


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
        return finder.load_one(format_in)
    head = _head(path)
    keys = leading_keys(head)
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"[") or "eval_set_id" in keys:
        return None
    names = finder.names()
    if names:
        for loaded in finder.load_many(names).values():
            reader: type[FormatReader] = loaded.obj
            try:
                claimed = reader.claims(head)
            except Exception as exc:  # noqa: BLE001 - a reader's bug must not hide the other formats
                raise PluginLoadError(
                    f"the data format {loaded.ref.display} failed while looking at {path}: "
                    f"{type(exc).__name__}: {exc}; report it to the maintainers of {loaded.ref.distribution}"
                ) from None
            if claimed:
                return reader
    if not keys or _EVAL_SET_KEYS.intersection(keys):
        return None
    raise DataError(
        f"not an ADK eval set (its top-level keys are {', '.join(map(repr, keys))}) and no installed data "
        f"format claims it. Installed formats: {_installed(finder)}. Give --format-in NAME to choose one, "
        "or install the distribution that reads this format (OpenTelemetry traces: agenteval-otel)",
        source=str(path),
    )


def read_in_format(
    reader: type[FormatReader], path: Path, cases: Sequence[EvalCase]
) -> tuple[EvalSet, str, list[str]]:
    """``reader``'s actual turns from ``path`` for ``cases``, with the file's sha256 and the
    reader's warnings. A
    reader's own ``DataError`` is kept (with the file as its source); anything else it
    raises becomes one ``DataError`` naming the reader: never a traceback."""
    where = str(path)
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        instance = reader()
        eval_set = instance.read_actual(path, cases)
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
    return eval_set, digest, [f"{where}: {w}" for w in getattr(instance, "warnings", ())]
