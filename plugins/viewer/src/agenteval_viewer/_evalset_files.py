"""Eval-set files for the authoring screens: list, load, preview and save.

* **Loading** goes through the engine's loader (``agenteval.plugins.read_eval_file``), so a
  file the CLI refuses is refused here with the same message; the editor gets the cases in
  snake_case (``_evalset_spelling.to_snake``).
* **Saving** applies edits (``put_case``, ``delete_case``) to the file's *text*: only the
  cases that changed are re-rendered, in the file's indentation, spelling and key order
  (``_json_splice``, ``_evalset_spelling.respell``); a save that changes nothing writes
  nothing. The new text is checked by the same loader before anything is written (its
  errors come back one per field: ``path`` is the JSON path, ``case_index`` the case). The
  write is atomic (a temporary file in the same folder, then a rename).
* **Concurrent edits**: a save names the sha256 of the text it loaded; if the file on disk
  is not that text any more, nothing is written and ``Conflict`` carries the unified diff
  from what was loaded to what is on disk.
* **Other formats** (``agenteval.formats`` readers with ``eval_file_patterns``, e.g. Agent
  Platform datasets) are listed, loaded through the same loader and, when a writer of the
  format is installed (``agenteval.format_writers``) and the file is a JSON object of
  ``eval_cases``, edited the same way: a changed case is the element the format's writer
  writes for it (``_Shape``); what that drops of the element it replaces is a warning.
* **New files** are written as ADK writes them (``LocalEvalSetsManager``): snake_case, two
  spaces of indentation, ``<eval_set_id>.evalset.json``.

Id rules: a new eval set's id matches ``^[A-Za-z0-9_]+$`` (ADK's ``create_eval_set`` rule,
so ``adk web`` opens the file); a case id saved from here matches
``^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`` (it stays usable in ``FILE:CASE,CASE`` selections).
"""

from __future__ import annotations

import difflib
import fnmatch
import functools
import hashlib
import json
import os
import re
import secrets
import shutil
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from ._authoring_guard import PathRefused, WriteGuard
from ._evalset_spelling import file_uses_camel, respell, to_snake
from ._json_splice import Layout, append_element, find_spans, remove_element, replace_element

__all__ = [
    "CASE_ID",
    "EVAL_SET_ID",
    "CaseExists",
    "Conflict",
    "EditRefused",
    "EvalSetFiles",
    "Invalid",
    "SaveOutcome",
]

EVAL_SET_ID = re.compile(r"[A-Za-z0-9_]+")
CASE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
_PATTERNS = ("*.evalset.json", "*.test.json")
_ADK_NAMES = (".evalset.json", ".test.json")
_ADK_FORMATS = ("evalset", "legacy-flat", "legacy-multi")
_SKIP_DIRS = {".git", ".agenteval", ".adk", ".venv", "venv", "node_modules", "__pycache__"}
_MAX_LISTED = 2000
_MAX_BYTES = 20 * 1024 * 1024
_ERROR_LINE = re.compile(r"^\s*(?P<where>\d+:\d+|[A-Za-z_][\w.\[\]]*): (?P<message>.+)$")
_CASE_PATH = re.compile(r"^eval_cases\[(\d+)\]\.?(.*)$")


class EditRefused(Exception):
    """An edit that cannot be made (HTTP 400): bad id, unknown case, legacy file..."""

    status = 400


class CaseExists(EditRefused):
    """Saving would overwrite another case (HTTP 409); say ``overwrite`` to do it."""

    status = 409

    def __init__(self, case_id: str) -> None:
        super().__init__(f"a case {case_id!r} is already in this eval set; overwrite it, or give another id")
        self.case_id = case_id


class Conflict(Exception):
    """The file changed on disk since it was loaded (HTTP 409)."""

    status = 409

    def __init__(self, diff: str, disk_sha256: Optional[str]) -> None:
        super().__init__(
            "the file changed on disk since you loaded it; nothing was written. Reload it and "
            "make your change again (the diff shows what changed on disk)"
        )
        self.diff = diff
        self.disk_sha256 = disk_sha256


class Invalid(Exception):
    """The edited eval set does not load (HTTP 422): the loader's message, and its
    problems one per field."""

    status = 422

    def __init__(self, message: str, errors: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.errors = errors


@dataclass
class SaveOutcome:
    """What a save (or its preview) did or would do."""

    changed: bool
    diff: str
    sha256: str
    written: bool = False
    warnings: list[str] = field(default_factory=list)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def unified_diff(before: str, after: str, name: str, labels: tuple[str, str] = ("a", "b")) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"{labels[0]}/{name}",
            tofile=f"{labels[1]}/{name}",
        )
    )


def field_errors(message: str, source: str, shown: str) -> list[dict[str, Any]]:
    """The loader's message as ``[{path, case_index, field, message}]``: ``path`` is the JSON
    path (snake_case) or ``line:column``; ``field`` the path inside case ``case_index``."""
    from ._evalset_spelling import _spellings

    camel = _spellings()[0]
    errors = []
    for line in message.replace(source, shown).splitlines():
        match = _ERROR_LINE.match(line)
        if not match or match.group("where") in ("not a valid eval set",):
            continue
        where = match.group("where")
        parts = re.split(r"(\.|\[\d+\])", where)
        where = "".join(camel.get(p, p) for p in parts)
        case = _CASE_PATH.match(where)
        errors.append(
            {
                "path": where,
                "case_index": int(case.group(1)) if case else None,
                "field": case.group(2) if case else None,
                "message": match.group("message"),
            }
        )
    return errors


class EvalSetFiles:
    """The eval-set files under a ``WriteGuard``'s folders."""

    def __init__(self, guard: WriteGuard) -> None:
        self.guard = guard
        self._lock = threading.Lock()
        self._texts: OrderedDict[str, str] = OrderedDict()  # sha256 -> text served, for conflict diffs

    # ------------------------------------------------------------------ reading

    def list(self) -> list[dict[str, Any]]:
        """Every ``*.evalset.json`` and ``*.test.json`` under the folders, and every eval file of
        the installed formats (``eval_file_patterns``, e.g. ``*-dataset.json``); hidden and tool
        folders skipped, at most 2,000, without reading them."""
        found: list[dict[str, Any]] = []
        patterns = _eval_file_patterns()
        for root in self.guard.roots:
            for folder, files in _walk(root.folder):
                for name in sorted(files):
                    if not name.endswith(_ADK_NAMES) and not any(fnmatch.fnmatch(name, p) for p in patterns):
                        continue
                    path = Path(folder) / name
                    try:
                        resolved = path.resolve()
                        if not resolved.is_relative_to(root.folder):
                            continue  # a symbolic link out of the folder
                        size = resolved.stat().st_size
                    except OSError:
                        continue
                    found.append(
                        {
                            "root": root.index,
                            "path": path.relative_to(root.folder).as_posix(),
                            "size": size,
                        }
                    )
                    if len(found) >= _MAX_LISTED:
                        return found
        return found

    def folders(self) -> list[dict[str, Any]]:
        """Every folder a new eval set can go to: each eval-set folder and the folders under
        it (hidden and tool folders skipped; at most 2,000), ``path`` relative to its folder
        (``""`` for the folder itself)."""
        found: list[dict[str, Any]] = []
        for root in self.guard.roots:
            for folder, _files in _walk(root.folder):
                path = Path(folder)
                if path != root.folder and not path.resolve().is_relative_to(root.folder):
                    continue  # a symbolic link out of the folder
                relative = "" if path == root.folder else path.relative_to(root.folder).as_posix()
                found.append({"root": root.index, "path": relative})
                if len(found) >= _MAX_LISTED:
                    return found
        return found

    def roots(self) -> list[dict[str, Any]]:
        return [{"index": r.index, "label": r.label, "folder": str(r.folder)} for r in self.guard.roots]

    def _read(self, path: Path) -> str:
        if path.stat().st_size > _MAX_BYTES:
            raise EditRefused(f"{path.name} is over {_MAX_BYTES // 2**20} MB; edit it in a text editor")
        raw = path.read_bytes()
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise EditRefused(f"{path.name} is not UTF-8; save it as UTF-8 first") from None

    def _remember(self, text: str) -> str:
        sha = _sha(text)
        with self._lock:
            self._texts[sha] = text
            self._texts.move_to_end(sha)
            while len(self._texts) > 64:
                self._texts.popitem(last=False)
        return sha

    def load(self, root: object, relative: object) -> dict[str, Any]:
        """The eval set at ``relative`` in folder ``root``: its cases (snake_case), sha256,
        spelling and the loader's warnings; ``Invalid`` when the engine's loader refuses it."""
        from agenteval.errors import AgentEvalError
        from agenteval.plugins import read_eval_file

        path = self.guard.resolve(root, relative)
        text = self._read(path)
        sha = self._remember(text)
        shown = str(relative)
        try:
            loaded = read_eval_file(path)
        except AgentEvalError as exc:
            raise Invalid(
                str(exc).replace(str(path), shown),
                field_errors(getattr(exc, "message", str(exc)), str(path), shown),
            ) from None
        in_format = loaded.format not in _ADK_FORMATS
        data = json.loads(text.lstrip("\ufeff")) if not in_format else None
        editable = loaded.format == "evalset" and isinstance(data, dict)
        cases = [to_snake(c) for c in data.get("eval_cases", [])] if editable and data else []
        if not editable:  # a legacy list file or another format: shown as the engine reads it
            cases = [json.loads(c.model_dump_json(exclude_unset=True)) for c in loaded.eval_set.eval_cases]
        if in_format:  # saved through the format's writer, when one is installed (JSON forms only)
            editable = loaded.format in _writer_names() and find_spans(text) is not None
        return {
            "root": self.guard.root(root).index,
            "path": shown,
            "sha256": sha,
            "format": loaded.format,
            "editable": editable,
            "spelling": "camelCase" if data is not None and file_uses_camel(data) else "snake_case",
            "eval_set_id": loaded.eval_set.eval_set_id,
            "name": loaded.eval_set.name,
            "description": loaded.eval_set.description,
            "cases": cases,
            "warnings": [w.replace(str(path), shown) for w in loaded.warnings],
        }

    # ------------------------------------------------------------------ editing

    def _apply(self, text: str, edits: list[dict[str, Any]], shape: _Shape) -> str:
        elements, ids = shape.elements, shape.ids
        layout = Layout.of(text)
        for number, edit in enumerate(edits):
            if not isinstance(edit, dict):
                raise EditRefused(f"edit {number}: give an object")
            spans = find_spans(text)
            if spans is None or len(spans.elements) != len(elements):
                raise EditRefused("the file's eval_cases array could not be located in its text")
            op = edit.get("op")
            if op == "delete_case":
                case_id = edit.get("case_id")
                if case_id not in ids:
                    raise EditRefused(f"edit {number}: there is no case {case_id!r} to delete")
                index = ids.index(case_id)
                text = remove_element(text, spans, index)
                del elements[index], ids[index]
            elif op == "put_case":
                text = self._put(text, spans, shape, edit, number, layout)
            else:
                raise EditRefused(f"edit {number}: unknown op {op!r}; use put_case or delete_case")
        return text

    def _put(
        self, text: str, spans: Any, shape: _Shape, edit: dict[str, Any], number: int, layout: Layout
    ) -> str:
        elements, ids = shape.elements, shape.ids
        case = edit.get("case")
        if not isinstance(case, dict):
            raise EditRefused(f"edit {number}: 'case' must be an eval case object")
        new_id = case.get("eval_id")
        if not isinstance(new_id, str) or not CASE_ID.fullmatch(new_id):
            raise EditRefused(
                f"case id {str(new_id)[:80]!r}: use letters, digits, '_', '.' and '-' (at most 128, "
                "starting with a letter or digit), so that FILE:CASE selections can name it"
            )
        old_id = edit.get("case_id")
        if old_id is not None and old_id not in ids:
            raise EditRefused(f"edit {number}: there is no case {old_id!r} to change (was it deleted?)")
        if new_id in ids and new_id != old_id and not edit.get("overwrite"):
            raise CaseExists(new_id)
        at = ids.index(old_id) if old_id is not None else ids.index(new_id) if new_id in ids else None
        if at is None:
            written = shape.render(None, case)
            elements.append(written)
            ids.append(new_id)
            return append_element(text, spans, written, layout)
        written = shape.render(elements[at], case)
        if written == elements[at]:
            return text
        text = replace_element(text, spans, at, written, layout)
        elements[at], ids[at] = written, new_id
        if new_id in ids[:at] + ids[at + 1 :]:  # renamed onto another case: that one goes
            other = next(n for n, i in enumerate(ids) if i == new_id and n != at)
            text = remove_element(text, find_spans(text), other)  # type: ignore[arg-type]
            del elements[other], ids[other]
        return text

    def _check(self, text: str, path: Path, shown: str) -> tuple[Path, list[str]]:
        """Write ``text`` to a temporary file beside ``path`` and load it with the engine's
        loader; the temporary file (kept for the rename) or ``Invalid``."""
        from agenteval.errors import AgentEvalError
        from agenteval.plugins import read_eval_file

        if path.name.endswith(_ADK_NAMES):
            temp = path.with_name(f".{path.name}.agenteval-{secrets.token_hex(4)}.tmp")
        else:  # another format: the copy keeps the file's name, in a hidden folder beside it
            temp = path.with_name(f".agenteval-{secrets.token_hex(4)}.tmp") / path.name
            temp.parent.mkdir()
        with open(temp, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            loaded = read_eval_file(temp)
        except AgentEvalError as exc:
            _discard(temp, path)
            raise Invalid(
                str(exc).replace(str(temp), shown),
                field_errors(getattr(exc, "message", str(exc)), str(temp), shown),
            ) from None
        except BaseException:
            _discard(temp, path)
            raise
        return temp, [w.replace(str(temp), shown) for w in loaded.warnings]

    def save(
        self,
        root: object,
        relative: object,
        loaded_sha256: Optional[str],
        edits: list[dict[str, Any]],
        *,
        preview: bool,
        new_set: Optional[dict[str, Any]] = None,
    ) -> SaveOutcome:
        """Apply ``edits`` to the file; with ``preview`` only say what would change.

        ``loaded_sha256`` is the sha256 ``load`` gave; ``None`` with ``new_set``
        (``{"eval_set_id", "name"}``) creates the file, which must not exist yet."""
        shown = str(relative)
        if loaded_sha256 is None:
            path = self._new_path(root, relative, new_set)
            before = ""
        else:
            path = self.guard.resolve(root, relative)
            before = self._texts.get(loaded_sha256) or ""
        with self._lock:
            current = self._read(path) if path.exists() else None
            if loaded_sha256 is None and current is not None:
                raise EditRefused(f"{shown} already exists; load it and add the case there")
            if loaded_sha256 is not None and current is None:
                raise Conflict("", None)
            if current is not None and _sha(current) != loaded_sha256:
                raise Conflict(
                    unified_diff(before, current, shown, ("loaded", "on-disk")) if before else "",
                    _sha(current),
                )
            start = current if current is not None else _new_file_text(new_set or {})
            shape = _Shape.of(start, path)
            text = self._apply(start, edits, shape)
            changed = current is None or text != current
            diff = unified_diff(current or "", text, shown)
            if not changed:
                return SaveOutcome(changed=False, diff="", sha256=_sha(text))
            temp, warnings = self._check(text, path, shown)
            warnings = [*shape.warnings, *warnings]
            if preview:
                _discard(temp, path)
                return SaveOutcome(changed=True, diff=diff, sha256=_sha(text), warnings=warnings)
            try:
                if current is not None:
                    os.chmod(temp, path.stat().st_mode & 0o7777)
                os.replace(temp, path)
            finally:
                _discard(temp, path)
        sha = self._remember(text)
        return SaveOutcome(changed=True, diff=diff, sha256=sha, written=True, warnings=warnings)

    def _new_path(self, root: object, relative: object, new_set: Optional[dict[str, Any]]) -> Path:
        if not isinstance(new_set, dict):
            raise EditRefused("a new eval set needs new_set: {eval_set_id, name}")
        set_id = new_set.get("eval_set_id")
        if not isinstance(set_id, str) or not EVAL_SET_ID.fullmatch(set_id):
            raise EditRefused(
                f"eval set id {str(set_id)[:80]!r}: use letters, digits and '_' only (ADK's rule for "
                "eval sets adk web can open)"
            )
        if not isinstance(relative, str) or not relative.endswith(f"{set_id}.evalset.json"):
            raise EditRefused(f"a new eval set's file is named {set_id}.evalset.json")
        path = self.guard.resolve(root, relative, must_exist=False)
        if not path.parent.is_dir():
            raise PathRefused(f"there is no folder {path.parent.name!r} for {relative!r}")
        return path


@functools.lru_cache(maxsize=1)
def _eval_file_patterns() -> tuple[str, ...]:
    """The installed formats' eval-file patterns (their readers imported once per session)."""
    from agenteval.plugins import eval_file_patterns

    return eval_file_patterns()


def _writer_names() -> list[str]:
    """The formats a writer is installed for (``agenteval.format_writers``)."""
    from agenteval.plugins import format_writers

    return format_writers()


@dataclass
class _Shape:
    """How a file's cases are edited: its ``eval_cases`` elements, their case ids, and how a
    case (ADK's JSON, snake_case) becomes an element (``render(old element or None, case)``).
    ``warnings``: what a render dropped (said in the save's outcome)."""

    elements: list[Any]
    ids: list[Any]
    render: Callable[[Any, dict[str, Any]], Any]
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, text: str, path: Path) -> _Shape:
        """An ADK eval set (edited in its own spelling), or a file of an installed format
        (each changed case written by the format's writer)."""
        if not path.name.endswith(_ADK_NAMES) and path.exists():
            in_format = _format_shape(text, path)
            if in_format is not None:
                return in_format
        data = json.loads(text.lstrip("\ufeff"))
        if not isinstance(data, dict) or not isinstance(data.get("eval_cases"), list):
            raise EditRefused(
                "this file is in a legacy list format; convert it with agenteval migrate OLD -o NEW "
                "and edit the new file"
            )
        camel = bool(file_uses_camel(data))
        cases = data["eval_cases"]
        ids = [c.get("eval_id", c.get("evalId")) if isinstance(c, dict) else None for c in cases]
        return cls(
            cases, ids, lambda old, case: respell(old, case if old is not None else _ordered(case), camel)
        )


def _format_shape(text: str, path: Path) -> Optional[_Shape]:
    """A file of an installed format: its cases' ids as the engine reads them; a changed case
    is what the format's writer writes for it, and the keys of the case it replaces that the
    writer does not write (a recorded response...) are dropped with a warning. ``None`` for
    a file in ADK's format."""
    from agenteval.errors import AgentEvalError
    from agenteval.plugins import read_eval_file

    try:
        loaded = read_eval_file(path)
    except AgentEvalError as exc:
        raise EditRefused(f"the file on disk does not load any more: {exc}") from None
    if loaded.format in _ADK_FORMATS:
        return None
    if loaded.format not in _writer_names():
        raise EditRefused(
            f"no writer is installed for the {loaded.format} format; this file is read-only here"
        )
    data = json.loads(text.lstrip("\ufeff")) if text.lstrip("\ufeff").startswith("{") else None
    cases = data.get("eval_cases") if isinstance(data, dict) else None
    if not isinstance(cases, list) or len(cases) != len(loaded.eval_set.eval_cases):
        raise EditRefused(
            f"this {loaded.format} file is not a JSON object of eval_cases (a table form); "
            "edit it in a text editor or export it (agenteval export)"
        )
    shape = _Shape(cases, [c.eval_id for c in loaded.eval_set.eval_cases], lambda old, case: None)
    eval_set_id, writer_name = loaded.eval_set.eval_set_id, loaded.format
    as_read = {
        id(element): _dumped(model) for element, model in zip(cases, loaded.eval_set.eval_cases, strict=True)
    }

    def render(old: Any, case: dict[str, Any]) -> Any:
        if old is not None and as_read.get(id(old)) == _dumped(case):
            return old  # the case as the file holds it: its text stays, recording included
        written = _written_case(writer_name, eval_set_id, case, shape.warnings)
        if isinstance(old, dict):
            dropped = [k for k in old if k not in written]
            if dropped:
                shape.warnings.append(
                    f"case {case['eval_id']}: {', '.join(dropped)} not written by the {writer_name} "
                    "writer (a recording of the case before this edit); dropped"
                )
        return written

    shape.render = render
    return shape


def _dumped(case: Any) -> Any:
    """An eval case (a model, or its JSON) with every field spelled out, for comparing; the
    JSON itself when it is not a valid case."""
    from agenteval.models import EvalCase
    from pydantic import ValidationError

    try:
        model = case if isinstance(case, EvalCase) else EvalCase.model_validate(case)
    except ValidationError:
        return case
    return model.model_dump(mode="json")


def _written_case(writer_name: str, eval_set_id: str, case: dict[str, Any], warnings: list[str]) -> Any:
    """The one case element the format's writer writes for ``case`` (``Invalid`` when the
    case is not a valid eval case, ``EditRefused`` when the writer cannot write it)."""
    from agenteval.errors import AgentEvalError
    from agenteval.models import EvalCase, EvalSet
    from agenteval.plugins import describe_validation_error, format_writer
    from pydantic import ValidationError

    try:
        model = EvalCase.model_validate(case)
    except ValidationError as exc:
        message = describe_validation_error(exc, EvalCase)
        raise Invalid(message, []) from None
    writer = format_writer(writer_name)
    with tempfile.TemporaryDirectory(prefix="agenteval-viewer-") as folder:
        try:
            [written] = writer.write(EvalSet(eval_set_id=eval_set_id, eval_cases=[model]), Path(folder))
            data = json.loads(written.read_text(encoding="utf-8"))
        except (AgentEvalError, ValueError) as exc:
            raise EditRefused(f"the {writer_name} writer cannot write this case: {exc}") from None
    warnings.extend(f"case {model.eval_id}: {w}" for w in writer.warnings)
    elements = data.get("eval_cases") if isinstance(data, dict) else None
    if not isinstance(elements, list) or len(elements) != 1:
        raise EditRefused(f"the {writer_name} writer does not write a JSON object of eval_cases")
    return elements[0]


def _discard(temp: Path, path: Path) -> None:
    """Remove a temporary copy (and its hidden folder, for a file of another format)."""
    temp.unlink(missing_ok=True)
    if temp.parent != path.parent:
        shutil.rmtree(temp.parent, ignore_errors=True)


def _walk(top: Path) -> Any:
    """(folder, file names) under ``top``, sorted, hidden and tool folders skipped."""
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        yield folder, files


def _new_file_text(new_set: dict[str, Any]) -> str:
    """An empty eval set as ADK's ``LocalEvalSetsManager`` writes one (snake_case, indent 2,
    defaults left out)."""
    data: dict[str, Any] = {"eval_set_id": new_set["eval_set_id"]}
    if new_set.get("name"):
        data["name"] = str(new_set["name"])
    if new_set.get("description"):
        data["description"] = str(new_set["description"])
    data["eval_cases"] = []
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


_CASE_ORDER = (
    "eval_id",
    "conversation",
    "conversation_scenario",
    "session_input",
    "creation_timestamp",
    "rubrics",
    "final_session_state",
)


def _ordered(case: dict[str, Any]) -> dict[str, Any]:
    """A new case's keys in ADK's field order (unknown ones after)."""
    known = {k: case[k] for k in _CASE_ORDER if k in case}
    return {**known, **{k: v for k, v in case.items() if k not in known}}
