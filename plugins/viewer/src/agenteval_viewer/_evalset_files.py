"""Eval-set files for the authoring screens: list, load, preview and save.

* **Loading** goes through the engine's loader (``agenteval._loading.read_eval_file``), so a
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
* **New files** are written as ADK writes them (``LocalEvalSetsManager``): snake_case, two
  spaces of indentation, ``<eval_set_id>.evalset.json``.

Id rules: a new eval set's id matches ``^[A-Za-z0-9_]+$`` (ADK's ``create_eval_set`` rule,
so ``adk web`` opens the file); a case id saved from here matches
``^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`` (it stays usable in ``FILE:CASE,CASE`` selections).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import secrets
import threading
from collections import OrderedDict
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
        """Every ``*.evalset.json`` and ``*.test.json`` under the folders (hidden and tool
        folders skipped; at most 2,000), without reading them."""
        found: list[dict[str, Any]] = []
        for root in self.guard.roots:
            for folder, files in _walk(root.folder):
                for name in sorted(files):
                    if not name.endswith((".evalset.json", ".test.json")):
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
        from agenteval._loading import read_eval_file
        from agenteval.errors import AgentEvalError

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
        data = json.loads(text.lstrip("\ufeff"))
        editable = loaded.format == "evalset" and isinstance(data, dict)
        cases = [to_snake(c) for c in data.get("eval_cases", [])] if editable else []
        if not editable:  # a legacy list file: shown as the engine converts it, read-only
            cases = [json.loads(c.model_dump_json(exclude_unset=True)) for c in loaded.eval_set.eval_cases]
        return {
            "root": self.guard.root(root).index,
            "path": shown,
            "sha256": sha,
            "format": loaded.format,
            "editable": editable,
            "spelling": "camelCase" if file_uses_camel(data) else "snake_case",
            "eval_set_id": loaded.eval_set.eval_set_id,
            "name": loaded.eval_set.name,
            "description": loaded.eval_set.description,
            "cases": cases,
            "warnings": [w.replace(str(path), shown) for w in loaded.warnings],
        }

    # ------------------------------------------------------------------ editing

    def _apply(self, text: str, edits: list[dict[str, Any]]) -> str:
        data = json.loads(text.lstrip("\ufeff"))
        if not isinstance(data, dict) or not isinstance(data.get("eval_cases"), list):
            raise EditRefused(
                "this file is in a legacy list format; convert it with agenteval migrate OLD -o NEW "
                "and edit the new file"
            )
        camel = bool(file_uses_camel(data))
        layout = Layout.of(text)
        for number, edit in enumerate(edits):
            if not isinstance(edit, dict):
                raise EditRefused(f"edit {number}: give an object")
            cases = data["eval_cases"]
            ids = [c.get("eval_id", c.get("evalId")) if isinstance(c, dict) else None for c in cases]
            spans = find_spans(text)
            if spans is None or len(spans.elements) != len(cases):
                raise EditRefused("the file's eval_cases array could not be located in its text")
            op = edit.get("op")
            if op == "delete_case":
                case_id = edit.get("case_id")
                if case_id not in ids:
                    raise EditRefused(f"edit {number}: there is no case {case_id!r} to delete")
                index = ids.index(case_id)
                text = remove_element(text, spans, index)
                del cases[index]
            elif op == "put_case":
                text = self._put(text, spans, cases, ids, edit, number, layout, camel)
                data = json.loads(text.lstrip("\ufeff"))
            else:
                raise EditRefused(f"edit {number}: unknown op {op!r}; use put_case or delete_case")
        return text

    def _put(
        self,
        text: str,
        spans: Any,
        cases: list[Any],
        ids: list[Any],
        edit: dict[str, Any],
        number: int,
        layout: Layout,
        camel: bool,
    ) -> str:
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
        if old_id is not None:
            index = ids.index(old_id)
            written = respell(cases[index], case, camel)
            if written == cases[index]:
                return text
            text = replace_element(text, spans, index, written, layout)
            if new_id != old_id and new_id in ids:  # renamed onto another case: that one goes
                return remove_element(text, find_spans(text), ids.index(new_id))  # type: ignore[arg-type]
            return text
        if new_id in ids:  # overwrite another case in its place
            index = ids.index(new_id)
            written = respell(cases[index], case, camel)
            return text if written == cases[index] else replace_element(text, spans, index, written, layout)
        return append_element(text, spans, respell(None, _ordered(case), camel), layout)

    def _check(self, text: str, path: Path, shown: str) -> tuple[Path, list[str]]:
        """Write ``text`` to a temporary file beside ``path`` and load it with the engine's
        loader; the temporary file (kept for the rename) or ``Invalid``."""
        from agenteval._loading import read_eval_file
        from agenteval.errors import AgentEvalError

        temp = path.with_name(f".{path.name}.agenteval-{secrets.token_hex(4)}.tmp")
        with open(temp, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            loaded = read_eval_file(temp)
        except AgentEvalError as exc:
            temp.unlink(missing_ok=True)
            raise Invalid(
                str(exc).replace(str(temp), shown),
                field_errors(getattr(exc, "message", str(exc)), str(temp), shown),
            ) from None
        except BaseException:
            temp.unlink(missing_ok=True)
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
            text = self._apply(start, edits)
            changed = current is None or text != current
            diff = unified_diff(current or "", text, shown)
            if not changed:
                return SaveOutcome(changed=False, diff="", sha256=_sha(text))
            temp, warnings = self._check(text, path, shown)
            if preview:
                temp.unlink(missing_ok=True)
                return SaveOutcome(changed=True, diff=diff, sha256=_sha(text), warnings=warnings)
            try:
                if current is not None:
                    os.chmod(temp, path.stat().st_mode & 0o7777)
                os.replace(temp, path)
            finally:
                temp.unlink(missing_ok=True)
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
