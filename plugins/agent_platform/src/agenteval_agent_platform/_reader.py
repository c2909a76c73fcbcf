"""The ``agent-platform`` data format: Agent Platform ``EvaluationDataset`` files as eval sets.

Three file forms, recognised by content (``claims``):

* JSON ``{"eval_cases": [...]}`` without ``eval_set_id`` whose first case has a key among
  ``eval_case_id``, ``prompt``, ``agent_data`` and ``responses`` (agents-cli's
  ``tests/eval/datasets/*-dataset.json``);
* JSONL, one case a line, and CSV with a header: the table ("flatten") columns ``prompt`` (or
  ``source``), ``response``, ``reference``, ``history`` (or ``conversation_history``),
  ``instruction``, ``rubric_groups``, ``intermediate_events``, ``agent_data``; a CSV cell
  holding JSON (a history, rubric groups, agent data) is read as JSON.

The eval set's id is the file name without its extension and a ``-dataset`` suffix. Cases are
mapped by ``_from_dataset``; the recorded responses are the actual turns (``--actual``).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from agenteval.errors import DataError
from agenteval.models import EvalCase, EvalSet
from agenteval.plugins import FormatReader, leading_keys, parse_json, read_bytes

from ._from_dataset import ReadCase, read_case

__all__ = ["AgentPlatformReader", "eval_set_id_of"]

_CASE_MARKERS = {"eval_case_id", "prompt", "agent_data", "responses"}
_TABLE_MARKERS = {"prompt", "source", "agent_data", "response", "eval_case_id"}
_TABLE_RENAMES = {"source": "prompt", "history": "conversation_history", "instruction": "system_instruction"}
_JSON_CELLS = {
    "conversation_history",
    "rubric_groups",
    "intermediate_events",
    "agent_data",
    "session_inputs",
    "reference_trajectory",
}
_SUFFIX = re.compile(r"(-dataset)?\.(jsonl?|csv)$", re.IGNORECASE)


def eval_set_id_of(path: Path) -> str:
    """``basic-dataset.json`` -> ``basic``."""
    return _SUFFIX.sub("", path.name) or "dataset"


def _first_case_keys(head: bytes) -> tuple[str, ...]:
    text = head.decode("utf-8", errors="replace")
    found = re.search(r'"eval_cases"\s*:\s*\[\s*', text)
    return leading_keys(text[found.end() :].encode()) if found else ()


def _is_table_row(keys: Sequence[str]) -> bool:
    names = set(keys)
    return bool(names & _TABLE_MARKERS) or {"response", "reference"} <= names


class AgentPlatformReader(FormatReader):
    """Agent Platform ``EvaluationDataset`` files (agents-cli datasets, JSONL and CSV tables)."""

    description = "Agent Platform EvaluationDataset (agents-cli *-dataset.json, JSONL, CSV)"
    eval_file_patterns: ClassVar[tuple[str, ...]] = ("*-dataset.json", "*-dataset.jsonl", "*-dataset.csv")

    @classmethod
    def claims(cls, head: bytes) -> bool:
        text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if text.startswith(b"{"):
            keys = leading_keys(text)
            if "eval_set_id" in keys:
                return False
            if "eval_cases" in keys:
                return bool(_CASE_MARKERS & set(_first_case_keys(text)))
            first_line = text.split(b"\n", 1)[0]
            return bool(keys) and _is_table_row(leading_keys(first_line)) and "eval_cases" not in keys
        if text.startswith(b"["):
            return False
        header = text.split(b"\n", 1)[0].decode("utf-8", errors="replace")
        columns = next(csv.reader([header]), [])
        return len(columns) > 1 and _is_table_row([c.strip() for c in columns])

    def _cases(self, path: Path) -> list[ReadCase]:
        where = str(path)
        read = read_bytes(path, what="an Agent Platform dataset")
        text = read.lstrip()
        if text.startswith(b"{") and "eval_cases" in leading_keys(text):
            data = parse_json(read, source=where, what="an Agent Platform dataset")
            unknown = [k for k in data if k not in ("eval_cases", "candidate_name")]
            if unknown:
                raise DataError(
                    f"{unknown[0]}: not read by agenteval (an EvaluationDataset file holds eval_cases)",
                    source=where,
                )
            if data.get("candidate_name"):
                self.warnings.append(
                    f"candidate_name {data['candidate_name']!r}: ADK eval sets have no candidate name; "
                    "dropped"
                )
            cases = data["eval_cases"]
            if not isinstance(cases, list):
                raise DataError("eval_cases: expected a list of cases", source=where)
            rows = [(case, ["eval_cases", n]) for n, case in enumerate(cases)]
        elif text.startswith(b"{"):
            rows = [(_table_row(row, where, f"line {n}"), [f"line {n}"]) for n, row in _lines(read, where)]
        else:
            rows = [(_table_row(row, where, f"row {n}"), [f"row {n}"]) for n, row in _csv_rows(read, where)]
        found = []
        for index, (case, loc) in enumerate(rows):
            one = read_case(case, index, loc, where)
            self.warnings.extend(one.warnings)
            found.append(one)
        return found

    def read_eval_set(self, path: Path) -> EvalSet:
        cases = self._cases(path)
        return EvalSet(eval_set_id=eval_set_id_of(path), eval_cases=[c.expected for c in cases])

    def read_actual(self, path: Path, cases: Sequence[EvalCase]) -> EvalSet:
        found = self._cases(path)
        recorded = [
            c.expected.model_copy(update={"conversation": c.actual}) for c in found if c.actual is not None
        ]
        return EvalSet(eval_set_id=eval_set_id_of(path), eval_cases=recorded)


def _lines(data: bytes, where: str) -> list[tuple[int, Any]]:
    """The JSONL rows by line number (a line's JSON problem names the line)."""
    return [
        (n, parse_json(line.encode(), source=f"{where}:{n}", what="a dataset row"))
        for n, line in enumerate(data.decode("utf-8-sig").splitlines(), start=1)
        if line.strip()
    ]


#: Where ``csv.DictReader`` puts the cells of a row past the header's columns.
_EXTRA = "\0extra"


def _csv_rows(data: bytes, where: str) -> list[tuple[int, dict[str, Any]]]:
    try:
        reader = csv.DictReader(io.StringIO(data.decode("utf-8-sig")), restkey=_EXTRA)
        rows = [(n, dict(row)) for n, row in enumerate(reader, start=2)]
    except (csv.Error, UnicodeDecodeError) as exc:
        raise DataError(f"not a readable CSV table: {exc}", source=where) from None
    for n, row in rows:
        if _EXTRA in row:
            columns = len(reader.fieldnames or ())
            raise DataError(
                f"row {n}: {columns + len(row[_EXTRA])} cells where the header names {columns} columns; "
                "name every column in the header, or remove the extra cells",
                source=where,
            )
    return rows


def _table_row(row: Any, where: str, line: str) -> dict[str, Any]:
    """A table row in the case shape: ``response`` -> ``responses``, JSON cells parsed."""
    if not isinstance(row, dict):
        raise DataError(f"{line}: expected an object of columns", source=where)
    case: dict[str, Any] = {}
    for column, value in row.items():
        key = _TABLE_RENAMES.get(column, column)
        if value in ("", None):
            continue
        if key in _JSON_CELLS and isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise DataError(
                    f"{line}: column {column!r}: not JSON ({exc.msg} at {exc.pos})", source=where
                ) from None
        if key == "response":
            key, value = "responses", [{"response": value}]
        case[key] = value
    return case
