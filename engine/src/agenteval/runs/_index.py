"""``index.jsonl``: one short line per ``results.jsonl`` record, written right after it.

A line says where its record is (``at``: byte offset and length in ``results.jsonl``) and what
a list of cases shows without reading the record: the key, the case's status, each
criterion's status, score, reason code, verdict and rubric outcomes, and a preview (the first
user message and the last reply, clipped). Reading 100k of these is a few tens of megabytes
where the records are hundreds.

The index only ever speeds reading up; ``results.jsonl`` stays the truth. A reader takes an
index line only when it points inside the file, after the previous line's record, on line
boundaries, and (when the index is not known to be kept in step with the records, or
``results.jsonl`` was modified after it) at a record whose head carries the line's key and
status; records no line covers (a process killed between the two writes, lines of a
``results.jsonl`` that was lost or rewritten since, a folder written by another tool) are read
from ``results.jsonl`` itself (``RecordedRun`` does this).
"""

from __future__ import annotations

import itertools
import mmap
import operator
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pydantic_core

from .._results import Status
from ..models import Invocation
from ._records import CaseRecord

__all__ = [
    "INDEX",
    "INDEX_VERSION",
    "PREVIEW_REPLY",
    "PREVIEW_USER",
    "criteria_well_formed",
    "index_entry",
    "read_index",
    "read_lines_at",
    "well_formed",
]

INDEX = "index.jsonl"
#: ``Manifest.index_version`` of the folders this engine writes: the index kept in step with
#: the records (``--resume`` drops the lines that do not match theirs first).
INDEX_VERSION = 2
#: characters of the first user message and of the last reply kept in ``preview``
PREVIEW_USER = 200
PREVIEW_REPLY = 300


def _preview(text: str, limit: int) -> str:
    """``text`` on one line (runs of whitespace made one space), at most ``limit`` characters."""
    return " ".join(text[: limit * 4].split())[:limit]


def _rubrics(result: Any) -> list[list[Any]]:
    """``[rubric_id, score, verdict]`` for every rubric verdict the result records, over its
    runs and invocations."""
    found: list[list[Any]] = []
    for each in result.runs or (result,):
        for item in each.per_invocation:
            entries = item.details.get("rubrics")
            if not entries:
                continue
            for entry in entries:
                if isinstance(entry, dict) and "rubric_id" in entry:
                    found.append([str(entry["rubric_id"]), entry.get("score"), entry.get("verdict")])
    return found


def _rubric_texts(expected: list[Invocation]) -> dict[str, str]:
    return {
        rubric.rubric_id: rubric.rubric_content.text_property or ""
        for invocation in expected
        for rubric in invocation.rubrics or []
    }


def criterion_arrays(record: CaseRecord) -> list[list[Any]]:
    """``[criterion, status, score, reason_code, verdict, rubrics]`` for each of ``record``'s
    criteria (the index's and ``scores.jsonl``'s)."""
    return [
        [
            result.criterion,
            result.status.value,
            result.score,
            result.reason_code,
            result.verdict.verdict if result.verdict is not None else None,
            _rubrics(result),
        ]
        for result in record.criteria
    ]


def preview_of(record: CaseRecord) -> dict[str, str]:
    """The index line's ``preview`` of ``record``: the first turn's user text (of the actual
    turns, else the expected ones) and the last actual turn's reply, each on one line and
    cut short."""
    actual = list(record.actual.invocations) if record.actual is not None else []
    turns = actual or list(record.expected or [])
    user = turns[0].user_content.text() if turns else ""
    reply = actual[-1].final_text() if actual else ""
    return {"user": _preview(user, PREVIEW_USER), "reply": _preview(reply, PREVIEW_REPLY)}


def index_entry(
    record: CaseRecord,
    offset: int,
    length: int,
    criteria: Optional[list[list[Any]]] = None,
    preview: Optional[dict[str, str]] = None,
) -> dict[str, Any]:
    """The index line (as a dict) of ``record``, written at ``offset`` with ``length`` bytes.

    ``docs/run-folder.md`` documents every key. Each criterion is one array,
    ``[criterion, status, score, reason_code, verdict, rubrics]`` (the one structure repeated
    on every line: arrays keep it short and quick to read); ``rubric_texts`` is there only
    when the case's expected turns carry rubrics of their own. ``criteria``: the record's
    ``criterion_arrays`` when the caller made them already (the writer shares them with
    ``scores.jsonl``); ``preview``: its ``preview_of(record)`` when the caller has it (the
    record's actual turns are then not read)."""
    expected = list(record.expected or [])
    entry: dict[str, Any] = {
        "key": [record.eval_set_index, record.case_id, record.run_index],
        "at": [offset, length],
        "status": record.status.value,
        "reason_code": record.reason_code,
        "duration_s": record.duration_s,
        "criteria": criteria if criteria is not None else criterion_arrays(record),
        "preview": preview if preview is not None else preview_of(record),
    }
    texts = _rubric_texts(expected)
    if texts:
        entry["rubric_texts"] = texts
    return entry


#: an index line as ``read_index`` yields it: key, offset, length, position, the line
Line = tuple[tuple[int, str, int], int, int, int, Any]

_HEAD = re.compile(rb'\{"key":\[(\d+),"((?:[^"\\]|\\.)*)",(\d+)\],"at":\[(\d+),(\d+)\],"status":"([A-Z_]+)"')


def _where(line: bytes) -> tuple[tuple[int, str, int], int, int, str]:
    """The key, offset, length and status of an index line: read from its head when it is
    laid out as the writer lays it out (``{"key":[...],"at":[...],"status":...``), else from
    the whole line."""
    head = _HEAD.match(line)
    if head is not None:
        eval_set, case_id, run_index, offset, length, status = head.groups()
        escaped = b"\\" in case_id
        text = pydantic_core.from_json(b'"' + case_id + b'"') if escaped else case_id.decode("utf-8")
        return (int(eval_set), text, int(run_index)), int(offset), int(length), status.decode()
    return _key_of(pydantic_core.from_json(line))


_STATUSES = frozenset(status.value for status in Status)


def well_formed(entry: Any) -> bool:
    """The shape ``index_entry`` writes: a known status, criteria as
    ``[name, status, score, reason_code, verdict, rubrics]`` arrays (``criteria_well_formed``),
    a preview of strings, rubric texts of strings. (A plain loop: it runs once per line when
    a run is opened.)"""
    if entry.get("status") not in _STATUSES or type(entry.get("reason_code")) not in _TEXT_OR_NONE:
        return False
    preview = entry.get("preview")
    if type(preview) is not dict or type(preview.get("user", "")) is not str:
        return False
    if type(preview.get("reply", "")) is not str:
        return False
    texts = entry.get("rubric_texts", {})
    if type(texts) is not dict or not all(type(text) is str for text in texts.values()):
        return False
    return criteria_well_formed(entry.get("criteria"))


def criteria_well_formed(criteria: Any, *, run_scores: bool = False) -> bool:
    """Whether ``criteria`` are ``criterion_arrays`` as written: a list of
    ``[name, status, score, reason_code, verdict, rubrics]``, each rubric an array of three
    whose first item is its id (an index line's, or every ``scores.jsonl`` line's at once: a
    reader takes lines only so); with ``run_scores``, each with a seventh item, the list of
    its runs' scores (``briefs.jsonl``'s arrays). Checked column by column, in C loops; a
    line's few criteria item by item (``_few_well_formed``: the same rule, without the
    columns' set-up, which costs more than a line's two or three items)."""
    if type(criteria) is not list:
        return False
    if not criteria:
        return True
    if len(criteria) <= _FEW:
        return _few_well_formed(criteria, 7 if run_scores else 6)
    try:
        if set(map(type, criteria)) != _LIST or set(map(len, criteria)) != (_SEVEN if run_scores else _SIX):
            return False
        if run_scores and set(map(type, map(_ITEMS[6], criteria))) != _LIST:
            return False
        names, statuses, scores, codes, verdicts, rubrics = (map(_ITEMS[i], criteria) for i in range(6))
        if set(map(type, names)) != _TEXT or not _STATUSES.issuperset(statuses):
            return False
        texts = _TEXT_OR_NONE.issuperset
        if not _NUMBER_OR_NONE.issuperset(map(type, scores)) or not texts(map(type, codes)):
            return False
        each = list(rubrics)
        if not texts(map(type, verdicts)) or set(map(type, each)) != _LIST:
            return False
        each = list(itertools.chain.from_iterable(each))
        if not each:
            return True
        if set(map(type, each)) != _LIST or set(map(len, each)) != _THREE:
            return False
        return set(map(type, map(_ITEMS[0], each))) == _TEXT
    except TypeError:  # a status that is no string (a list, say) cannot be looked up
        return False


def _few_well_formed(criteria: list[Any], width: int) -> bool:
    """``criteria_well_formed`` item by item, each criterion an array of ``width`` (6, or 7
    with its runs' scores)."""
    statuses, texts, numbers = _STATUSES, _TEXT_OR_NONE, _NUMBER_OR_NONE
    for item in criteria:
        if type(item) is not list or len(item) != width:
            return False
        name, status, score, code, verdict, rubrics = item[:6]
        if type(name) is not str or type(status) is not str or status not in statuses:
            return False
        if type(score) not in numbers or type(code) not in texts or type(verdict) not in texts:
            return False
        if type(rubrics) is not list or (width == 7 and type(item[6]) is not list):
            return False
        for rubric in rubrics:
            if type(rubric) is not list or len(rubric) != 3 or type(rubric[0]) is not str:
                return False
    return True


#: The most criteria checked item by item (``_few_well_formed``) rather than by column.
_FEW = 8
_ITEMS = tuple(map(operator.itemgetter, range(7)))
_LIST, _TEXT, _THREE = frozenset({list}), frozenset({str}), frozenset({3})
_SIX, _SEVEN = frozenset({6}), frozenset({7})
_NUMBER_OR_NONE = frozenset({int, float, type(None)})
_TEXT_OR_NONE = frozenset({str, type(None)})


def _key_of(entry: Any) -> tuple[tuple[int, str, int], int, int, str]:
    """An index line's key, offset, length and status (``TypeError``: not of their types)."""
    eval_set, case_id, run_index = entry["key"]
    offset, length = entry["at"]
    status = entry["status"]
    if type(case_id) is not str or type(status) is not str:
        raise TypeError("an index line's case id and status are strings")
    if not all(type(number) is int for number in (eval_set, run_index, offset, length)):
        raise TypeError("an index line's eval set index, run index and place are integers")
    return (eval_set, case_id, run_index), offset, length, status


def read_index(
    folder: Path, results: str, *, parse: bool = False, verify: bool = True
) -> Optional[Iterator[Line]]:
    """Every trustworthy line of ``folder``'s index as ``(key, offset, length, position,
    line)`` (``position``: where the line starts in ``index.jsonl``; ``line``: the entry as
    plain data with ``parse``, else its bytes), in file order, each ``offset`` past the last
    one's end; ``None`` when there is no index (or no ``results``). The caller reads whatever
    lies between (and after) the lines from ``results`` itself.

    Consecutive records are checked where they meet the rest of the file: a line that does
    not follow the one before must start a line of ``results``, and the last line of each
    such stretch must end one (a byte each). With ``verify`` (an index not known to be kept
    in step with its records: ``Manifest.index_version`` below ``INDEX_VERSION``), and
    whenever ``results`` was modified after the index, every line is also checked against
    its record: it must start a line of ``results`` and carry the line's key and status in
    its head. So lines left from a ``results.jsonl`` that was lost, cut or rewritten since
    are never taken for the records there now."""
    index_path = folder / INDEX
    results_path = folder / results
    try:
        index_stat = index_path.stat()
        results_stat = results_path.stat()
    except OSError:
        return None
    verify = verify or results_stat.st_mtime_ns > index_stat.st_mtime_ns
    return _lines(index_path, results_path, results_stat.st_size, parse, verify)


#: bytes of a record's head searched for its key and status (more when they lie further)
_RECORD_HEAD = 512


def _is_its_record(data: Any, key: tuple[int, str, int], status: str, offset: int, length: int) -> bool:
    """Whether a line of ``data`` (``results.jsonl``, mapped) starts at ``offset`` and its
    record carries ``key`` and ``status`` in its head (the key fields and the status come
    first in a record, as its writer lays it out)."""
    if offset and data[offset - 1] != 10:  # b"\n"
        return False
    eval_set, case_id, run_index = key
    marker = b'"case_id":%b,"run_index":%d,"status":"%b"' % (
        pydantic_core.to_json(case_id),
        run_index,
        status.encode(),
    )
    head = data[offset : offset + min(length, _RECORD_HEAD)]
    found = head.find(marker)
    if found == -1 and length > _RECORD_HEAD:  # a long head (a long file path, a long id)
        head = data[offset : offset + min(length, 65536)]
        found = head.find(marker)
    if found == -1 or head.find(b"\n", 0, found) != -1 or not head.startswith(b"{"):
        return False
    return b'"eval_set_index":%d,' % eval_set in head[:found]


def _lines(index_path: Path, results_path: Path, size: int, parse: bool, verify: bool) -> Iterator[Line]:
    if size == 0:
        return  # nothing for a line to point at
    with (
        open(results_path, "rb") as results,
        mmap.mmap(results.fileno(), size, access=mmap.ACCESS_READ) as data,
    ):
        yield from _checked(index_path, data, size, parse, verify)


def _checked(index_path: Path, data: Any, size: int, parse: bool, verify: bool) -> Iterator[Line]:
    held: Optional[Line] = None  # the last line read, yielded once the next one is known
    end = 0  # where the last accepted line's record ends
    position = 0
    with open(index_path, "rb") as handle:
        for line in handle:
            start, position = position, position + len(line)
            if not line.endswith(b"\n"):
                continue  # a killed writer's last line
            try:
                if parse:
                    entry = pydantic_core.from_json(line)
                    key, offset, length, status = _key_of(entry)
                    if not well_formed(entry):
                        continue  # its record is read instead
                else:
                    key, offset, length, status = _where(line)
            except (ValueError, KeyError, TypeError):
                continue
            if offset < end or length <= 0 or offset + length > size:
                continue
            if verify and not _is_its_record(data, key, status, offset, length):
                continue
            if offset != end:  # a stretch ends: check both sides of the gap
                if held is not None and data[held[1] + held[2] - 1] != 10:
                    held = None
                if offset != 0 and data[offset - 1] != 10:
                    continue
            if held is not None:
                yield held
            held = (key, offset, length, start, entry if parse else line)
            end = offset + length
        if held is not None and data[held[1] + held[2] - 1] == 10:
            yield held


def read_lines_at(folder: Path, positions: set[int]) -> Iterator[tuple[int, bytes]]:
    """``(position, line)`` for the lines of ``folder``'s index that start at ``positions``
    (from ``read_index``), in file order, read in one sequential pass."""
    if not positions:
        return
    position = 0
    with open(folder / INDEX, "rb") as handle:
        for line in handle:
            if position in positions:
                yield position, line
            position += len(line)
